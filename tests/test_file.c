/*
 * tests/test_file.c - pins the reading rule of every input file
 * (harness/core/base/file.h) and the folder-listing rule
 * (harness/process/dirlist.h): a regular file is read whole; a FIFO (with no
 * writer: it must not hang), a folder, a device and a socket are refused at
 * once with `PATH: not a regular file (a fifo|a folder|a device|a
 * socket)`; a missing file, a file over the limit (LCTX_CASE_FILE_MAX for
 * case files) and a symlink to a file; a folder is listed sorted, by
 * suffix, regular files and symlinks to them only, and a folder that is
 * missing, not a folder, or holds more than LCTX_MAX_FOLDER_FILES such
 * files fails with a message naming it, never cut short.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dirlist.h"
#include "file.h"

static char g_dir[256];

/* A fresh temporary folder per test, removed with everything in it. */
static int make_dir(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/lctx_test_file_XXXXXX");
  return mkdtemp(g_dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  char command[512];
  snprintf(command, sizeof command, "rm -rf '%s'", g_dir);
  return system(command) == 0 ? 0 : -1;
}

/* g_dir/NAME into OUT. */
static const char *in_dir(const char *name, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s", g_dir, name);
  return out;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* lctx_file_read of PATH fails with exactly "PATH" + SUFFIX. */
static void refused(const char *path, size_t max, const char *suffix) {
  char storage[1024], want[1024];
  lctx_buf e;
  lctx_buf_init(&e, storage, sizeof storage);
  char *text = (char *)"sentinel";
  size_t n = 7;
  assert_false(lctx_file_read(path, max, &text, &n, &e));
  assert_null(text);
  assert_int_equal(n, 0);
  snprintf(want, sizeof want, "%s%s", path, suffix);
  assert_string_equal(storage, want);
}

static void test_file_regular_read_whole(void **state) {
  (void)state;
  char path[512], link_path[512];
  write_text(in_dir("a.case", path, sizeof path), "lctx-case 1\n");
  char *text;
  size_t n;
  assert_true(lctx_file_read(path, 100, &text, &n, NULL));
  assert_int_equal(n, 12);
  assert_string_equal(text, "lctx-case 1\n");
  free(text);
  /* a symlink to a regular file is read */
  assert_int_equal(symlink(path, in_dir("l.case", link_path, sizeof link_path)),
                   0);
  assert_true(lctx_file_read(link_path, 100, &text, &n, NULL));
  assert_int_equal(n, 12);
  free(text);
  /* exactly at the limit is fine; one byte more is not */
  assert_true(lctx_file_read(path, 12, &text, &n, NULL));
  free(text);
  refused(path, 11, ": file larger than 11 bytes");
}

static void test_file_case_limit_is_one_mib(void **state) {
  (void)state;
  assert_int_equal(LCTX_CASE_FILE_MAX, 1048576);
  char path[512];
  in_dir("big.case", path, sizeof path);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  for (size_t i = 0; i <= LCTX_CASE_FILE_MAX; i++)
    fputc('#', f);
  fclose(f);
  refused(path, LCTX_CASE_FILE_MAX, ": file larger than 1048576 bytes");
}

/* A FIFO without a writer: refused at once (an alarm fails the test if
 * the read blocks). */
static void test_file_fifo_refused_without_blocking(void **state) {
  (void)state;
  char path[512];
  assert_int_equal(mkfifo(in_dir("f.case", path, sizeof path), 0600), 0);
  alarm(10);
  refused(path, 100, ": not a regular file (a fifo)");
  alarm(0);
}

static void test_file_folder_device_socket_missing(void **state) {
  (void)state;
  char path[512];
  refused(g_dir, 100, ": not a regular file (a folder)");
  refused("/dev/null", 100, ": not a regular file (a device)");
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  assert_true(s >= 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  in_dir("s.case", a.sun_path, sizeof a.sun_path);
  assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
  refused(a.sun_path, 100, ": not a regular file (a socket)");
  close(s);
  refused(in_dir("missing.case", path, sizeof path), 100,
          ": cannot open: No such file or directory");
}

/* The listing: sorted, by suffix, regular files and symlinks to them. */
static void test_dirlist_sorted_regular_files_only(void **state) {
  (void)state;
  char path[512], target[512];
  write_text(in_dir("b.case", path, sizeof path), "");
  write_text(in_dir("a.case", path, sizeof path), "");
  write_text(in_dir("c.rule", path, sizeof path), "");
  write_text(in_dir(".case", path, sizeof path), ""); /* only the suffix */
  assert_int_equal(symlink(in_dir("b.case", target, sizeof target),
                           in_dir("l.case", path, sizeof path)),
                   0);
  assert_int_equal(mkdir(in_dir("sub.case", path, sizeof path), 0700), 0);
  assert_int_equal(mkfifo(in_dir("f.case", path, sizeof path), 0600), 0);
  assert_int_equal(symlink("/dev/null", in_dir("dev.case", path, sizeof path)),
                   0);
  assert_int_equal(
      symlink("missing", in_dir("dangling.case", path, sizeof path)), 0);
  size_t count = 99;
  char message[256] = "";
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  char **paths = lctx_dirlist_read(g_dir, ".case", &count, &e);
  assert_non_null(paths);
  assert_int_equal(count, 3);
  assert_string_equal(paths[0], in_dir("a.case", path, sizeof path));
  assert_string_equal(paths[1], in_dir("b.case", path, sizeof path));
  assert_string_equal(paths[2], in_dir("l.case", path, sizeof path));
  assert_null(paths[3]);
  assert_string_equal(message, "");
  lctx_dirlist_free(paths);
  lctx_dirlist_free(NULL);
}

/* LISTING of DIR fails with exactly "DIR" + SUFFIX. */
static void dirlist_fails(const char *dir, const char *suffix) {
  char message[512], want[512];
  lctx_buf e;
  lctx_buf_init(&e, message, sizeof message);
  size_t count = 99;
  assert_null(lctx_dirlist_read(dir, ".case", &count, &e));
  assert_int_equal(count, 0);
  snprintf(want, sizeof want, "%s%s", dir, suffix);
  assert_string_equal(message, want);
}

static void test_dirlist_bad_folders(void **state) {
  (void)state;
  char path[512];
  dirlist_fails(in_dir("missing", path, sizeof path),
                ": cannot read folder: No such file or directory");
  write_text(in_dir("file", path, sizeof path), "");
  dirlist_fails(path, ": not a folder");
  assert_int_equal(mkdir(in_dir("closed", path, sizeof path), 0), 0);
  if (geteuid() != 0) /* root reads any folder */
    dirlist_fails(path, ": cannot read folder: Permission denied");
}

/* LCTX_MAX_FOLDER_FILES files are listed; one more fails, never cut. */
static void test_dirlist_count_limit(void **state) {
  (void)state;
  assert_int_equal(LCTX_MAX_FOLDER_FILES, 100000);
  char path[512];
  for (int i = 0; i < LCTX_MAX_FOLDER_FILES; i++) {
    char name[32];
    snprintf(name, sizeof name, "%06d.case", i);
    int fd = open(in_dir(name, path, sizeof path), O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
  }
  write_text(in_dir("other.rule", path, sizeof path), "");
  size_t count = 0;
  char **paths = lctx_dirlist_read(g_dir, ".case", &count, NULL);
  assert_non_null(paths);
  assert_int_equal(count, LCTX_MAX_FOLDER_FILES);
  lctx_dirlist_free(paths);
  write_text(in_dir("zzz.case", path, sizeof path), "");
  dirlist_fails(g_dir, ": more than 100000 *.case files");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_file_regular_read_whole, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_file_case_limit_is_one_mib, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_file_fifo_refused_without_blocking,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_file_folder_device_socket_missing,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_dirlist_sorted_regular_files_only,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_dirlist_bad_folders, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_dirlist_count_limit, make_dir,
                                      remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
