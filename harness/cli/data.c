/*
 * data.c - where the running lctx finds its data and fuzz builds (see
 * data.h).
 */
#include "data.h"

#include "escape.h"
#include "sys.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The paths of this process, resolved once by lctx_data_start. */
static lctx_data_paths resolved;

/* Copies S into OUT (CAP bytes); false, with OUT empty, when it does not
 * fit. */
static bool copy(char *out, size_t cap, const char *s) {
  return lctx_data_join(out, cap, "", s);
}

/* Whether DIR holds the spec table; writes DIR to OUT when it does. */
static bool holds_spec(const char *dir, char *out, size_t size) {
  char spec[PATH_MAX];
  return lctx_data_join(spec, sizeof spec, dir, LCTX_DATA_SPEC) &&
         lctx_sys_is_file(spec) && copy(out, size, dir);
}

/* The folder of the running program, resolved, into DIR; false if unknown
 * (or too long). */
static bool program_dir(char *dir, size_t size) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return false;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return false;
  *slash = '\0';
  return copy(dir, size, exe);
}

/* Whether the folder DIR (a resolved path) is BINARY_DIR or lies under it:
 * DIR or one of its parents is the same folder (device and inode). */
static bool under(const char *dir, const char *binary_dir) {
  struct stat root, st;
  if (!binary_dir || !binary_dir[0] || stat(binary_dir, &root) != 0)
    return false;
  char path[PATH_MAX];
  if (!copy(path, sizeof path, dir))
    return false;
  for (;;) {
    if (stat(path, &st) == 0 && st.st_dev == root.st_dev &&
        st.st_ino == root.st_ino)
      return true;
    char *slash = strrchr(path, '/');
    if (!slash || slash == path)
      return false;
    *slash = '\0';
  }
}

bool lctx_data_find_dir(const char *source_dir, const char *binary_dir,
                        char *dir, size_t size, FILE *err) {
  lctx_escaped e1, e2;
  const char *env = getenv("LCTX_DATA_DIR");
  if (env && *env) {
    if (holds_spec(env, dir, size))
      return true;
    if (err)
      fprintf(err, "lctx: LCTX_DATA_DIR=%s has no %s\n", lctx_esc(&e1, env),
              LCTX_DATA_SPEC);
    copy(dir, size, env);
    return false;
  }
  bool tree = source_dir && source_dir[0];
  char exe_dir[PATH_MAX] = "";
  bool known = program_dir(exe_dir, sizeof exe_dir);
  if (known && tree && under(exe_dir, binary_dir) &&
      holds_spec(source_dir, dir, size))
    return true;
  char share[PATH_MAX] = "";
  if (known && lctx_data_join(share, sizeof share, exe_dir, "../share/lctx") &&
      holds_spec(share, dir, size))
    return true;
  copy(dir, size, share);
  if (!err)
    return false;
  char source[PATH_MAX + 64];
  snprintf(source, sizeof source, "the source tree %s",
           tree ? lctx_esc(&e1, source_dir) : "(none: not a build tree)");
  fprintf(err,
          "lctx: no spec table found: looked for %s in $LCTX_DATA_DIR (not "
          "set), %s (used only by the build tree's lctx) and %s; set "
          "LCTX_DATA_DIR to the folder that holds it, or give --spec\n",
          LCTX_DATA_SPEC, source,
          known ? lctx_esc(&e2, share) : "PROGRAM_DIR/../share/lctx");
  return false;
}

/* One `KEY=PATH` line of the build tree file into its field of T; false
 * when the path does not fit. */
static bool build_tree_line(lctx_build_tree *t, const char *line) {
  static const struct {
    const char *key;
    size_t offset;
  } KEYS[] = {
      {"source=", offsetof(lctx_build_tree, source)},
      {"binary=", offsetof(lctx_build_tree, binary)},
      {"example_plugin=", offsetof(lctx_build_tree, example_plugin)},
      {"mutants_dir=", offsetof(lctx_build_tree, mutants_dir)},
  };
  for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
    size_t n = strlen(KEYS[i].key);
    if (strncmp(line, KEYS[i].key, n) == 0)
      return copy((char *)t + KEYS[i].offset, LCTX_DATA_PATH_MAX, line + n);
  }
  return true;
}

