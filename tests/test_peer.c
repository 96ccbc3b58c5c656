/*
 * tests/test_peer.c - the one way lctx runs a child (harness/process/peer.h),
 * tried as a hostile child would:
 *   - it has no controlling terminal: run from a process whose controlling
 *     terminal is a pseudo-terminal made here, a program and lctx's own code
 *     cannot open /dev/tty, and nothing they try reaches the terminal;
 *   - its standard input is never lctx's: writing to it fails;
 *   - descriptors lctx holds open (without close-on-exec) are closed in it;
 *   - what it leaves running (a double-forked daemon in a session of its
 *     own) is killed when the peer stops or a run of it ends;
 *   - a program that cannot be started is said so, with the reason;
 *   - a peer that writes half an answer and stops costs one deadline;
 *   - lctx stopped (SIGSTOP) past a deadline does not blame the peer;
 *   - a peer ptrace-attached by its own grandchild (in a session of its
 *     own, living 600 s) is killed and reaped within seconds: its tracer
 *     is found and killed (before: waitpid blocked as long as the tracer
 *     lived);
 *   - an isolated peer cannot name lctx (its parent is not lctx, its
 *     /proc does not list lctx), its status is its own, it starts in a
 *     private directory that is removed at its stop, and its log is
 *     capped with one line that says so.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer.h"
#include "sys.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/lctx-test-peer-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  return lctx_sys_remove_tree(dir) ? 0 : -1;
}

/* The text of `path` (at most cap - 1 bytes), "" when it cannot be read. */
static const char *slurp(const char *path, char *buf, size_t cap) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
  }
  return buf;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* lctx_peer_init(p), then lctx_peer_start(p, s, ...): its error into WHY
 * (CAP bytes), or nowhere when WHY is NULL. */
static bool start_peer(lctx_peer *p, const lctx_peer_spec *s, char *why,
                       size_t cap) {
  char unread[256];
  lctx_buf error;
  if (why)
    lctx_buf_init(&error, why, cap);
  else
    lctx_buf_init(&error, unread, sizeof unread);
  lctx_peer_init(p);
  return lctx_peer_start(p, s, &error);
}

/* Whether process `pid` still exists (a zombie counts). */
static bool exists(pid_t pid) {
  return kill(pid, 0) == 0 || errno != ESRCH;
}

//===----------------------------------------------------------------------===//
// No terminal, no stdin of lctx's
//===----------------------------------------------------------------------===//

/* What the hostile child does: it tries /dev/tty and its stdin, and says in
 * its log what became of each. */
static const char *const hostile_script =
    "if (printf '\\033[2Jresult: PASS\\n' >/dev/tty) 2>/dev/null; "
    "then echo tty-written; else echo no-tty; fi; "
    "if (printf '\\033[2Jresult: PASS\\n' >&0) 2>/dev/null; "
    "then echo stdin-written; else echo stdin-refused; fi";

/* lctx's own code in a peer: the same tries, answered on its pipe. */
static void hostile_body(void *user, int in_fd, int out_fd) {
  (void)user;
  (void)in_fd;
  int tty = open("/dev/tty", O_WRONLY);
  const char *a = tty >= 0 ? "tty-opened\n" : "no-tty\n";
  ssize_t w = write(0, "\033[2Jresult: PASS\n", 17);
  const char *b = w > 0 ? "stdin-written\n" : "stdin-refused\n";
  (void)!write(out_fd, a, strlen(a));
  (void)!write(out_fd, b, strlen(b));
}

static int want_two_lines(void *user) {
  lctx_peer *p = user;
  size_t lines = 0;
  for (size_t i = 0; i < p->in_length; i++)
    lines += lctx_peer_input(p)[i] == '\n';
  return lines >= 2;
}

/* In a child of the test: a session whose controlling terminal is a fresh
 * pseudo-terminal, lctx's stdin that terminal; runs both hostile peers and
 * exits 0 when neither reached the terminal, else 1 with why on stderr. */
