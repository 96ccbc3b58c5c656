/*
 * lint_python.c - `lctx lint` of Python files (see lint_python.h): which
 * paths go to the Python linter, and one run of it through peer.h.
 */
#include "lint_python.h"

#include "dirlist.h"
#include "file.h"
#include "peer.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Whether `name` ends in `suffix`. */
static bool ends_with(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && strcmp(name + n - k, suffix) == 0;
}

/* lctx_sys_each_entry's visitor: counts the .py files under a folder. */
static void count_py(void *user, const char *path) {
  size_t *found = user;
  if (*found)
    return;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "__pycache__") == 0)
    return;
  if (lctx_sys_is_dir(path))
    lctx_sys_each_entry(path, count_py, user);
  else if (ends_with(path, ".py") && lctx_sys_is_file(path))
    (*found)++;
}

bool lctx_lint_python_path(const char *path) {
  if (!lctx_sys_is_dir(path))
    return ends_with(path, ".py");
  size_t rules = 0;
  char message[512];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  char **listed = lctx_dirlist_read(path, ".rule", &rules, &e);
  lctx_dirlist_free(listed);
  if (rules > 0)
    return false;
  size_t found = 0;
  lctx_sys_each_entry(path, count_py, &found);
  return found > 0;
}

/* Reads `path` whole into `*text` (an empty text when it is missing);
 * returns whether it was there. */
static bool read_back(const char *path, char **text) {
  size_t length;
  *text = NULL;
  if (lctx_sys_is_file(path) &&
      lctx_file_read(path, LCTX_LINT_PYTHON_TEXT_MAX, text, &length, NULL))
    return true;
  free(*text);
  *text = calloc(1, 1);
  return false;
}

/* Fills `r` from how the child ended and what it left in `dir`. */
static bool collect(const char *dir, const lctx_peer_ran *ran,
                    lctx_lint_python_result *r, lctx_buf *error) {
  char out[4200], log[4200];
  snprintf(out, sizeof out, "%s/findings.txt", dir);
  snprintf(log, sizeof log, "%s/stderr.log", dir);
  r->wrote_findings = read_back(out, &r->findings);
  (void)read_back(log, &r->errors);
  if (!r->findings || !r->errors) {
    lctx_lint_python_free(r);
    lctx_buf_append_cstr(error, "out of memory");
    return false;
  }
  lctx_buf how;
  lctx_buf_init(&how, r->how, sizeof r->how);
  r->exit_code = -1;
  if (ran->stopped)
    snprintf(r->how, sizeof r->how, "stopped after %.0f s", ran->seconds);
  else if (ran->status != -1 && WIFEXITED(ran->status))
    r->exit_code = WEXITSTATUS(ran->status);
  if (!ran->stopped)
    lctx_peer_describe(ran->status, &how);
  return true;
}

/* A scratch folder of its own under $TMPDIR (or /tmp), into `dir`. */
static bool scratch(char *dir, size_t cap, lctx_buf *error) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, cap, "%s/lctx-lint-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir))
    return true;
  lctx_buf_append_cstr(error, "cannot make a scratch folder under ");
  lctx_buf_append_cstr(error, tmp && *tmp ? tmp : "/tmp");
  return false;
}

bool lctx_lint_python_run(const char *python, const char *adapters,
                          char *const *paths, size_t count,
                          lctx_lint_python_result *r, lctx_buf *error) {
  *r = (lctx_lint_python_result){.exit_code = -1};
  char dir[4096], out[4200], log[4200], pythonpath[8400];
  if (!scratch(dir, sizeof dir, error))
    return false;
  snprintf(out, sizeof out, "%s/findings.txt", dir);
  snprintf(log, sizeof log, "%s/stderr.log", dir);
  const char *old = getenv("PYTHONPATH");
  snprintf(pythonpath, sizeof pythonpath, "%s%s%s", adapters,
           old && *old ? ":" : "", old && *old ? old : "");
  char **argv = calloc(count + 7, sizeof *argv);
  bool ok = argv != NULL;
  if (ok) {
    char *head[] = {(char *)python, "-m", "lctx_jax.lint",
                    "--output",     out,  "--"};
    memcpy(argv, head, sizeof head);
    memcpy(argv + 6, paths, count * sizeof *paths);
    const char *env[] = {"PYTHONPATH", pythonpath, "PYTHONDONTWRITEBYTECODE",
                         "1", NULL};
    lctx_peer_spec child = {.argv = argv,
                            .search_path = strchr(python, '/') == NULL,
                            .log = log,
                            .truncate_log = true,
                            .env = env,
                            .who = "lctx lint"};
    lctx_peer_ran ran;
    ok = lctx_peer_run(&child, LCTX_LINT_PYTHON_TIMEOUT, true, &ran, error) &&
         collect(dir, &ran, r, error);
  } else {
    lctx_buf_append_cstr(error, "out of memory");
  }
  free(argv);
  lctx_sys_remove_tree(dir);
  return ok;
}

void lctx_lint_python_free(lctx_lint_python_result *r) {
  free(r->findings);
  free(r->errors);
  r->findings = r->errors = NULL;
}
