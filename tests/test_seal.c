/*
 * tests/test_seal.c - pins SHA-256 and HMAC-SHA256
 * (harness/core/base/sha256.h) to the FIPS 180-2 examples and the RFC 4231
 * test cases, fed at once and a byte at a time, and the sealed results
 * files of harness/report/seal.h: the key store (a private folder, one
 * 0600 key per run, a missing key said), a file read back whole when
 * sealed, lines after the seal dropped and counted, a changed byte or a
 * seal of another run refused, and the end check that tells a file
 * appended to, changed or replaced from the one written.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seal.h"
#include "sha256.h"

static void hex_of(const uint8_t *d, size_t n, char *out) {
  lctx_sha256_hex(d, n, out);
}

static void check_sha(const void *data, size_t n, const char *want) {
  uint8_t d[LCTX_SHA256_SIZE];
  char hex[LCTX_SHA256_HEX];
  lctx_sha256_of(data, n, d);
  hex_of(d, sizeof d, hex);
  assert_string_equal(hex, want);
  /* A byte at a time gives the same digest. */
  lctx_sha256 c;
  lctx_sha256_init(&c);
  for (size_t i = 0; i < n; i++)
    lctx_sha256_update(&c, (const uint8_t *)data + i, 1);
  lctx_sha256_final(&c, d);
  hex_of(d, sizeof d, hex);
  assert_string_equal(hex, want);
}

