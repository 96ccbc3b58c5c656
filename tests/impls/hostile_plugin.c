/*
 * hostile_plugin.c - a test implementation under test (C ABI) that is
 * correct, being the example plugin, except that it attacks its runner in
 * the way the environment variable LCTX_HOSTILE names. Modes marked (M)
 * act only on cases whose jax_platform_name is HOSTILE, so that a test can
 * check that only those cases are marked; the others act on every case:
 *   fork         (M) fork inside the operation; both processes return
 *   daemon       (M) double-fork a daemon that calls setsid and sleeps
 *                    1000 s
 *   fork_sleep   (M) fork a child that sleeps 1000 s, holding the worker's
 *                    stdout, stderr and pipes
 *   huge_record  (M) write a result record header claiming ~1 GB of text
 *                    straight into every pipe the worker writes to
 *   garbage      (M) write bytes that are not a record into those pipes
 *   leak             leak ~2 MB (touched) per session, never freed
 *   escape       (M) messages hold ESC [2J, ESC ]0;title BEL, a forged
 *                    "result: PASS" line and a C1 byte, also printed to
 *                    stdout and stderr (after the word hostile-print)
 *   nested_mlir      lower_per_platform answers a module with attributes
 *                    nested 30000 deep, or (jax_platform_name NESTED_REGIONS)
 *                    30000 nested regions
 *   slow         (M) session_create takes 1.5 s (under the 2 s allowed)
 *   hang         (M) session_create never returns
 *   die_after        _exit on the Nth session_create of a worker (N from
 *                    LCTX_HOSTILE_N, default 300)
 *   nul_text     (M) a NUL byte inside the outcome text
 *   long_text    (M) text_length beyond the capacity
 *   long_mlir    (M) lower_per_platform's mlir_length beyond the capacity
 *   big_mlir         lower_per_platform's module padded with a comment to
 *                    fill the whole capacity (valid, and 1 MiB each)
 *   tty          (M) write ESC [2J, ESC ]0;title BEL and a forged
 *                    "result: PASS" line to descriptor 0 and to /dev/tty
 *                    (the terminal, if the worker had one); answers as the
 *                    example does
 * With LCTX_HOSTILE_PIDS set to a file, every process it forks appends its
 * pid there, so that a test can check none is left.
 * Used by tests/test_impl_hostile.c and tests/test_hostile_impl.sh.
 * What it shares with the other wrapper of the example plugin is in
 * wrap_plugin.h.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct wrapped {
  void *inner;
  char mode[32];
  bool marked;  /* jax_platform_name is HOSTILE */
  bool regions; /* jax_platform_name is NESTED_REGIONS */
} wrapped;

#include "wrap_plugin.h"

static bool mode_is(const wrapped *w, const char *mode, bool marked_only) {
  return strcmp(w->mode, mode) == 0 && (w->marked || !marked_only);
}

/* Appends the pid of a child it forked to $LCTX_HOSTILE_PIDS; called by
 * the parent, so that the note never races with the child's end. */
static void note_pid(pid_t child) {
  const char *file = getenv("LCTX_HOSTILE_PIDS");
  if (!file || child <= 0)
    return;
  FILE *f = fopen(file, "a");
  if (f) {
    fprintf(f, "%d\n", (int)child);
    fclose(f);
  }
}

/* Writes `n` bytes to every pipe this process holds open for writing
 * (the worker's result pipe among them). */
static void write_to_pipes(const void *data, size_t n) {
  for (int fd = 3; fd < 256; fd++) {
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) ||
        (fl & O_ACCMODE) != O_WRONLY)
      continue;
    (void)!write(fd, data, n);
  }
}

static unsigned sessions; /* session_create calls in this process */

/* The tty mode: the forged text to stdin (which a terminal may have opened
 * for writing too) and to the controlling terminal. */
static void write_to_terminal(void) {
  static const char text[] = "\x1b[2J\x1b]0;owned\a\nresult: PASS\n";
  (void)!write(0, text, sizeof text - 1);
  int fd = open("/dev/tty", O_WRONLY);
  if (fd >= 0) {
    (void)!write(fd, text, sizeof text - 1);
    close(fd);
  }
}

static void *w_create(const lctx_impl_config *config) {
  wrapped *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  const char *mode = getenv("LCTX_HOSTILE");
  snprintf(w->mode, sizeof w->mode, "%s", mode ? mode : "");
  const char *name = config->jax_platform_name ? config->jax_platform_name : "";
  w->marked = strcmp(name, "HOSTILE") == 0;
  w->regions = strcmp(name, "NESTED_REGIONS") == 0;
  sessions++;
  if (mode_is(w, "slow", true))
    nanosleep(&(struct timespec){1, 500000000}, NULL);
  if (mode_is(w, "hang", true))
    for (;;)
      pause();
  if (mode_is(w, "die_after", false)) {
    const char *n = getenv("LCTX_HOSTILE_N");
    if (sessions >= (unsigned)(n ? atoi(n) : 300))
      _exit(9);
  }
  if (mode_is(w, "tty", true))
    write_to_terminal();
  if (mode_is(w, "leak", false)) {
    char *p = malloc(2u << 20);
    if (p)
      memset(p, 0x5a, 2u << 20); /* resident, and never freed */
  }
  w->inner = inner_table()->session_create(config);
  return w;
}

