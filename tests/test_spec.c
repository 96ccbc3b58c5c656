/*
 * test_spec.c - pins the spec table parser (every malformed input named by
 * file, line and column), the loader's size limit and messages, and the
 * check-spec guarantee: a table broken on
 * purpose (a changed message, a deleted row, an overlapping row, a row no
 * case reaches) fails the exhaustive check, naming the rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "domain.h"
#include "oracle.h"
#include "spec.h"
#include "spec_text_fx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_PATH LCTX_SOURCE_DIR "/conformance/spec/backend-selection.lspec"

static char table[1 << 20];
static size_t table_length;

static void load_table(void) {
  FILE *f = fopen(SPEC_PATH, "rb");
  assert_non_null(f);
  table_length = fread(table, 1, sizeof table - 1, f);
  fclose(f);
  table[table_length] = '\0';
}

#define HEAD "spec-version = 1.0.0\n"
#define ROW                                                                    \
  "[AB-001]\nop = canonicalize\nwhen = arg=name\noutcome = string "            \
  "\"{arg}\"\nstrict = exact\nsource = x.py:1\n"

static void test_real_table_parses(void **state) {
  (void)state;
  char error[512];
  load_table();
  assert_true(parse_text(table, error, sizeof error));
  assert_string_equal(spec.version, "1.4.0");
  assert_string_equal(spec.jax_commit, "cec06d116c05");
  /* 1.4.0 placed the modelled commit among the releases, named those after
   * it (0.11.1 to 0.12.1) and marked client-gpu unread there. */
  /* 1.3.0 added MG-020, MG-021, LP-008 and LP-009 (situations of older
   * releases; LP-009 found by the drift matrix on jax 0.7.2 to 0.9.2). */
  assert_int_equal(spec.row_count, 61);
  const lctx_spec_row *lp9 = lctx_spec_find(&spec, "LP-009");
  assert_non_null(lp9);
  assert_int_equal(lp9->was_count, 2);
  /* Found by running jax 0.10.2 (spec 1.2.0): lower_fun's gpu assert and
   * the list IndexError after narrowing. */
  const lctx_spec_row *lp7 = lctx_spec_find(&spec, "LP-007");
  assert_non_null(lp7);
  assert_int_equal(lp7->outcomes[0].error, LCTX_ERROR_ASSERTION);
  const lctx_spec_row *mg4 = lctx_spec_find(&spec, "MG-004");
  assert_non_null(mg4);
  assert_non_null(strstr(mg4->outcomes[0].text, "{seq}"));
  const lctx_spec_row *mg1 = lctx_spec_find(&spec, "MG-001");
  assert_non_null(mg1);
  assert_int_equal(mg1->outcomes[0].kind, LCTX_OUTCOME_RAISE);
  assert_int_equal(mg1->outcomes[0].error, LCTX_ERROR_NOT_IMPLEMENTED);
  assert_true(mg1->exact);
}

static void test_minimal_table_parses(void **state) {
  (void)state;
  char error[512];
  assert_true(parse_text(HEAD ROW, error, sizeof error));
  assert_int_equal(spec.row_count, 1);
  assert_int_equal(spec.rows[0].clause_count, 1);
  assert_int_equal(spec.rows[0].line, 2);
}

static void test_parse_errors(void **state) {
  (void)state;
  expect_error(HEAD ROW "colour = red\n", "t.lspec:8:1: unknown key 'colour'");
  expect_error(HEAD ROW ROW,
               "t.lspec:8:2: duplicate row ID (first at line 2): 'AB-001'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\nwhen = flavour=name\n",
               "t.lspec:4:8: unknown feature 'flavour'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\nwhen = arg=nam\n",
               "t.lspec:4:12: unknown value for feature 'arg': 'nam'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = string "
                    "\"x{platformz}\"\n",
               "t.lspec:4:20: unknown placeholder '{platformz}'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = string \"x{arg\"\n",
               "t.lspec:4:20: unterminated placeholder");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = string \"a}b\"\n",
               "t.lspec:4:20: unmatched '}' in template (write '}}')");
  expect_error(HEAD "[AB-001]\nop = canonicalise\n",
               "t.lspec:3:6: unknown operation 'canonicalise'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = raise "
                    "TypeError \"x\"\n",
               "t.lspec:4:17: unknown error class 'TypeError'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = string \"a\\q\"\n",
               "t.lspec:4:20: unknown escape");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = string \"abc\n",
               "t.lspec:4:18: unterminated string");
  expect_error(HEAD "[AB-1]\n",
               "t.lspec:2:2: bad row ID (expected letters, '-', three "
               "digits): 'AB-1'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = none\nsource = "
                    "x\n",
               "t.lspec:2:1: row 'AB-001' has no 'strict'");
  expect_error(HEAD "[AB-001]\nstrict = loose\n",
               "t.lspec:3:10: strict must be 'exact' or 'class'");
  expect_error(HEAD "[AB-001]\nop = canonicalize\nop = backends\n",
               "t.lspec:4:1: duplicate key 'op'");
  expect_error("colour = red\n",
               "t.lspec:1:1: unknown key before the first row: 'colour'");
  expect_error(ROW, "t.lspec:1:1: missing 'spec-version'");
  expect_error(HEAD, "t.lspec:1:1: the table has no rows");
  expect_error(HEAD "[AB-001]\nop = canonicalize\noutcome = none extra\n",
               "t.lspec:4:16: unexpected text after the value");
}

