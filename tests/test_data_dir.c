/*
 * tests/test_data_dir.c - pins where `lctx` finds its data folder (the spec
 * table and the conformance cases, harness/cli/data.h): $LCTX_DATA_DIR
 * first and alone (a wrong one is named, and no other place is tried); the
 * source tree only for a program under the build tree; else `../share/lctx`
 * next to the program; and the message naming every place looked at when
 * none holds the table. Then the data paths resolved from it (the build
 * tree file beside the program, $LCTX_SPEC, $LCTX_FUZZ_BUILD) and that a
 * path that does not fit is refused, never cut.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data.h"

/* The folder of this test program (it lies under the build tree). */
static void own_dir(char *dir, size_t size) {
  ssize_t n = readlink("/proc/self/exe", dir, size - 1);
  assert_true(n > 0);
  dir[n] = '\0';
  *strrchr(dir, '/') = '\0';
}

/* Runs lctx_data_find_dir; its message goes to `message`. */
static bool find(const char *source, const char *binary, char *dir,
                 char *message) {
  FILE *err = tmpfile();
  assert_non_null(err);
  bool ok = lctx_data_find_dir(source, binary, dir, PATH_MAX, err);
  rewind(err);
  size_t n = fread(message, 1, 4095, err);
  message[n] = '\0';
  fclose(err);
  return ok;
}

static void test_data_dir_source_tree_for_the_build_tree(void **state) {
  (void)state;
  unsetenv("LCTX_DATA_DIR");
  char here[PATH_MAX], dir[PATH_MAX], message[4096];
  own_dir(here, sizeof here);
  /* The program's own folder stands for the build tree. */
  assert_true(find(LCTX_SOURCE_DIR, here, dir, message));
  assert_string_equal(dir, LCTX_SOURCE_DIR);
  assert_string_equal(message, "");
}

static void test_data_dir_source_tree_not_for_another_program(void **state) {
  (void)state;
  unsetenv("LCTX_DATA_DIR");
  char dir[PATH_MAX], message[4096], here[PATH_MAX], share[PATH_MAX + 32];
  own_dir(here, sizeof here);
  /* A build tree this program is not under: the source tree is not read,
   * and there is no share/lctx next to the test program. */
  assert_false(find(LCTX_SOURCE_DIR, "/proc/self/fd", dir, message));
  snprintf(share, sizeof share, "%s/../share/lctx", here);
  assert_string_equal(dir, share);
  assert_non_null(strstr(message, "lctx: no spec table found: looked for "
                                  "conformance/spec/backend-selection.lspec"));
  assert_non_null(strstr(message, LCTX_SOURCE_DIR));
  assert_non_null(strstr(message, share));
  assert_non_null(strstr(message, "set LCTX_DATA_DIR"));
}

static void test_data_dir_env_first_and_alone(void **state) {
  (void)state;
  char dir[PATH_MAX], message[4096], here[PATH_MAX];
  own_dir(here, sizeof here);
  /* The source tree, named by LCTX_DATA_DIR, for any program. */
  setenv("LCTX_DATA_DIR", LCTX_SOURCE_DIR, 1);
  assert_true(find("/nonexistent", "/proc/self/fd", dir, message));
  assert_string_equal(dir, LCTX_SOURCE_DIR);
  /* A wrong one is named, and the source tree is not tried after it. */
  setenv("LCTX_DATA_DIR", "/nonexistent/lctx-data", 1);
  assert_false(find(LCTX_SOURCE_DIR, here, dir, message));
  assert_string_equal(dir, "/nonexistent/lctx-data");
  assert_string_equal(message,
                      "lctx: LCTX_DATA_DIR=/nonexistent/lctx-data has no "
                      "conformance/spec/backend-selection.lspec\n");
  unsetenv("LCTX_DATA_DIR");
}

/* The build tree file: its keys, unknown lines ignored, and a path longer
 * than a field refused whole. */
