/*
 * tests/test_data_dir.c - pins where `lctx` finds its data folder (the spec
 * table and the conformance cases, harness/cli/workspace.h): $LCTX_DATA_DIR
 * first and alone (a wrong one is named, and no other place is tried); the
 * source tree only for a program under the build tree; else `../share/lctx`
 * next to the program; and the message naming every place looked at when
 * none holds the table.
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

#include "workspace.h"

/* The folder of this test program (it lies under the build tree). */
static void own_dir(char *dir, size_t size) {
  ssize_t n = readlink("/proc/self/exe", dir, size - 1);
  assert_true(n > 0);
  dir[n] = '\0';
  *strrchr(dir, '/') = '\0';
}

/* Runs lctx_workspace_find_data; its message goes to `message`. */
static bool find(const char *source, const char *binary, char *dir,
                 char *message) {
  FILE *err = tmpfile();
  assert_non_null(err);
  bool ok = lctx_workspace_find_data(source, binary, dir, PATH_MAX, err);
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_dir_source_tree_for_the_build_tree),
      cmocka_unit_test(test_data_dir_source_tree_not_for_another_program),
      cmocka_unit_test(test_data_dir_env_first_and_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