//===----------------------------------------------------------------------===//
// Breaking the table on purpose
//===----------------------------------------------------------------------===//

typedef struct tally {
  size_t kinds[LCTX_V_INVARIANT + 1];
  char rows[2048];
} tally;

static void note(void *user, const lctx_violation *v) {
  tally *t = user;
  t->kinds[v->kind]++;
  const char *name = v->row[0] ? v->row : v->expected;
  if (!strstr(t->rows, name) &&
      strlen(t->rows) + strlen(name) + 2 < sizeof t->rows) {
    strcat(t->rows, name);
    strcat(t->rows, ";");
  }
}

static lctx_oracle oracle;

static bool visit(void *user, const lctx_case *c) {
  (void)user;
  lctx_oracle_check_case(&oracle, c);
  return true;
}

/* Parses `text`, runs the whole domain (as `release` behaves: NULL, the
 * modelled commit), returns the tally. */
static void run_domain_at(const char *text, const char *release, tally *t) {
  char error[512];
  memset(t, 0, sizeof *t);
  assert_true(parse_text(text, error, sizeof error));
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_spec_select(&spec, release, &e));
  lctx_oracle_init(&oracle, &spec, lctx_engine_reference());
  lctx_oracle_set_release(&oracle, lctx_release_find(release));
  oracle.invariants = false; /* the table is what is tested here */
  oracle.on_violation = note;
  oracle.user = t;
  lctx_domain_enumerate(visit, NULL);
}

static void run_domain(const char *text, tally *t) {
  run_domain_at(text, NULL, t);
}

/* Runs the whole domain over the table with `row` appended. */
static void run_domain_with_row(const char *row, tally *t) {
  load_table();
  size_t cap = table_length + strlen(row) + 2;
  char *text = malloc(cap);
  assert_non_null(text);
  snprintf(text, cap, "%s\n%s", table, row);
  run_domain(text, t);
  free(text);
}

static char edited[1 << 20];

/* Copies the table replacing the first `from` with `to`. */
static const char *replace(const char *from, const char *to) {
  const char *at = strstr(table, from);
  assert_non_null(at);
  size_t head = (size_t)(at - table);
  snprintf(edited, sizeof edited, "%.*s%s%s", (int)head, table, to,
           at + strlen(from));
  return edited;
}

/* Writes `text` to `path`, then comment lines up to `size` bytes in all. */
static void write_padded(const char *path, const char *text, size_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  size_t n = strlen(text);
  assert_true(n + 2 <= size);
  fputs(text, f);
  for (; n < size; n++)
    fputc((n + 1) % 64 == 0 || n + 1 == size ? '\n' : '#', f);
  assert_int_equal(fclose(f), 0);
}

/// lctx_spec_load reads the whole table up to LCTX_SPEC_MAX_BYTES; a larger
/// file, or one that cannot be opened, is refused with a message naming it.
static void test_load(void **state) {
  (void)state;
  static const char path[] = "test_spec_load.lspec";
  static const struct {
    size_t size; ///< 0: the real table as it is; SIZE_MAX: no file
    const char *error;
  } rows[] = {
      {0, ""},
      {LCTX_SPEC_MAX_BYTES, ""},
      {LCTX_SPEC_MAX_BYTES + 1,
       "test_spec_load.lspec: file larger than 1048576 bytes"},
      {SIZE_MAX,
       "test_spec_load.lspec: cannot open: No such file or directory"},
  };
  load_table();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].size == SIZE_MAX)
      remove(path);
    else
      write_padded(path, table, rows[i].size ? rows[i].size : table_length + 2);
    char error[512] = "";
    lctx_buf e;
    lctx_buf_init(&e, error, sizeof error);
    memset(&spec, 0, sizeof spec);
    bool ok = lctx_spec_load(path, &spec, &e);
    assert_string_equal(error, rows[i].error);
    assert_int_equal(ok, rows[i].error[0] == '\0');
    if (ok)
      assert_string_equal(spec.version, "1.4.0");
  }
}

