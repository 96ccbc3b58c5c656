/*
 * rerun_cmd.c - the program, the report folder and the quoting of rerun lines
 * (see rerun_cmd.h).
 */
#include "rerun_cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* argv[0] made absolute by lctx_rerun_note_argv0 ("" when unknown). */
static char noted[PATH_MAX];

/* Whether `path` is an executable regular file. */
static bool runnable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The first runnable PATH entry holding `name` into `out`; false if none. */
static bool look_up(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len > 0 && len < n &&
        (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, name) < n &&
        out[0] == '/' && runnable(out))
      return true;
    p += len + (colon != NULL);
  }
  return false;
}

void lctx_rerun_note_argv0(const char *argv0) {
  char cwd[PATH_MAX];
  noted[0] = '\0';
  if (!argv0 || !argv0[0])
    return;
  if (argv0[0] == '/') {
    if (strlen(argv0) < sizeof noted)
      strcpy(noted, argv0);
  } else if (strchr(argv0, '/')) {
    if (getcwd(cwd, sizeof cwd) &&
        (size_t)snprintf(noted, sizeof noted, "%s/%s", cwd, argv0) >=
            sizeof noted)
      noted[0] = '\0';
  } else if (!look_up(argv0, noted, sizeof noted)) {
    noted[0] = '\0';
  }
}

bool lctx_rerun_program(char *buf, size_t n) {
  char exe[PATH_MAX];
  ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const char *use = "lctx";
  if (got > 0) {
    exe[got] = '\0';
    /* A program replaced since it started reads "PATH (deleted)". */
    if (runnable(exe))
      use = exe;
  }
  if (use != exe && noted[0] && runnable(noted))
    use = noted;
  if ((size_t)snprintf(buf, n, "%s", use) < n)
    return true;
  snprintf(buf, n, "lctx");
  return false;
}

bool lctx_rerun_dir(const char *report_dir, char *buf, size_t n) {
  size_t len = strlen(report_dir);
  while (len > 1 && report_dir[len - 1] == '/')
    len--;
  size_t base = len;
  while (base > 0 && report_dir[base - 1] != '/')
    base--;
  bool again = len - base == 5 && strncmp(report_dir + base, "rerun", 5) == 0;
  int w = again ? snprintf(buf, n, "%.*s", (int)len, report_dir)
                : snprintf(buf, n, "%s/rerun", report_dir);
  return w >= 0 && (size_t)w < n;
}

bool lctx_rerun_shell_word(char *buf, size_t n, const char *text) {
  size_t at = strlen(buf), start = at;
  bool plain = text[0] != 0;
  for (const char *c = text; *c; c++)
    plain = plain && (strchr("_./:=@%+,-", *c) || (*c >= '0' && *c <= '9') ||
                      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'));
  size_t need = 1 + (plain ? 0 : 2);
  for (const char *c = text; *c; c++)
    need += *c == '\'' && !plain ? 5 : 1;
  if (at + need + 1 > n)
    return false;
  buf[at++] = ' ';
  if (!plain)
    buf[at++] = '\'';
  for (const char *c = text; *c; c++) {
    if (*c == '\'' && !plain) {
      /* '"'"' rather than '\'': no backslash, which the text reports
       * would show doubled (lctx_esc). */
      memcpy(buf + at, "'\"'\"'", 5);
      at += 5;
    } else {
      buf[at++] = *c;
    }
  }
  if (!plain)
    buf[at++] = '\'';
  buf[at] = 0;
  return at > start;
}

bool lctx_rerun_start(char *buf, size_t n, const char *program,
                      const char *command) {
  buf[0] = '\0';
  if (!lctx_rerun_shell_word(buf, n, program))
    return false;
  memmove(buf, buf + 1, strlen(buf)); /* " PROGRAM": no leading space */
  return lctx_rerun_shell_word(buf, n, command);
}