static void test_sha256_fips(void **state) {
  (void)state;
  check_sha("", 0,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check_sha("abc", 3,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check_sha(two, strlen(two),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *million = malloc(1000000);
  assert_non_null(million);
  memset(million, 'a', 1000000);
  check_sha(million, 1000000,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(million);
}

static void check_hmac(const uint8_t *key, size_t kn, const void *data,
                       size_t n, const char *want) {
  uint8_t d[LCTX_SHA256_SIZE];
  char hex[LCTX_SHA256_HEX];
  lctx_hmac256 c;
  lctx_hmac256_init(&c, key, kn);
  /* In two parts, peeking between them: a peek does not disturb it. */
  lctx_hmac256_update(&c, data, n / 2);
  lctx_hmac256_peek(&c, d);
  lctx_hmac256_update(&c, (const uint8_t *)data + n / 2, n - n / 2);
  lctx_hmac256_peek(&c, d);
  hex_of(d, sizeof d, hex);
  assert_memory_equal(hex, want, strlen(want)); /* case 5 is cut */
}

static void test_hmac_rfc4231(void **state) {
  (void)state;
  uint8_t k[131], data[50];
  memset(k, 0x0b, 20);
  check_hmac(
      k, 20, "Hi There", 8,
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  check_hmac(
      (const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28,
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  memset(k, 0xaa, 20);
  memset(data, 0xdd, 50);
  check_hmac(
      k, 20, data, 50,
      "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  for (int i = 0; i < 25; i++)
    k[i] = (uint8_t)(i + 1);
  memset(data, 0xcd, 50);
  check_hmac(
      k, 25, data, 50,
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  memset(k, 0x0c, 20);
  check_hmac(k, 20, "Test With Truncation", 20,
             "a3b6167473100ee06e0c796c2955552b");
  memset(k, 0xaa, 131);
  const char *six = "Test Using Larger Than Block-Size Key - Hash Key First";
  check_hmac(
      k, 131, six, strlen(six),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  const char *seven =
      "This is a test using a larger than block-size key and a larger than "
      "block-size data. The key needs to be hashed before being used by the "
      "HMAC algorithm.";
  check_hmac(
      k, 131, seven, strlen(seven),
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

/* A temporary folder (the key store beneath it) for one test. */
static char dir[256];

static int set_up(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/lctx-seal-XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  char store[300];
  snprintf(store, sizeof store, "%s/state", dir);
  return setenv("LCTX_STATE_DIR", store, 1);
}

static int tear_down(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void test_key_store(void **state) {
  (void)state;
  char id[LCTX_SEAL_ID_SIZE], why[512], path[400];
  uint8_t key[LCTX_SEAL_KEY_SIZE], back[LCTX_SEAL_KEY_SIZE];
  assert_true(lctx_seal_new_run(id, key, why, sizeof why));
  assert_true(lctx_seal_is_id(id));
  assert_false(lctx_seal_is_id("../x"));
  assert_false(lctx_seal_load_key(id, back, why, sizeof why));
  assert_non_null(strstr(why, "is not in the key store"));
  assert_true(lctx_seal_store_key(id, key, why, sizeof why));
  assert_true(lctx_seal_load_key(id, back, why, sizeof why));
  assert_memory_equal(key, back, sizeof key);
  struct stat st;
  snprintf(path, sizeof path, "%s/state", dir);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  snprintf(path, sizeof path, "%s/state/%s.key", dir, id);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  /* A key is written once: a second with the same id is refused. */
  assert_false(lctx_seal_store_key(id, key, why, sizeof why));
  lctx_seal_drop_key(id);
  assert_false(lctx_seal_load_key(id, back, why, sizeof why));
}

static size_t lines_seen;
static void count_line(void *ctx, const char *line) {
  (void)ctx;
  (void)line;
  lines_seen++;
}

/// A sealed file written by written(): the run's id and key, the file and
/// its seal, the writer; room for a reason and a count of lines dropped.
typedef struct sealed_file {
  char id[LCTX_SEAL_ID_SIZE], path[300], seal[300], why[512];
  uint8_t key[LCTX_SEAL_KEY_SIZE];
  size_t dropped;
  lctx_seal_writer *w;
} sealed_file;

/* Writes "a\nbb\n" sealed into DIR/r (seal DIR/r.seal) under a new run
 * into `f`. */
static void written(sealed_file *f) {
  char why[256];
  assert_true(lctx_seal_new_run(f->id, f->key, why, sizeof why));
  sprintf(f->path, "%s/r", dir);
  sprintf(f->seal, "%s/r.seal", dir);
  f->w = lctx_seal_create(f->path, f->seal, f->id, f->key);
  assert_non_null(f->w);
  assert_true(lctx_seal_write(f->w, "a\n", 2));
  assert_true(lctx_seal_write(f->w, "bb\n", 3));
  assert_true(lctx_seal_commit(f->w));
}

static lctx_seal_status read_back(const char *path, const char *seal,
                                  const char *id, const uint8_t *key,
                                  size_t *dropped) {
  char why[512];
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  lines_seen = 0;
  lctx_seal_status st = lctx_seal_read(f, seal, id, key, count_line, NULL,
                                       dropped, why, sizeof why);
  fclose(f);
  return st;
}

static void append(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_sealed_file(void **state) {
  (void)state;
  static sealed_file s;
  written(&s);
  assert_true(lctx_seal_check(s.w, s.why, sizeof s.why));
  assert_int_equal(read_back(s.path, s.seal, s.id, s.key, &s.dropped),
                   LCTX_SEAL_OK);
  assert_int_equal(lines_seen, 2);
  assert_int_equal(s.dropped, 0);
  /* Lines after the seal: dropped and counted; the end check names them. */
  append(s.path, "forged\nforged too\n");
  assert_int_equal(read_back(s.path, s.seal, s.id, s.key, &s.dropped),
                   LCTX_SEAL_OK);
  assert_int_equal(lines_seen, 2);
  assert_int_equal(s.dropped, 2);
  assert_false(lctx_seal_check(s.w, s.why, sizeof s.why));
  assert_non_null(strstr(s.why, "altered during the run by another process "
                                "(18 bytes not written by lctx)"));
  /* Another key or run: refused. */
  uint8_t other[LCTX_SEAL_KEY_SIZE];
  memcpy(other, s.key, sizeof other);
  other[0] ^= 1;
  assert_int_equal(read_back(s.path, s.seal, s.id, other, &s.dropped),
                   LCTX_SEAL_ALTERED);
  assert_int_equal(lines_seen, 0);
  assert_int_equal(read_back(s.path, s.seal, "00000000000000000000000000000000",
                             s.key, &s.dropped),
                   LCTX_SEAL_UNVERIFIABLE);
  assert_true(lctx_seal_close(s.w));
}

static void test_changed_or_replaced(void **state) {
  (void)state;
  static sealed_file s;
  written(&s);
  FILE *f = fopen(s.path, "r+");
  assert_non_null(f);
  fputc('z', f); /* "z\nbb\n": the same length, a byte changed */
  fclose(f);
  assert_false(lctx_seal_check(s.w, s.why, sizeof s.why));
  assert_non_null(strstr(s.why, "bytes lctx wrote were changed"));
  assert_int_equal(read_back(s.path, s.seal, s.id, s.key, &s.dropped),
                   LCTX_SEAL_ALTERED);
  /* Cut short: refused, the lines never taken. */
  assert_int_equal(truncate(s.path, 2), 0);
  assert_int_equal(read_back(s.path, s.seal, s.id, s.key, &s.dropped),
                   LCTX_SEAL_ALTERED);
  assert_int_equal(lines_seen, 0);
  /* Replaced by another file at its path. */
  assert_int_equal(unlink(s.path), 0);
  append(s.path, "a\nbb\n");
  assert_false(lctx_seal_check(s.w, s.why, sizeof s.why));
  assert_non_null(strstr(s.why, "replaced by another file"));
  assert_true(lctx_seal_close(s.w));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sha256_fips),
      cmocka_unit_test(test_hmac_rfc4231),
      cmocka_unit_test_setup_teardown(test_key_store, set_up, tear_down),
      cmocka_unit_test_setup_teardown(test_sealed_file, set_up, tear_down),
      cmocka_unit_test_setup_teardown(test_changed_or_replaced, set_up,
                                      tear_down),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