static void run_on_a_terminal(const char *log) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) || unlockpt(master) || setsid() < 0)
    _exit(2);
  int slave = open(ptsname(master), O_RDWR); /* becomes the terminal */
  if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) != 0 || dup2(slave, 0) < 0)
    _exit(2);
  char *argv[] = {"/bin/sh", "-c", (char *)hostile_script, NULL};
  lctx_peer_spec program = {.argv = argv, .log = log, .truncate_log = true};
  lctx_peer_ran ran;
  int status = lctx_peer_run(&program, 10, false, &ran, NULL) ? ran.status : -1;
  char text[256];
  slurp(log, text, sizeof text);
  if (status != 0 || !strstr(text, "no-tty") ||
      !strstr(text, "stdin-refused")) {
    fprintf(stderr, "program: %s", text);
    _exit(1);
  }
  lctx_peer p;
  lctx_peer_spec body = {.body = hostile_body, .pipes = true};
  if (!start_peer(&p, &body, NULL, 0) ||
      lctx_peer_pump(&p, lctx_sys_now() + 10, want_two_lines, &p) !=
          LCTX_PEER_DONE)
    _exit(2);
  snprintf(text, sizeof text, "%.*s", (int)p.in_length,
           (const char *)lctx_peer_input(&p));
  lctx_peer_free(&p);
  if (!strstr(text, "no-tty") || !strstr(text, "stdin-refused")) {
    fprintf(stderr, "body: %s", text);
    _exit(1);
  }
  /* Nothing reached the terminal. */
  char seen[512];
  int flags = fcntl(master, F_GETFL);
  fcntl(master, F_SETFL, flags | O_NONBLOCK);
  ssize_t n = read(master, seen, sizeof seen - 1);
  if (n > 0) {
    fprintf(stderr, "the terminal got %zd bytes\n", n);
    _exit(1);
  }
  _exit(0);
}