static void test_intact_table_passes_the_domain(void **state) {
  (void)state;
  tally t;
  load_table();
  /* The table passes the whole domain against the model at the oldest
   * release (its absent operations included) and at the modelled commit,
   * the one the changed tables below are judged at. That every release the
   * table names passes, and that every row is reached at one of them, is
   * the same job as lctx check-spec's (ctest lctx_check_spec, which fails on
   * a violation or a row not reached): not repeated here. */
  static const char *const releases[] = {"0.4.20", "modelled"};
  for (size_t r = 0; r < sizeof releases / sizeof releases[0]; r++) {
    run_domain_at(table, releases[r], &t);
    if (oracle.violations != 0)
      fail_msg("%zu violations at %s: %s", oracle.violations, releases[r],
               t.rows);
    assert_true(oracle.ops >= 100000);
  }
}

static void test_changed_message_fails_naming_the_row(void **state) {
  (void)state;
  tally t;
  load_table();
  run_domain(replace("is different from the lowering platform",
                     "differs from the lowering platform"),
             &t);
  assert_true(t.kinds[LCTX_V_OUTCOME] > 0);
  assert_string_equal(t.rows, "MG-006;");
}

static void test_deleted_row_leaves_operations_without_a_row(void **state) {
  (void)state;
  tally t;
  load_table();
  /* Cut the whole row, from its header to the next one. */
  const char *from = strstr(table, "[MG-005]");
  const char *to = strstr(table, "[MG-006]");
  assert_true(from && to && from < to);
  snprintf(edited, sizeof edited, "%.*s%s", (int)(from - table), table, to);
  run_domain(edited, &t);
  assert_null(lctx_spec_find(&spec, "MG-005"));
  assert_true(t.kinds[LCTX_V_NO_ROW] > 0);
  assert_int_equal(t.kinds[LCTX_V_OUTCOME], 0);
  assert_int_equal(t.kinds[LCTX_V_SEVERAL_ROWS], 0);
}

static void test_overlapping_row_is_reported_with_both_ids(void **state) {
  (void)state;
  tally t;
  run_domain_with_row("[MG-099]\nop = module_get_backend\nwhen = count=multi "
                      "optional=true\noutcome = none\nstrict = exact\n"
                      "source = x\n",
                      &t);
  assert_true(t.kinds[LCTX_V_SEVERAL_ROWS] > 0);
  assert_non_null(strstr(t.rows, "MG-002, MG-099"));
}

static void test_unreached_row_is_counted_zero(void **state) {
  (void)state;
  tally t;
  run_domain_with_row("[CP-099]\nop = canonicalize\nwhen = arg=none\n"
                      "outcome = none\nstrict = exact\nsource = x\n",
                      &t);
  assert_int_equal(oracle.violations, 0);
  const lctx_spec_row *row = lctx_spec_find(&spec, "CP-099");
  assert_non_null(row);
  assert_int_equal(oracle.hits[row - spec.rows], 0);
}

/* A row of the table by its index: lctx_spec_row_matches scanned over
 * every row, the way lctx_spec_match must agree with. */
static size_t match_each_row(const lctx_features *f, size_t *rows) {
  size_t n = 0;
  for (size_t i = 0; i < spec.row_count; i++) {
    if ((spec.rows[i].ops >> f->op & 1u) &&
        lctx_spec_row_matches(&spec.rows[i], f) && n < 8)
      rows[n++] = i;
  }
  return n;
}

static void test_match_agrees_with_each_row(void **state) {
  (void)state;
  char error[512];
  load_table();
  assert_true(parse_text(table, error, sizeof error));
  static lctx_features f;
  uint64_t x = 88172645463325252ULL; /* xorshift: the same vectors each run */
  size_t matched = 0;
  for (int k = 0; k < 200000; k++) {
    memset(f.value, 0, sizeof f.value);
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    f.op = (lctx_op_kind)(x % LCTX_OP_KIND_COUNT);
    for (int i = 0; i < LCTX_FEATURE_COUNT; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      /* Mostly na or small values (rows test those), now and then a value
       * beyond every feature's, matched without the index. */
      unsigned r = (unsigned)(x % 64);
      f.value[i] = r < 32   ? 0
                   : r < 62 ? (int)(r % 5)
                            : LCTX_FEATURE_MAX_VALUES + (int)(r % 3);
    }
    size_t want[8], got[8];
    size_t n = match_each_row(&f, want);
    size_t m = lctx_spec_match(&spec, &f, got, 8);
    if (m != n)
      fail_msg("vector %d: %zu rows matched, %zu by each row", k, m, n);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(got[i], want[i]);
    matched += n > 0;
  }
  assert_true(matched > 1000); /* the vectors do reach rows */
}