static void test_data_build_tree_file(void **state) {
  (void)state;
  char path[] = "/tmp/lctx-build-tree-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fprintf(f, "source=/src\nbinary=/src/build\nother=x\n"
             "example_plugin=/src/build/p.so\nmutants_dir=/src/build/m\n");
  fclose(f);
  lctx_build_tree *t = calloc(1, sizeof *t);
  assert_non_null(t);
  assert_true(lctx_data_read_build_tree(path, t));
  assert_string_equal(t->source, "/src");
  assert_string_equal(t->binary, "/src/build");
  assert_string_equal(t->example_plugin, "/src/build/p.so");
  assert_string_equal(t->mutants_dir, "/src/build/m");
  f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "binary=/b\nsource=/");
  for (int i = 0; i < LCTX_DATA_PATH_MAX; i++)
    fputc('a', f);
  fputc('\n', f);
  fclose(f);
  assert_false(lctx_data_read_build_tree(path, t));
  assert_string_equal(t->binary, "");
  assert_string_equal(t->source, "");
  assert_false(
      lctx_data_read_build_tree("/nonexistent/lctx-build-tree.txt", t));
  unlink(path);
  free(t);
}

/* Resolves the data paths of this program; its messages go to `message`. */
static bool resolve(lctx_data_paths *d, char *message, size_t size) {
  FILE *err = tmpfile();
  assert_non_null(err);
  bool ok = lctx_data_resolve(d, err);
  rewind(err);
  size_t n = fread(message, 1, size - 1, err);
  message[n] = '\0';
  fclose(err);
  return ok;
}

/* This test program lies in the build tree (its build tree file beside
 * it): the source tree's data and fuzz builds; $LCTX_SPEC and
 * $LCTX_FUZZ_BUILD first; a path too long refused with a message. */
static void test_data_resolve(void **state) {
  (void)state;
  unsetenv("LCTX_DATA_DIR");
  unsetenv("LCTX_SPEC");
  unsetenv("LCTX_CASES");
  unsetenv("LCTX_FUZZ_BUILD");
  lctx_data_paths *d = calloc(1, sizeof *d);
  assert_non_null(d);
  char message[8192], want[PATH_MAX + 64];
  assert_true(resolve(d, message, sizeof message));
  assert_string_equal(message, "");
  assert_true(d->source_tree);
  assert_string_equal(d->dir, LCTX_SOURCE_DIR);
  assert_string_equal(d->spec, LCTX_SOURCE_DIR "/" LCTX_DATA_SPEC);
  assert_string_equal(d->seeds, LCTX_SOURCE_DIR "/corpus/seeds");
  assert_string_equal(d->dicts, LCTX_SOURCE_DIR "/fuzzers/dict");
  assert_string_equal(d->regressions, LCTX_SOURCE_DIR "/corpus/regressions");
  assert_string_equal(d->fuzz_build, LCTX_SOURCE_DIR "/build/fuzz/fuzzers");
  assert_string_equal(d->afl_build, LCTX_SOURCE_DIR "/build/afl/fuzzers");
  assert_string_equal(d->work, LCTX_SOURCE_DIR "/build");
  assert_true(d->example_plugin[0] != '\0');
  setenv("LCTX_SPEC", "/elsewhere/t.lspec", 1);
  setenv("LCTX_FUZZ_BUILD", "/opt/fuzz", 1);
  assert_true(resolve(d, message, sizeof message));
  assert_string_equal(d->spec, "/elsewhere/t.lspec");
  assert_string_equal(d->cases, LCTX_SOURCE_DIR "/conformance/cases");
  assert_string_equal(d->fuzz_build_from, "$LCTX_FUZZ_BUILD");
  assert_true(lctx_data_fuzz_binary(d, "fuzz_spec", true, want, sizeof want));
  assert_string_equal(want, "/opt/fuzz/fuzz_spec_afl");
  assert_false(lctx_data_fuzz_binary(d, "fuzz_spec", false, want, 12));
  assert_string_equal(want, "");
  /* Too long for a field: refused, named, never cut. */
  char *huge = malloc(LCTX_DATA_PATH_MAX + 16);
  assert_non_null(huge);
  memset(huge, 'a', LCTX_DATA_PATH_MAX + 15);
  huge[0] = '/';
  huge[LCTX_DATA_PATH_MAX + 15] = '\0';
  setenv("LCTX_FUZZ_BUILD", huge, 1);
  assert_false(resolve(d, message, sizeof message));
  assert_non_null(strstr(message, "path too long (more than 4095 bytes)"));
  assert_string_equal(d->fuzz_build, "");
  unsetenv("LCTX_FUZZ_BUILD");
  unsetenv("LCTX_SPEC");
  free(huge);
  free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_dir_source_tree_for_the_build_tree),
      cmocka_unit_test(test_data_dir_source_tree_not_for_another_program),
      cmocka_unit_test(test_data_dir_env_first_and_alone),
      cmocka_unit_test(test_data_build_tree_file),
      cmocka_unit_test(test_data_resolve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