bool lctx_data_read_build_tree(const char *path, lctx_build_tree *t) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char line[LCTX_DATA_PATH_MAX + 64];
  bool ok = true;
  while (ok && fgets(line, sizeof line, f)) {
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n')
      line[--n] = '\0';
    else if (!feof(f))
      ok = false; /* a line longer than any path */
    ok = ok && build_tree_line(t, line);
  }
  fclose(f);
  if (!ok)
    memset(t, 0, sizeof *t);
  return ok;
}

/* DIR/NAME into OUT, or a message naming what does not fit. */
static bool field(char *out, const char *dir, const char *name, FILE *err) {
  if (lctx_data_join(out, LCTX_DATA_PATH_MAX, dir, name))
    return true;
  lctx_escaped b;
  fprintf(err, "lctx: %s/%s: path too long (more than %d bytes)\n",
          lctx_esc(&b, dir), name, LCTX_DATA_PATH_MAX - 1);
  return false;
}

/* The fuzz builds: $LCTX_FUZZ_BUILD, the source tree's, or the
 * installation's libexec/lctx. */
static bool fuzz_builds(lctx_data_paths *d, const char *exe_dir, FILE *err) {
  const char *env = getenv("LCTX_FUZZ_BUILD");
  bool ok;
  if (env && *env) {
    ok =
        field(d->fuzz_build, "", env, err) && field(d->afl_build, "", env, err);
    snprintf(d->fuzz_build_from, sizeof d->fuzz_build_from, "$LCTX_FUZZ_BUILD");
    snprintf(d->afl_build_from, sizeof d->afl_build_from, "$LCTX_FUZZ_BUILD");
  } else if (d->source_tree) {
    ok = field(d->fuzz_build, d->dir, "build/fuzz/fuzzers", err) &&
         field(d->afl_build, d->dir, "build/afl/fuzzers", err);
    snprintf(d->fuzz_build_from, sizeof d->fuzz_build_from,
             "the source tree's build/fuzz/fuzzers");
    snprintf(d->afl_build_from, sizeof d->afl_build_from,
             "the source tree's build/afl/fuzzers");
  } else {
    ok =
        !exe_dir[0] || (field(d->fuzz_build, exe_dir, "../libexec/lctx", err) &&
                        field(d->afl_build, exe_dir, "../libexec/lctx", err));
    snprintf(d->fuzz_build_from, sizeof d->fuzz_build_from,
             "the installation's libexec/lctx");
    snprintf(d->afl_build_from, sizeof d->afl_build_from,
             "the installation's libexec/lctx");
  }
  return ok;
}

/* The paths under the data folder, SPEC and CASES ($LCTX_SPEC and
 * $LCTX_CASES; NULL or "": not set) first. */
static bool data_fields(lctx_data_paths *d, const char *spec, const char *cases,
                        FILE *err) {
  bool ok = spec && *spec ? field(d->spec, "", spec, err)
                          : field(d->spec, d->dir, LCTX_DATA_SPEC, err);
  ok = (cases && *cases ? field(d->cases, "", cases, err)
                        : field(d->cases, d->dir, LCTX_DATA_CASES, err)) &&
       ok;
  ok = field(d->seeds, d->dir, LCTX_DATA_SEEDS, err) && ok;
  ok = field(d->dicts, d->dir, LCTX_DATA_DICTS, err) && ok;
  ok = field(d->regressions, d->dir, LCTX_DATA_REGRESSIONS, err) && ok;
  ok = field(d->mutants_list, d->dir, LCTX_DATA_MUTANTS, err) && ok;
  return ok;
}

bool lctx_data_resolve(lctx_data_paths *d, FILE *err) {
  memset(d, 0, sizeof *d);
  char exe_dir[PATH_MAX] = "", file[PATH_MAX];
  lctx_build_tree *tree = calloc(1, sizeof *tree);
  if (!tree) {
    fprintf(err, "lctx: out of memory\n");
    return false;
  }
  if (program_dir(exe_dir, sizeof exe_dir) &&
      lctx_data_join(file, sizeof file, exe_dir, LCTX_BUILD_TREE_FILE))
    lctx_data_read_build_tree(file, tree);
  /* Both set: the data folder is needed for the fuzz inputs only, and
   * its absence is said when a command needs them. */
  const char *spec = getenv("LCTX_SPEC"), *cases = getenv("LCTX_CASES");
  bool quiet = spec && *spec && cases && *cases;
  bool found = lctx_data_find_dir(tree->source, tree->binary, d->dir,
                                  sizeof d->dir, quiet ? NULL : err);
  d->source_tree =
      found && tree->source[0] && strcmp(d->dir, tree->source) == 0;
  bool ok = data_fields(d, spec, cases, err) && fuzz_builds(d, exe_dir, err);
  if (d->source_tree) {
    ok = copy(d->example_plugin, sizeof d->example_plugin,
              tree->example_plugin) &&
         copy(d->mutants_dir, sizeof d->mutants_dir, tree->mutants_dir) &&
         field(d->work, d->dir, "build", err) && ok;
  } else {
    copy(d->work, sizeof d->work, "lctx-run");
  }
  free(tree);
  return (found || quiet) && ok;
}

