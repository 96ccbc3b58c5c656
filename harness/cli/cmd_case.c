/*
 * cmd_case.c - `lctx case export` (see commands.h): any case of a conform
 * run written as a `.case` file with the reference's outcomes as its
 * expectations: a random or domain case regenerated from its index, or any
 * case taken from results.jsonl by the name conform gave it.
 */
#include "commands.h"

#include "bless.h"
#include "case_json.h"
#include "cli.h"
#include "conform.h"
#include "domain.h"
#include "escape.h"
#include "exit.h"
#include "options.h"
#include "shared_rows.h"
#include "workspace.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char EXPORT_USAGE[] =
    "usage: lctx case export [--results FILE] [--seed S] [--out FILE] NAME\n"
    "NAME is a case as conform names it: random:INDEX (of --seed), "
    "domain:INDEX,\n"
    "or, with --results, any \"name\" of that results.jsonl\n";

/* The domain case at an index, copied out of lctx_domain_enumerate. */
typedef struct domain_pick {
  size_t want, seen;
  lctx_case *into;
  bool found;
} domain_pick;

static bool pick_visit(void *user, const lctx_case *c) {
  domain_pick *p = user;
  if (p->seen++ < p->want)
    return true;
  memcpy(p->into, c, sizeof *c);
  p->found = true;
  return false;
}

/* Reads the case called `name` from results.jsonl at `path` into `c`. */
static bool from_results(const char *path, const char *name, lctx_case *c,
                         lctx_case_expect *expect, FILE *err) {
  lctx_escaped b1, b2;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(err, "lctx case export: %s: cannot open\n", lctx_esc(&b1, path));
    return false;
  }
  char *line = NULL;
  size_t cap = 0;
  bool found = false, ok = false;
  for (size_t number = 1; !found && getline(&line, &cap, f) > 0; number++) {
    json_t *j = json_loads(line, 0, NULL);
    const char *n = json_string_value(json_object_get(j, "name"));
    if (n && strcmp(n, name) == 0) {
      found = true;
      char e[1024];
      lctx_buf eb;
      lctx_buf_init(&eb, e, sizeof e);
      ok = lctx_case_from_json(json_object_get(j, "case"), c, expect, &eb);
      if (!ok)
        fprintf(err, "lctx case export: %s:%zu: case: %s\n",
                lctx_esc(&b1, path), number, lctx_esc(&b2, e));
    }
    json_decref(j);
  }
  free(line);
  fclose(f);
  if (!found)
    fprintf(err, "lctx case export: %s: no case named '%s'\n",
            lctx_esc(&b1, path), lctx_esc(&b2, name));
  return ok;
}

/* Fills ws->c with the case NAME; false (said on err) when there is none. */
static bool find_case(lctx_workspace *ws, const char *results,
                      unsigned long long seed, const char *name, FILE *err) {
  if (results)
    return from_results(results, name, &ws->c, &ws->expect, err);
  lctx_report_only only;
  char why[512];
  lctx_escaped b;
  if (!lctx_report_parse_only(name, &only, why, sizeof why) ||
      only.kind == LCTX_REPORT_ONLY_FILE) {
    fprintf(err,
            "lctx case export: '%s' is not random:INDEX or domain:INDEX "
            "(other names need --results FILE)\n",
            lctx_esc(&b, name));
    return false;
  }
  lctx_case_init(&ws->c);
  if (only.kind == LCTX_REPORT_ONLY_RANDOM) {
    uint64_t state = seed;
    for (size_t i = 0; i <= only.index; i++)
      lctx_domain_random_case_reuse(&state, &ws->c);
    return true;
  }
  domain_pick p = {only.index, 0, &ws->c, false};
  lctx_domain_enumerate(pick_visit, &p);
  if (!p.found)
    fprintf(err, "lctx case export: %s: the domain has %zu cases\n",
            lctx_esc(&b, name), p.seen);
  return p.found;
}

/* Opens where the case goes: `path` itself when it exists and is not a
 * regular file (a device, a FIFO: *tmp stays empty), else a new temporary
 * file beside it, named in `tmp`, with the mode `path` has or a new file
 * gets. NULL (errno set) when it cannot be opened. */