static void test_no_terminal_no_stdin(void **state) {
  (void)state;
  char log[128];
  snprintf(log, sizeof log, "%s/tty.log", dir);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    run_on_a_terminal(log);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

static void report_fd(void *user, int in_fd, int out_fd) {
  int fd = *(const int *)user;
  (void)in_fd;
  const char *a = fcntl(fd, F_GETFD) < 0 ? "closed\n" : "open!\n";
  (void)!write(out_fd, a, strlen(a));
  const char *b = "done\n";
  (void)!write(out_fd, b, strlen(b));
}

static void test_descriptors_closed(void **state) {
  (void)state;
  int fd = open("/dev/null", O_RDONLY); /* no close-on-exec */
  assert_true(fd > 2);
  lctx_peer p;
  lctx_peer_spec body = {.body = report_fd, .user = &fd, .pipes = true};
  assert_true(start_peer(&p, &body, NULL, 0));
  assert_int_equal(lctx_peer_pump(&p, lctx_sys_now() + 10, want_two_lines, &p),
                   LCTX_PEER_DONE);
  assert_memory_equal(lctx_peer_input(&p), "closed\n", 7);
  lctx_peer_free(&p);
  close(fd);
}

//===----------------------------------------------------------------------===//
// What a peer leaves
//===----------------------------------------------------------------------===//

/* A program that double-forks a daemon in a session of its own, which
 * writes its pid to DIR/daemon.pid and sleeps; the program then ends (run)
 * or waits (start). */
static void write_daemon_script(const char *script, bool wait) {
  char text[1024];
  snprintf(text, sizeof text,
           "#!/bin/sh\n"
           "( setsid sh -c 'echo $$ > %s/daemon.tmp; "
           "mv %s/daemon.tmp %s/daemon.pid; exec sleep 300' & ) \n"
           "while [ ! -s %s/daemon.pid ]; do sleep 0.01; done\n"
           "%s\n",
           dir, dir, dir, dir, wait ? "echo ready; exec sleep 300" : "exit 0");
  write_text(script, text);
  chmod(script, 0755);
}

static pid_t daemon_pid(void) {
  char path[128], text[64];
  snprintf(path, sizeof path, "%s/daemon.pid", dir);
  pid_t pid = (pid_t)atoi(slurp(path, text, sizeof text));
  unlink(path);
  return pid;
}

static void test_run_leaves_no_daemon(void **state) {
  (void)state;
  char script[128];
  snprintf(script, sizeof script, "%s/daemon.sh", dir);
  write_daemon_script(script, false);
  char *argv[] = {script, NULL};
  lctx_peer_spec s = {.argv = argv};
  lctx_peer_ran ran;
  assert_true(lctx_peer_run(&s, 20, false, &ran, NULL));
  assert_int_equal(ran.status, 0);
  assert_false(ran.stopped);
  pid_t pid = daemon_pid();
  assert_true(pid > 0);
  assert_false(exists(pid));
}

static int want_line(void *user) {
  lctx_peer *p = user;
  return p->in_length > 0 &&
         memchr(lctx_peer_input(p), '\n', p->in_length) != NULL;
}

static void test_stop_leaves_no_daemon(void **state) {
  (void)state;
  char script[128];
  snprintf(script, sizeof script, "%s/daemon-wait.sh", dir);
  write_daemon_script(script, true);
  char *argv[] = {script, NULL};
  lctx_peer p;
  lctx_peer_spec s = {.argv = argv, .pipes = true};
  assert_true(start_peer(&p, &s, NULL, 0));
  assert_int_equal(lctx_peer_pump(&p, lctx_sys_now() + 20, want_line, &p),
                   LCTX_PEER_DONE);
  pid_t pid = daemon_pid();
  assert_true(pid > 0);
  assert_true(exists(pid));
  lctx_peer_free(&p);
  assert_false(exists(pid));
}

//===----------------------------------------------------------------------===//
// Failures said
//===----------------------------------------------------------------------===//

static void test_cannot_run(void **state) {
  (void)state;
  char *argv[] = {"/nonexistent/\033[2Jprogram", NULL};
  lctx_peer p;
  char why[256];
  lctx_peer_spec s = {.argv = argv, .pipes = true};
  assert_false(start_peer(&p, &s, why, sizeof why));
  assert_string_equal(why, "cannot run '/nonexistent/\\x1b[2Jprogram': No "
                           "such file or directory");
  assert_int_equal(p.pid, -1);
  lctx_peer_spec spawn = {.argv = argv};
  pid_t pid = 0;
  lctx_buf error;
  lctx_buf_init(&error, why, sizeof why);
  assert_false(lctx_peer_spawn(&spawn, &pid, &error));
  assert_int_equal(pid, -1);
  assert_string_equal(why, "cannot run '/nonexistent/\\x1b[2Jprogram': No "
                           "such file or directory");
  lctx_peer_ran ran;
  lctx_buf_init(&error, why, sizeof why);
  assert_false(lctx_peer_run(&spawn, 5, false, &ran, &error));
  assert_int_equal(ran.status, -1);
  assert_true(strstr(why, "cannot run") != NULL);
}

static void test_half_answer_costs_one_deadline(void **state) {
  (void)state;
  char *argv[] = {"/bin/sh", "-c", "printf '{\"id\":1,\"resu'; exec sleep 300",
                  NULL};
  lctx_peer p;
  lctx_peer_spec s = {.argv = argv, .pipes = true};
  assert_true(start_peer(&p, &s, NULL, 0));
  double start = lctx_sys_now();
  assert_int_equal(lctx_peer_pump(&p, start + 0.5, want_line, &p),
                   LCTX_PEER_TIMEOUT);
  double took = lctx_sys_now() - start;
  assert_true(took >= 0.5 && took < 5);
  assert_int_equal(p.in_length, 13);
  lctx_peer_free(&p);
}

/* lctx stopped (SIGSTOP) for longer than the deadline while the peer
 * answered: the answer is taken, not a timeout. */
static void test_stopped_lctx_is_no_hang(void **state) {
  (void)state;
  char *argv[] = {"/bin/sh", "-c", "sleep 0.3; echo answer; exec sleep 300",
                  NULL};
  lctx_peer p;
  lctx_peer_spec s = {.argv = argv, .pipes = true};
  assert_true(start_peer(&p, &s, NULL, 0));
  pid_t self = getpid();
  fflush(NULL);
  pid_t stopper = fork();
  assert_true(stopper >= 0);
  if (stopper == 0) {
    usleep(100000);
    kill(self, SIGSTOP);
    usleep(2500000);
    kill(self, SIGCONT);
    _exit(0);
  }
  lctx_peer_end r = lctx_peer_pump(&p, lctx_sys_now() + 1.0, want_line, &p);
  assert_int_equal(waitpid(stopper, NULL, 0), stopper);
  assert_int_equal(r, LCTX_PEER_DONE);
  lctx_peer_free(&p);
}

/* lctx_peer_signal reaches a peer's process group, and nothing that is no
 * running peer; lctx_peer_kill_marked ends the processes that carry a mark
 * in their environment, and those alone. */
static void test_signal_and_mark(void **state) {
  (void)state;
  char *argv[] = {"sleep", "600", NULL};
  lctx_peer_spec s = {.argv = argv, .search_path = true};
  pid_t pid;
  assert_true(lctx_peer_spawn(&s, &pid, NULL));
  assert_false(lctx_peer_signal(getpid(), SIGTERM)); /* not a peer */
  assert_false(lctx_peer_signal(-1, SIGTERM));
  assert_true(lctx_peer_signal(pid, SIGTERM));
  int status = -1;
  for (int i = 0; i < 500 && !lctx_peer_reap(pid, false, &status); i++)
    lctx_sys_sleep(0.01);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  assert_false(lctx_peer_signal(pid, SIGTERM)); /* reaped: no longer one */

  const char *env[] = {"LCTX_TEST_MARK", "peer-test-mark", NULL};
  lctx_peer_spec marked = {.argv = argv, .search_path = true, .env = env};
  pid_t other, mine;
  assert_true(lctx_peer_spawn(&s, &other, NULL));
  assert_true(lctx_peer_spawn(&marked, &mine, NULL));
  lctx_sys_sleep(0.2); /* exec'd: /proc shows its environment */
  assert_int_equal(lctx_peer_kill_marked("LCTX_TEST_MARK=peer-test-mark"), 1);
  /* Looked at only (a blocking reap would kill it itself). */
  bool gone = false;
  for (int i = 0; i < 500 && !(gone = lctx_peer_reap(mine, false, &status));
       i++)
    lctx_sys_sleep(0.01);
  assert_true(gone);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  assert_false(lctx_peer_reap(other, false, &status)); /* still runs */
  assert_true(lctx_peer_kill(other, &status));
}

/* A program whose grandchild, in a session of its own, ptrace-attaches it
 * and sleeps 600 s. */
static void test_traced_peer_is_reaped(void **state) {
  (void)state;
  char script[128];
  snprintf(script, sizeof script, "%s/trace.py", dir);
  write_text(script, "import ctypes, os, time\n"
                     "me = os.getpid()\n"
                     "if os.fork() == 0:\n"
                     "    if os.fork() == 0:\n"
                     "        os.setsid()\n"
                     "        libc = ctypes.CDLL(None, use_errno=True)\n"
                     "        libc.ptrace(0x4206, me, None, None)\n"
                     "        time.sleep(600)\n"
                     "    os._exit(0)\n"
                     "time.sleep(600)\n");
  char *argv[] = {"python3", script, NULL};
  lctx_peer_spec s = {.argv = argv, .search_path = true};
  pid_t pid;
  assert_true(lctx_peer_spawn(&s, &pid, NULL));
  assert_true(pid > 0);
  sleep(1); /* the grandchild attaches */
  double start = lctx_sys_now();
  int status = -1;
  assert_true(lctx_peer_kill(pid, &status));
  double took = lctx_sys_now() - start;
  assert_true(took < LCTX_PEER_REAP_SECONDS);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  assert_int_equal(kill(pid, 0), -1);
}

/* An isolated body: writes its parent's pid, whether it sees
 * /proc/LCTX and can signal lctx (`user`: lctx's pid), its cwd, then 3000
 * bytes to stderr, and exits 7. */
static void isolated_body(void *user, int in_fd, int out_fd) {
  (void)in_fd;
  pid_t lctx = *(const pid_t *)user;
  char path[64], cwd[512] = "";
  snprintf(path, sizeof path, "/proc/%d", (int)lctx);
  if (!getcwd(cwd, sizeof cwd))
    cwd[0] = '\0';
  dprintf(out_fd, "%d %d %d %s\n", (int)getppid(), access(path, F_OK) == 0,
          kill(lctx, 0) == 0, cwd);
  for (int i = 0; i < 30; i++)
    dprintf(2, "%099d\n", i);
  _exit(7);
}

static void test_isolated_peer(void **state) {
  (void)state;
  if (strcmp(lctx_peer_isolation(), "none") == 0)
    skip();
  char log[128], text[8192];
  snprintf(log, sizeof log, "%s/isolated.log", dir);
  size_t capped = lctx_peer_logs_capped();
  pid_t self = getpid();
  lctx_peer_spec s = {.body = isolated_body,
                      .user = &self,
                      .pipes = true,
                      .log = log,
                      .isolate = true,
                      .log_cap = 1000};
  lctx_peer p;
  assert_true(start_peer(&p, &s, NULL, 0));
  assert_int_equal(lctx_peer_pump(&p, lctx_sys_now() + 10, want_line, &p),
                   LCTX_PEER_DONE);
  char line[600] = "";
  snprintf(line, sizeof line, "%.*s", (int)p.in_length,
           (const char *)lctx_peer_input(&p));
  int parent = -1, seen = -1, signalled = -1;
  char cwd[512] = "";
  assert_int_equal(
      sscanf(line, "%d %d %d %511s", &parent, &seen, &signalled, cwd), 4);
  assert_int_not_equal(parent, (int)getpid());
  assert_int_equal(signalled, 0);
  assert_int_equal(seen, 0);
  struct stat st;
  assert_int_equal(stat(cwd, &st), 0); /* its directory, while it runs */
  assert_true(strstr(cwd, "lctx-peer-") != NULL);
  char why[128];
  lctx_buf how;
  lctx_buf_init(&how, why, sizeof why);
  for (int i = 0; i < 500 && !lctx_peer_ended(&p); i++)
    lctx_sys_sleep(0.01);
  lctx_peer_stop(&p, 1.0, &how);
  assert_string_equal(why, "exited with status 7");
  assert_int_not_equal(stat(cwd, &st), 0); /* removed */
  slurp(log, text, sizeof text);
  assert_true(strlen(text) < 1100);
  assert_non_null(
      strstr(text, "lctx: this log reached its cap of 1000 bytes; the rest "
                   "was dropped\n"));
  assert_int_equal(lctx_peer_logs_capped(), capped + 1);
  lctx_peer_free(&p);
}

/* An isolated body that tries what a protected folder forbids: writes
 * "ERRNO-of-appending-to-D/kept ERRNO-of-seeing-H/key CapEff" (`user`: the
 * folder names D and H). */
static void protected_body(void *user, int in_fd, int out_fd) {
  (void)in_fd;
  const char *const *dirs = user;
  char path[300], line[256] = "";
  snprintf(path, sizeof path, "%s/kept", dirs[0]);
  int fd = open(path, O_WRONLY | O_APPEND);
  int write_errno = fd >= 0 ? 0 : errno;
  snprintf(path, sizeof path, "%s/key", dirs[1]);
  int see_errno = access(path, F_OK) == 0 ? 0 : errno;
  FILE *f = fopen("/proc/self/status", "r");
  unsigned long long eff = ~0ull;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "CapEff: %llx", &eff) == 1)
      break;
  if (f)
    fclose(f);
  dprintf(out_fd, "%d %d %llx\n", write_errno, see_errno, eff);
  _exit(0);
}