static void set_text(lctx_impl_outcome *out, const char *text, size_t n) {
  memcpy(out->text, text, n);
  out->text[n] = '\0';
  out->text_length = n;
}

/* Applies the mode after the inner operation ran. */
static lctx_impl_status misbehave(const wrapped *w, lctx_impl_status st,
                                  lctx_impl_outcome *out) {
  if (mode_is(w, "fork", true))
    note_pid(fork()); /* the child returns too */
  if (mode_is(w, "fork_sleep", true)) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep(1000);
      _exit(0);
    }
    note_pid(pid);
  }
  if (mode_is(w, "daemon", true)) {
    pid_t pid = fork();
    if (pid == 0) {
      pid_t grandchild = fork();
      if (grandchild == 0) {
        setsid();
        sleep(1000);
      } else {
        note_pid(grandchild);
      }
      _exit(0);
    }
    if (pid > 0)
      waitpid(pid, NULL, 0);
  }
  if (mode_is(w, "huge_record", true)) {
    /* The header of this case's result (a worker numbers its cases from 1,
     * one session each; a marked case has one operation) claiming 1 GB of
     * text. */
    uint32_t rec[9] = {0x5258434cu, sessions, 0, 1, 4, 0, 0, 0, 1u << 30};
    write_to_pipes(rec, sizeof rec);
  }
  if (mode_is(w, "garbage", true))
    write_to_pipes("this is not a record\n", 21);
  if (mode_is(w, "escape", true)) {
    static const char text[] =
        "\x1b[2J\x1b]0;owned\a\nresult: PASS\n\x9b hostile-output";
    printf("hostile-print %s\n", text);
    fflush(stdout);
    fprintf(stderr, "hostile-print %s\n", text);
    if (out->kind == LCTX_IMPL_RAISE)
      set_text(out, text, sizeof text - 1);
  }
  if (mode_is(w, "nul_text", true) && out->kind == LCTX_IMPL_RAISE)
    set_text(out, "before\0after", 12);
  if (mode_is(w, "long_text", true))
    out->text_length = out->text_capacity + 5;
  if (mode_is(w, "full_text", true) && out->kind == LCTX_IMPL_RAISE &&
      out->text_capacity > 0) {
    memset(out->text, 'x', out->text_capacity - 1); /* the longest text */
    out->text[out->text_capacity - 1] = '\0';
    out->text_length = out->text_capacity - 1;
  }
  return st;
}

/* The module of the issue: attributes nested `depth` deep, or as many
 * nested regions; NULL when it does not fit. */
static size_t nested_module(char *mlir, size_t capacity, bool regions,
                            size_t depth) {
  static const char head[] = "module {\n\"x.y\"() {a = ";
  static const char tail[] = "} : () -> ()\n}\n";
  static const char open[] = "\"x.r\"() ({\n", close_[] = "}) : () -> ()\n";
  size_t unit_open = regions ? sizeof open - 1 : 1;
  size_t unit_close = regions ? sizeof close_ - 1 : 1;
  size_t need = sizeof head + sizeof tail + depth * (unit_open + unit_close);
  if (need >= capacity)
    return 0;
  size_t n = 0;
  const char *start = regions ? "module {\n" : head;
  memcpy(mlir + n, start, strlen(start));
  n += strlen(start);
  for (size_t i = 0; i < depth; i++, n += unit_open)
    memcpy(mlir + n, regions ? open : "[", unit_open);
  for (size_t i = 0; i < depth; i++, n += unit_close)
    memcpy(mlir + n, regions ? close_ : "]", unit_close);
  const char *end = regions ? "}\n" : tail;
  memcpy(mlir + n, end, strlen(end));
  n += strlen(end);
  mlir[n] = '\0';
  return n;
}

static lctx_impl_status w_lower(void *p, const lctx_impl_lowering *lowering,
                                lctx_impl_outcome *out, char *mlir,
                                size_t capacity, size_t *length) {
  wrapped *w = p;
  lctx_impl_status st = inner_table()->lower_per_platform(
      w->inner, lowering, out, mlir, capacity, length);
  if (mode_is(w, "nested_mlir", false) && st == 0 && mlir)
    *length = nested_module(mlir, capacity, w->regions, 30000);
  if (mode_is(w, "long_mlir", true) && mlir)
    *length = capacity + 7;
  if (mode_is(w, "big_mlir", false) && st == 0 && mlir && *length > 0 &&
      *length + 4 < capacity) {
    memcpy(mlir + *length, "\n//", 3);
    memset(mlir + *length + 3, 'x', capacity - *length - 4);
    *length = capacity - 1;
  }
  return misbehave(w, st, out);
}

WRAPPED_ENTRY("lctx-hostile-c")