static FILE *open_target(const char *path, char *tmp, size_t cap) {
  struct stat st;
  tmp[0] = '\0';
  bool exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return fopen(path, "w");
  if ((size_t)snprintf(tmp, cap, "%s.tmpXXXXXX", path) >= cap) {
    tmp[0] = '\0';
    errno = ENAMETOOLONG;
    return NULL;
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    tmp[0] = '\0';
    return NULL;
  }
  mode_t mask = umask(0);
  umask(mask);
  FILE *f = fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) == 0
                ? fdopen(fd, "w")
                : NULL;
  if (!f) {
    int e = errno;
    close(fd);
    unlink(tmp);
    tmp[0] = '\0';
    errno = e;
  }
  return f;
}

/* Writes the blessed case to `path` (NULL: out): whole or not at all, so
 * that a failure (a full disk, a file size limit) leaves no cut file; an
 * existing file is replaced only by a whole one. */
static bool write_case(const lctx_case *c, const lctx_case_expect *expect,
                       const char *name, const char *path, FILE *out,
                       FILE *err) {
  char *text = malloc(LCTX_CASE_TEXT_MAX);
  char tmp[4200];
  if (!text)
    return false;
  lctx_buf tb;
  lctx_buf_init(&tb, text, LCTX_CASE_TEXT_MAX);
  lctx_case_print(c, expect, &tb);
  FILE *f = path ? open_target(path, tmp, sizeof tmp) : out;
  bool ok = f != NULL;
  int e = ok ? 0 : errno;
  if (ok && (fprintf(f,
                     "# %s, exported by lctx case export; the "
                     "expectations are the reference's outcomes\n%s",
                     name, text) < 0 ||
             fflush(f) != 0 || ferror(f))) {
    ok = false;
    e = errno;
  }
  if (path && f && fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (ok && path && tmp[0] && rename(tmp, path) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok && path && tmp[0])
    unlink(tmp);
  lctx_escaped b;
  if (!ok)
    fprintf(err, "lctx case export: %s: cannot write: %s\n",
            lctx_esc(&b, path ? path : "<stdout>"), strerror(e ? e : EIO));
  free(text);
  return ok;
}

static int case_export(int argc, char **argv, FILE *out, FILE *err) {
  const char *results = NULL, *to = NULL, *spec_path;
  unsigned long long seed = 1;
  const lctx_option table[] = {
      lctx_options_string("results", &results, "FILE",
                          "a conform run's results.jsonl to take NAME from"),
      lctx_row_seed(&seed, "seed of a random:INDEX case (default 1)"),
      lctx_options_string("out", &to, "FILE", "where (default: stdout)"),
      lctx_workspace_spec_option(&spec_path),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("case export", EXPORT_USAGE, table, true);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  if (first + 1 != argc) {
    fprintf(err, "lctx case export: name one case\n");
    lctx_options_help(&spec, err);
    return LCTX_EXIT_USAGE;
  }
  lctx_workspace *ws = lctx_workspace_create(err);
  lctx_case_expect *blessed = malloc(sizeof *blessed);
  int code = LCTX_EXIT_USAGE;
  if (ws && blessed && lctx_workspace_load_spec(ws, spec_path, err) &&
      find_case(ws, results, seed, argv[first], err)) {
    code = LCTX_EXIT_VIOLATIONS;
    if (lctx_bless_outcomes(ws, argv[first], blessed, err))
      code = write_case(&ws->c, blessed, argv[first], to, out, err)
                 ? LCTX_EXIT_OK
                 : LCTX_EXIT_USAGE;
  }
  free(blessed);
  lctx_workspace_destroy(ws);
  return code;
}

int lctx_cmd_case(int argc, char **argv, FILE *out, FILE *err) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (strcmp(sub, "export") == 0)
    return case_export(argc - 1, argv + 1, out, err);
  if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
    fprintf(out, "%sexample:\n  %s\n", EXPORT_USAGE, lctx_cli_example("case"));
    return LCTX_EXIT_OK;
  }
  lctx_escaped b;
  if (!sub[0])
    fprintf(err, "lctx case: missing subcommand (export)\n%s", EXPORT_USAGE);
  else
    fprintf(err, "lctx case: unknown subcommand '%s'\n%s", lctx_esc(&b, sub),
            EXPORT_USAGE);
  return LCTX_EXIT_USAGE;
}