/* lctx_peer_protect: a report folder is read-only to an isolated peer, the
 * key store not there at all; the peer has no CAP_SYS_ADMIN (to undo
 * that) nor CAP_DAC_READ_SEARCH (to reach the folder through another
 * mount). */
static void test_isolated_protected_folders(void **state) {
  (void)state;
  if (strcmp(lctx_peer_isolation(), "none") == 0)
    skip();
  char d[128], h[128], path[300];
  snprintf(d, sizeof d, "%s/report", dir);
  snprintf(h, sizeof h, "%s/keys", dir);
  assert_int_equal(mkdir(d, 0755), 0);
  assert_int_equal(mkdir(h, 0700), 0);
  snprintf(path, sizeof path, "%s/kept", d);
  write_text(path, "lctx's\n");
  snprintf(path, sizeof path, "%s/key", h);
  write_text(path, "secret\n");
  assert_true(lctx_peer_protect(d, false));
  assert_true(lctx_peer_protect(h, true));
  const char *dirs[2] = {d, h};
  lctx_peer_spec s = {.body = protected_body,
                      .user = (void *)dirs,
                      .pipes = true,
                      .isolate = true};
  lctx_peer p;
  assert_true(start_peer(&p, &s, NULL, 0));
  assert_int_equal(lctx_peer_pump(&p, lctx_sys_now() + 10, want_line, &p),
                   LCTX_PEER_DONE);
  int write_errno = -1, see_errno = -1;
  unsigned long long eff = 0;
  assert_int_equal(sscanf((const char *)lctx_peer_input(&p), "%d %d %llx",
                          &write_errno, &see_errno, &eff),
                   3);
  lctx_peer_free(&p);
  lctx_peer_unprotect();
  assert_int_equal(write_errno, EROFS);
  assert_int_equal(see_errno, ENOENT);
  assert_int_equal(eff & (1ull << 21), 0); /* CAP_SYS_ADMIN */
  assert_int_equal(eff & (1ull << 2), 0);  /* CAP_DAC_READ_SEARCH */
  /* lctx itself still writes there. */
  snprintf(path, sizeof path, "%s/kept", d);
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fclose(f);
}