/* lctx_spec_allows of `o` against `actual`, checked against rendering `o`
 * and comparing (what it answers in place must agree). */
static int allows_as_rendered(const lctx_spec_outcome *o,
                              const lctx_features *f,
                              const lctx_outcome *actual) {
  int in_place =
      lctx_spec_allows(o, f, lctx_spec_features_mask(f), actual, true);
  static lctx_outcome rendered;
  char why[256];
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  int by_render = lctx_spec_render(o, f, &rendered, &wb)
                      ? lctx_outcome_equal(&rendered, actual)
                      : -1;
  assert_int_equal(in_place, by_render);
  return in_place;
}

static void test_client_judged_in_place_as_rendered(void **state) {
  (void)state;
  char error[512];
  assert_true(
      parse_text(HEAD "[XG-001]\nop = get_backend\noutcome = client registry "
                      "{client_reg} \"{client}\"\nstrict = exact\nsource = x\n"
                      "[XG-002]\nop = get_backend\noutcome = client registry 2 "
                      "\"{client}\"\nstrict = exact\nsource = x\n"
                      "[XG-003]\nop = get_backend\noutcome = client registry "
                      "{client} \"{client}\"\nstrict = exact\nsource = x\n"
                      "[XG-004]\nop = get_backend\noutcome = client pinned "
                      "\"{client}\"\nstrict = exact\nsource = x\n",
                 error, sizeof error));
  /* {client_reg} as the classifier leaves it: not rendered yet. */
  static lctx_features f;
  memset(&f, 0, sizeof f);
  f.op = LCTX_OP_XLA_GET_BACKEND;
  f.has[LCTX_P_CLIENT] = true;
  f.text[LCTX_P_CLIENT] = lctx_str_from_cstr("cpu");
  f.has[LCTX_P_CLIENT_REG] = true;
  f.pending = 1u << LCTX_P_CLIENT_REG;
  f.client_reg = 2;
  static lctx_outcome a[6];
  lctx_outcome_set_client(&a[0], LCTX_CLIENT_REGISTRY, 2,
                          lctx_str_from_cstr("cpu"));
  lctx_outcome_set_client(&a[1], LCTX_CLIENT_REGISTRY, 1,
                          lctx_str_from_cstr("cpu"));
  lctx_outcome_set_client(&a[2], LCTX_CLIENT_REGISTRY, 2,
                          lctx_str_from_cstr("cpux"));
  lctx_outcome_set_client(&a[3], LCTX_CLIENT_PINNED, -1,
                          lctx_str_from_cstr("cpu"));
  lctx_outcome_set_none(&a[4]);
  lctx_outcome_set_client(&a[5], LCTX_CLIENT_REGISTRY, 2,
                          lctx_str_from_cstr("cp"));
  static const int want[4][6] = {{1, 0, 0, 0, 0, 0},
                                 {1, 0, 0, 0, 0, 0},
                                 {-1, -1, -1, -1, -1, -1},
                                 {0, 0, 0, 1, 0, 0}};
  for (size_t r = 0; r < 4; r++) {
    for (size_t k = 0; k < 6; k++) {
      if (allows_as_rendered(&spec.rows[r].outcomes[0], &f, &a[k]) !=
          want[r][k])
        fail_msg("%s against actual %zu: not %d", spec.rows[r].id, k,
                 want[r][k]);
    }
  }
  /* Rendered on its first read, then kept: the same text. */
  assert_true(
      lctx_str_equal_cstr(lctx_classify_text(&f, LCTX_P_CLIENT_REG), "2"));
  assert_int_equal(f.pending, 0);
  assert_int_equal(allows_as_rendered(&spec.rows[0].outcomes[0], &f, &a[0]), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_real_table_parses),
      cmocka_unit_test(test_minimal_table_parses),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_load),
      cmocka_unit_test(test_intact_table_passes_the_domain),
      cmocka_unit_test(test_changed_message_fails_naming_the_row),
      cmocka_unit_test(test_deleted_row_leaves_operations_without_a_row),
      cmocka_unit_test(test_overlapping_row_is_reported_with_both_ids),
      cmocka_unit_test(test_unreached_row_is_counted_zero),
      cmocka_unit_test(test_match_agrees_with_each_row),
      cmocka_unit_test(test_client_judged_in_place_as_rendered),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
