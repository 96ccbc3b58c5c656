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

bool lctx_rerun_absolute(const char *path, char *buf, size_t n) {
  char cwd[PATH_MAX];
  if (path[0] == '/')
    return (size_t)snprintf(buf, n, "%s", path) < n;
  while (path[0] == '.' && path[1] == '/')
    path += 2;
  if (!getcwd(cwd, sizeof cwd))
    return false;
  int w = path[0] && strcmp(path, ".") != 0
              ? snprintf(buf, n, "%s/%s", cwd, path)
              : snprintf(buf, n, "%s", cwd);
  return w >= 0 && (size_t)w < n;
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

/* Appends `text` to `buf` as one shell word, after a space when `space`
 * (see lctx_rerun_shell_word). */
static bool append_word(char *buf, size_t n, const char *text, bool space) {
  size_t at = strlen(buf), start = at;
  bool plain = text[0] != 0;
  for (const char *c = text; *c; c++)
    plain = plain && (strchr("_./:=@%+,-", *c) || (*c >= '0' && *c <= '9') ||
                      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'));
  size_t need = (space ? 1 : 0) + (plain ? 0 : 2);
  for (const char *c = text; *c; c++)
    need += *c == '\'' && !plain ? 5 : 1;
  if (at + need + 1 > n)
    return false;
  if (space)
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

bool lctx_rerun_shell_word(char *buf, size_t n, const char *text) {
  return append_word(buf, n, text, true);
}

const char *const lctx_rerun_lctx_env[] = {"LCTX_DATA_DIR", "LCTX_SPEC",
                                           "LCTX_CASES",    "LCTX_ISOLATION",
                                           "LCTX_PYTHON",   NULL};
const char *const lctx_rerun_target_env[] = {
    "LCTX_DIFF_PLUGIN", "LCTX_FUZZ_LOWERING_RECYCLE", NULL};

bool lctx_rerun_setting(char *buf, size_t n, const char *name,
                        const char *value) {
  size_t at = strlen(buf);
  int w = snprintf(buf + at, n > at ? n - at : 0, "%s%s=", at ? " " : "", name);
  if (w < 0 || at + (size_t)w >= n || !append_word(buf, n, value, false)) {
    buf[at < n ? at : 0] = '\0';
    return false;
  }
  return true;
}

bool lctx_rerun_setting_of(char *buf, size_t n, const char *name) {
  const char *value = getenv(name);
  char path[PATH_MAX];
  if (!value || !*value)
    return true;
  /* A relative path (it has a slash) made absolute; a bare name is looked
   * up (PATH, the library path) as lctx looked it up. */
  if (value[0] != '/' && strchr(value, '/') &&
      lctx_rerun_absolute(value, path, sizeof path))
    value = path;
  return lctx_rerun_setting(buf, n, name, value);
}

bool lctx_rerun_begin(char *buf, size_t n, const char *const *names) {
  char cwd[PATH_MAX];
  buf[0] = '\0';
  if (getcwd(cwd, sizeof cwd)) {
    /* "cd DIR &&": relative paths after it hold from any folder. */
    if (!append_word(buf, n, "cd", false) || !append_word(buf, n, cwd, true) ||
        strlen(buf) + 4 > n)
      return false;
    strcat(buf, " &&");
  }
  for (const char *const *name = names; name && *name; name++) {
    if (!lctx_rerun_setting_of(buf, n, *name))
      return false;
  }
  return true;
}

bool lctx_rerun_start(char *buf, size_t n, const char *program,
                      const char *command) {
  return lctx_rerun_begin(buf, n, lctx_rerun_lctx_env) &&
         append_word(buf, n, program, buf[0] != '\0') &&
         lctx_rerun_shell_word(buf, n, command);
}