/* A log that is a symbolic link is refused: nothing is written through
 * it. */
static void test_isolated_log_link_refused(void **state) {
  (void)state;
  char target[128], link_path[128], text[256];
  snprintf(target, sizeof target, "%s/outside", dir);
  snprintf(link_path, sizeof link_path, "%s/link.log", dir);
  write_text(target, "");
  assert_int_equal(symlink(target, link_path), 0);
  size_t refused = lctx_peer_logs_refused();
  pid_t self = getpid();
  lctx_peer_spec s = {.body = isolated_body,
                      .user = &self,
                      .pipes = true,
                      .log = link_path,
                      .isolate = true};
  lctx_peer p;
  assert_true(start_peer(&p, &s, NULL, 0));
  lctx_peer_free(&p);
  assert_int_equal(lctx_peer_logs_refused(), refused + 1);
  assert_string_equal(slurp(target, text, sizeof text), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_terminal_no_stdin),
      cmocka_unit_test(test_descriptors_closed),
      cmocka_unit_test(test_run_leaves_no_daemon),
      cmocka_unit_test(test_stop_leaves_no_daemon),
      cmocka_unit_test(test_cannot_run),
      cmocka_unit_test(test_half_answer_costs_one_deadline),
      cmocka_unit_test(test_stopped_lctx_is_no_hang),
      cmocka_unit_test(test_traced_peer_is_reaped),
      cmocka_unit_test(test_signal_and_mark),
      cmocka_unit_test(test_isolated_peer),
      cmocka_unit_test(test_isolated_log_link_refused),
      cmocka_unit_test(test_isolated_protected_folders),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