void lctx_data_start(FILE *err) {
  if (!lctx_data_resolve(&resolved, err))
    fprintf(err, "lctx: warning: commands that read the spec table or the "
                 "conformance cases without --spec or --cases will fail\n");
  lctx_data_paths_use(&resolved);
}

const lctx_data_paths *lctx_data(void) {
  return lctx_data_paths_current();
}

bool lctx_data_fuzz_build(const lctx_data_paths *d, const char *who,
                          const char *target, const char *engine,
                          const char *option, char *out, size_t cap,
                          FILE *err) {
  bool afl = engine && strcmp(engine, "afl") == 0;
  const char *from = afl ? d->afl_build_from : d->fuzz_build_from;
  lctx_escaped b1, b2;
  if (!lctx_data_fuzz_binary(d, target, afl, out, cap)) {
    fprintf(
        err,
        "lctx %s: no %s build of %s: %s (%s); set LCTX_FUZZ_BUILD to the "
        "folder of the fuzz builds%s%s%s\n",
        who, afl ? "afl" : "libfuzzer", lctx_esc(&b1, target),
        (afl ? d->afl_build : d->fuzz_build)[0] ? "the path is too long"
                                                : "no folder of fuzz builds "
                                                  "is known",
        from[0] ? from : "lctx's own folder is unknown",
        option ? " or give " : "", option ? option : "", option ? " PATH" : "");
    return false;
  }
  if (lctx_sys_is_file(out) && access(out, X_OK) == 0)
    return true;
  const char *preset = afl ? "afl" : "fuzz";
  fprintf(err,
          "lctx %s: no %s build of %s: %s is not an executable file (looked "
          "in %s); build it (cmake --preset %s && cmake --build --preset %s%s),"
          " set LCTX_FUZZ_BUILD to the folder that holds it%s%s%s\n",
          who, afl ? "afl" : "libfuzzer", lctx_esc(&b1, target),
          lctx_esc(&b2, out), from, preset, preset,
          d->source_tree ? ""
                         : "; an install of that build puts it in "
                           "libexec/lctx",
          option ? ", or give " : "", option ? option : "",
          option ? " PATH" : "");
  return false;
}

bool lctx_data_fuzz_inputs(const lctx_data_paths *d, const char *who,
                           const char *target, char *seeds, char *dict,
                           size_t cap, FILE *err) {
  lctx_escaped b1, b2, b3;
  char name[256];
  bool fits = snprintf(name, sizeof name, "%s.dict", target) < (int)sizeof name;
  if (!fits || !lctx_data_join(seeds, cap, d->seeds, target) ||
      (dict && !lctx_data_join(dict, cap, d->dicts, name))) {
    fprintf(err, "lctx %s: the seeds or dictionary path of %s is too long\n",
            who, lctx_esc(&b1, target));
    return false;
  }
  const char *missing = !lctx_sys_is_dir(seeds)           ? "seed corpus"
                        : dict && !lctx_sys_is_file(dict) ? "dictionary"
                                                          : NULL;
  if (!missing)
    return true;
  fprintf(err,
          "lctx %s: no %s of %s: looked for %s in the data folder %s; set "
          "LCTX_DATA_DIR to a folder laid out as the source tree (an "
          "installed lctx: PREFIX/share/lctx)\n",
          who, missing, lctx_esc(&b1, target),
          lctx_esc(&b2, strcmp(missing, "dictionary") == 0 ? dict : seeds),
          d->dir[0] ? lctx_esc(&b3, d->dir) : "(none found)");
  return false;
}
