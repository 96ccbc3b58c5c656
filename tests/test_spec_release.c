/*
 * test_spec_release.c - pins the spec table's releases: the `releases`
 * line, `was` lines and `[fact]` sections (every malformed one named by
 * file, line and column), lctx_spec_select and what a row and the facts are
 * at each release; that the table's modelled facts are the feature
 * extractor's own; classification by a release's facts; the oracle at a
 * release (operations a release lacks skipped, and the model required to
 * agree); and lctx_oracle_drift, which says as which releases a failing
 * operation passes and which commit changed it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "case_text.h"
#include "classify.h"
#include "oracle.h"
#include "spec.h"
#include "spec_text_fx.h"
#include "case_fx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_PATH LCTX_SOURCE_DIR "/conformance/spec/backend-selection.lspec"

#define HEAD "spec-version = 1.0.0\nreleases = 0.4.20 0.5.3 0.10.2\n"
#define ROW                                                                    \
  "[AB-001]\nop = canonicalize\nwhen = arg=name\noutcome = string "            \
  "\"{arg}\"\nstrict = exact\nsource = x.py:1\n"

//===----------------------------------------------------------------------===//
// Parse errors
//===----------------------------------------------------------------------===//

typedef struct bad_table {
  const char *text;
  const char *error;
} bad_table;

/// Malformed `releases` lines, `was` lines and facts, each with its error.
static const bad_table MALFORMED_RELEASES[] = {
    /* the `releases` line itself */
    {"spec-version = 1.0.0\nreleases = 0.5.3 0.4.20\n" ROW,
     "t.lspec:2:18: releases go oldest first, without repeats: after "
     "'0.5.3' comes '0.4.20'"},
    {"spec-version = 1.0.0\nreleases = 0.4.20 0.4.20\n" ROW,
     "t.lspec:2:19: releases go oldest first, without repeats: after "
     "'0.4.20' comes '0.4.20'"},
    {"spec-version = 1.0.0\nreleases = 0.4.x\n" ROW,
     "t.lspec:2:12: bad release (expected numbers joined by '.', or "
     "'modelled'): '0.4.x'"},
    {"spec-version = 1.0.0\nreleases = 0.4.\n" ROW,
     "t.lspec:2:12: bad release (expected numbers joined by '.', or "
     "'modelled'): '0.4.'"},
    {HEAD "releases = 0.11.0\n" ROW, "t.lspec:3:12: duplicate key 'releases'"},
    {"spec-version = 1.0.0\nreleases = 0.4.20 modelled 0.5.3 modelled\n" ROW,
     "t.lspec:2:34: 'modelled' given twice"},
    {"spec-version = 1.0.0\nreleases = modelled\n" ROW,
     "t.lspec:2:20: no release named"},
    /* a was line after the modelled commit */
    {"spec-version = 1.0.0\nreleases = 0.4.20 modelled 0.5.3\n" ROW
     "was = 0.5.3 0123456789ab none\n",
     "t.lspec:9:7: a was line states what held before a release up to the "
     "modelled commit, not after it: '0.5.3'"},
    /* unread: releases and a reason */
    {HEAD "[fact client-gpu]\nvalue = cuda\nunread = 0.9.2 \"x\"\n"
          "source = x\n" ROW,
     "t.lspec:5:10: unknown release (the table names: 0.4.20, 0.5.3, "
     "0.10.2): '0.9.2'"},
    {HEAD "[fact client-gpu]\nvalue = cuda\nunread = 0.5.3 0.5.3 \"x\"\n"
          "source = x\n" ROW,
     "t.lspec:5:16: release named twice: '0.5.3'"},
    {HEAD "[fact client-gpu]\nvalue = cuda\nunread = 0.5.3\n"
          "source = x\n" ROW,
     "t.lspec:5:15: expected the reason, a quoted string"},
    {HEAD "[fact client-gpu]\nvalue = cuda\nunread = \"x\"\n"
          "source = x\n" ROW,
     "t.lspec:5:10: expected 'unread = RELEASE... \"WHY\"'"},
    /* an unknown release */
    {HEAD ROW "was = 0.9.2 0123456789ab none\n",
     "t.lspec:9:7: unknown release (the table names: 0.4.20, 0.5.3, "
     "0.10.2): '0.9.2'"},
    {HEAD ROW "was = modelled 0123456789ab none\n",
     "t.lspec:9:7: unknown release (the table names: 0.4.20, 0.5.3, "
     "0.10.2): 'modelled'"},
    {"spec-version = 1.0.0\n" ROW "was = 0.5.3 0123456789ab none\n",
     "t.lspec:8:7: unknown release (the table names: none; write 'releases "
     "= ...' first): '0.5.3'"},
    /* was lines out of order */
    {HEAD ROW "was = 0.5.3 0123456789ab none\n"
              "was = 0.10.2 0123456789ab string \"x\"\n",
     "t.lspec:10:7: was lines go in descending release order: after 0.5.3 "
     "(line 9) comes '0.10.2'"},
    {HEAD "[fact gpu-alias]\nvalue = cuda\nwas = 0.4.20 0123456789ab "
          "a\nwas = 0.5.3 0123456789ab b\nsource = x\n" ROW,
     "t.lspec:6:7: was lines go in descending release order: after 0.4.20 "
     "(line 5) comes '0.5.3'"},
    {HEAD "[fact gpu-alias]\nvalue = cuda\nwas = 0.5.3 0123456789ab "
          "a\nwas = 0.5.3 0123456789ab b\nsource = x\n" ROW,
     "t.lspec:6:7: a second was line for the same release"},
    /* bad commits */
    {HEAD ROW "was = 0.5.3 0123456789a none\n",
     "t.lspec:9:13: a commit is 12 lower-case hex digits, got "
     "'0123456789a'"},
    {HEAD ROW "was = 0.5.3 0123456789AB none\n",
     "t.lspec:9:13: a commit is 12 lower-case hex digits, got "
     "'0123456789AB'"},
    {HEAD ROW "was = 0.5.3 0123456789xy none\n",
     "t.lspec:9:13: a commit is 12 lower-case hex digits, got "
     "'0123456789xy'"},
    {HEAD ROW "was = 0.5.3\n",
     "t.lspec:9:12: a commit is 12 lower-case hex digits, got ''"},
    /* what follows the commit */
    {HEAD ROW "was = 0.5.3 0123456789ab nothing\n",
     "t.lspec:9:26: unknown outcome kind 'nothing'"},
    {HEAD ROW "was = 0.5.3 0123456789ab absent why\n",
     "t.lspec:9:33: expected a double-quoted string"},
    {HEAD ROW "was = 0.5.3 0123456789ab none\n"
              "was = 0.5.3 ba9876543210 string \"x\"\n",
     "t.lspec:10:26: a second was line for one release adds an outcome: "
     "same commit, and not absent"},
    /* unknown, duplicate and incomplete facts */
    {HEAD "[fact gpu-aliases]\nvalue = cuda\nsource = x\n" ROW,
     "t.lspec:3:7: unknown fact (known: gpu-alias, client-gpu, "
     "known-platforms, register-checks, cuda-skip, module-get-backend, "
     "module-optional, lower-per-platform, compute-type, compute-nesting): "
     "'gpu-aliases'"},
    {HEAD "[fact cuda-skip]\nvalue = yes\nsource = x\n[fact cuda-skip]\n" ROW,
     "t.lspec:6:7: duplicate fact (first at line 3): 'cuda-skip'"},
    {HEAD "[fact cuda-skip]\nvalue = maybe\nsource = x\n" ROW,
     "t.lspec:4:14: this fact is 'yes' or 'no'"},
    {HEAD "[fact cuda-skip]\nsource = x\n" ROW,
     "t.lspec:3:1: fact 'cuda-skip' has no 'value'"},
    {HEAD "[fact gpu-alias]\nvalue = cuda\n" ROW,
     "t.lspec:3:1: fact 'gpu-alias' has no 'source'"},
    {HEAD "[fact gpu-alias]\nvalue = cu\"da\nsource = x\n" ROW,
     "t.lspec:4:9: bad name (letters, digits, '_', '-'): 'cu\"da'"},
    {HEAD "[fact gpu-alias]\nvalue = cuda\nsource = x\nop = x\n" ROW,
     "t.lspec:6:1: unknown key in a fact 'op'"},
    /* `absent` */
    {HEAD ROW "outcome = absent \"gone\"\n",
     "t.lspec:9:11: 'outcome = absent' is a row's only outcome, before its "
     "was lines"},
    {HEAD "[IR-001]\ncheck = ir\nsource = x\nwas = 0.5.3 0123456789ab "
          "none\n" ROW,
     "t.lspec:3:1: IR row 'IR-001' (check = ir) takes no 'was'"},
};

static void test_malformed_releases_are_named_by_position(void **state) {
  (void)state;
  for (size_t i = 0;
       i < sizeof MALFORMED_RELEASES / sizeof MALFORMED_RELEASES[0]; i++)
    expect_error(MALFORMED_RELEASES[i].text, MALFORMED_RELEASES[i].error);
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

static const char TABLE[] =
    HEAD "[fact client-gpu]\n"
         "value = cuda rocm oneapi\n"
         "was = 0.10.2 00b8c5dbf03c cuda rocm\n"
         "was = 0.5.3 0123456789ab\n"
         "source = jaxlib/py_client.h:1\n"
         "\n"
         "[fact register-checks]\n"
         "value = yes\n"
         "was = 0.5.3 2aaa108f06ed no\n"
         "source = x\n"
         "[AB-001]\n"
         "op = canonicalize\n"
         "when = arg=name\n"
         "was = 0.10.2 aaaaaaaaaaaa string \"older {arg}\"\n"
         "outcome = string \"{arg}\"\n"
         "was = 0.10.2 aaaaaaaaaaaa none\n"
         "was = 0.5.3 bbbbbbbbbbbb absent \"not yet\"\n"
         "strict = exact\n"
         "source = x.py:1\n"
         "[AB-002]\n"
         "op = backends\n"
         "when = init=ok\n"
         "outcome = absent \"never\"\n"
         "strict = exact\n"
         "source = x.py:2\n";

static void test_select_gives_each_release_its_outcomes(void **state) {
  (void)state;
  char error[512] = "";
  assert_true(parse_text(TABLE, error, sizeof error));
  assert_int_equal(spec.release_count, 3);
  assert_string_equal(spec.selected_name, "modelled");
  assert_int_equal(spec.selected, 3);
  const lctx_spec_row *row = &spec.rows[0];
  /* Modelled: the current outcome. */
  assert_int_equal(row->outcome_count, 1);
  assert_string_equal(row->outcomes[0].text, "{arg}");
  assert_false(row->absent);
  assert_true(spec.rows[1].absent);
  /* 0.10.2: after the boundary 0.10.2, still the current one. */
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_true(lctx_spec_select(&spec, "0.10.2", &e));
  assert_string_equal(spec.selected_name, "0.10.2");
  assert_int_equal(row->outcome_count, 1);
  assert_string_equal(row->outcomes[0].text, "{arg}");
  /* 0.5.3: before 0.10.2, two outcomes (one was line added to the other). */
  assert_true(lctx_spec_select(&spec, "0.5.3", &e));
  assert_int_equal(row->outcome_count, 2);
  assert_string_equal(row->outcomes[0].text, "older {arg}");
  assert_int_equal(row->outcomes[1].kind, LCTX_OUTCOME_NONE);
  assert_false(row->absent);
  const lctx_spec_was *w = lctx_spec_row_at(&spec, 0, spec.selected);
  assert_non_null(w);
  assert_string_equal(w->commit, "aaaaaaaaaaaa");
  /* 0.4.20: absent. */
  assert_true(lctx_spec_select(&spec, "0.4.20", &e));
  assert_true(row->absent);
  assert_int_equal(row->outcome_count, 0);
  assert_string_equal(lctx_spec_row_at(&spec, 0, spec.selected)->why,
                      "not yet");
  size_t count;
  bool absent;
  lctx_spec_outcomes_at(&spec, 0, 3, &count, &absent);
  assert_int_equal(count, 1);
  assert_false(absent);
  /* And back: modelled again (NULL or the name). */
  assert_true(lctx_spec_select(&spec, NULL, &e));
  assert_int_equal(row->outcome_count, 1);
  assert_string_equal(row->outcomes[0].text, "{arg}");
  assert_true(lctx_spec_select(&spec, "modelled", &e));
  assert_string_equal(error, "");
}

static void test_select_gives_each_release_its_facts(void **state) {
  (void)state;
  char error[512] = "";
  assert_true(parse_text(TABLE, error, sizeof error));
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  const lctx_facts *f = lctx_spec_facts(&spec);
  char text[128];
  lctx_buf tb;
  static const struct {
    const char *release;
    const char *client_gpu;
    const char *checks;
  } want[] = {{"modelled", "cuda rocm oneapi", "yes"},
              {"0.10.2", "cuda rocm oneapi", "yes"},
              {"0.5.3", "cuda rocm", "yes"},
              {"0.4.20", "", "no"}};
  for (size_t i = 0; i < 4; i++) {
    assert_true(lctx_spec_select(&spec, want[i].release, &e));
    lctx_buf_init(&tb, text, sizeof text);
    lctx_classify_fact_format(f, LCTX_FACT_CLIENT_GPU, &tb);
    assert_string_equal(text, want[i].client_gpu);
    lctx_buf_init(&tb, text, sizeof text);
    lctx_classify_fact_format(f, LCTX_FACT_REGISTER_CHECKS, &tb);
    assert_string_equal(text, want[i].checks);
    /* A fact the table does not state is the extractor's own. */
    assert_true(lctx_classify_fact_equal(f, lctx_classify_modelled_facts(),
                                         LCTX_FACT_GPU_ALIAS));
  }
  assert_null(lctx_spec_fact_at(&spec, LCTX_FACT_CLIENT_GPU, 3));
  assert_string_equal(lctx_spec_fact_at(&spec, LCTX_FACT_CLIENT_GPU, 1)->commit,
                      "00b8c5dbf03c");
  assert_string_equal(lctx_spec_fact_at(&spec, LCTX_FACT_CLIENT_GPU, 0)->commit,
                      "0123456789ab");
}

static void test_select_refuses_an_unknown_release(void **state) {
  (void)state;
  char error[512] = "";
  assert_true(parse_text(TABLE, error, sizeof error));
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  assert_false(lctx_spec_select(&spec, "0.9.2", &e));
  assert_string_equal(error, "unknown JAX release '0.9.2' (the table knows: "
                             "0.4.20, 0.5.3, 0.10.2, modelled)");
  /* The selection stays what it was. */
  assert_string_equal(spec.selected_name, "modelled");
  assert_int_equal(lctx_spec_release_index(&spec, "0.5.3"), 1);
  assert_int_equal(lctx_spec_release_index(&spec, "modelled"), 3);
  assert_int_equal(lctx_spec_release_index(&spec, NULL), 3);
  assert_int_equal(lctx_spec_release_index(&spec, "0.5"), -1);
  assert_string_equal(lctx_spec_release_name(&spec, 3), "modelled");
}

//===----------------------------------------------------------------------===//
// The real table
//===----------------------------------------------------------------------===//

static lctx_spec real;

static void load_real(void) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(SPEC_PATH, &real, &e))
    fail_msg("%s", error);
}

static void test_real_table_names_the_releases(void **state) {
  (void)state;
  load_real();
  assert_string_equal(real.version, "1.4.0");
  static const char *const releases[] = {
      "0.4.20", "0.4.30", "0.5.3",  "0.6.2",    "0.7.2",
      "0.8.3",  "0.9.2",  "0.10.2", "0.11.0",   "modelled",
      "0.11.1", "0.11.2", "0.12.0", "0.12.0.1", "0.12.1"};
  assert_int_equal(real.release_count, 14);
  assert_int_equal(real.modelled, 9);
  for (size_t i = 0; i <= 14; i++)
    assert_string_equal(lctx_spec_release_name(&real, i), releases[i]);
  /* At the modelled commit the table states every fact as the extractor
   * knows it itself. */
  for (int f = 0; f < LCTX_FACT_COUNT; f++) {
    assert_true(real.fact[f].stated);
    assert_true(lctx_classify_fact_equal(
        lctx_spec_facts(&real), lctx_classify_modelled_facts(), (lctx_fact)f));
  }
}

/// Parses the case text `text` into `c`; fails with the parser's message.
static void parse_case(const char *text, lctx_case *c) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_case_parse(text, strlen(text), "t.case", c, NULL, &e))
    fail_msg("%s", error);
}

/// Selects `release` of the real table (NULL: the modelled commit); fails
/// with the reason it cannot.
static void select_release(const char *release) {
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_select(&real, release, &e))
    fail_msg("%s", error);
}

/* Classifies operation `index` of the case `text` with the table's facts
 * at `release`. */
static void classify_at(const char *text, const char *release, size_t index,
                        lctx_case *c, lctx_features *f) {
  parse_case(text, c);
  select_release(release);
  lctx_feature_state st;
  lctx_classify_init_at(&st, c, lctx_spec_facts(&real));
  for (size_t i = 0; i <= index; i++)
    lctx_classify_op(&st, i, f);
}

static const char ONEAPI_PINNED[] =
    "lctx-case 1\n"
    "factory \"cpu\" priority=0 loud client\n"
    "factory \"cuda\" priority=400 loud client\n"
    "factory \"oneapi\" priority=300 loud client\n"
    "nvidia_gpu visible\n"
    "op module_get_backend platforms=[\"oneapi\"] backend=\"oneapi\" "
    "optional=false\n";

static void test_facts_change_the_situation(void **state) {
  (void)state;
  load_real();
  static lctx_case c;
  static lctx_features f;
  char text[512];
  lctx_buf b;
  /* A pinned oneapi client reports "gpu" at the modelled commit: it
   * canonicalizes to cuda, the first initialized member. */
  classify_at(ONEAPI_PINNED, "modelled", 0, &c, &f);
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b);
  assert_string_equal(text, "mode=default init=ok gpu=cuda count=one "
                            "optional=false pinned=gpu real=other match=no");
  /* In jaxlib 0.10.2 it reports "oneapi": no alias, no initialization. */
  classify_at(ONEAPI_PINNED, "0.10.2", 0, &c, &f);
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b);
  assert_string_equal(text, "mode=default init=none count=one "
                            "optional=false pinned=plain real=same match=yes");
  /* Before 0.5.0, the .backend property: the client unchecked. */
  classify_at(ONEAPI_PINNED, "0.4.30", 0, &c, &f);
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b);
  assert_string_equal(text, "mode=default init=none count=one "
                            "optional=false pinned=plain access=property");
  /* optional=True before 0.7.2 does not exist. */
  static const char OPTIONAL[] =
      "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n"
      "op module_get_backend platforms=[\"cpu\"] backend=None optional=true\n";
  classify_at(OPTIONAL, "0.6.2", 0, &c, &f);
  lctx_buf_init(&b, text, sizeof text);
  lctx_classify_format(&f, &b);
  assert_string_equal(text, "mode=default init=none api=no_optional");
  /* gpu in jax_platforms expands to the release's members. */
  static const char PLATFORMS[] = "lctx-case 1\n"
                                  "factory \"cuda\" priority=0 loud client\n"
                                  "factory \"rocm\" priority=0 loud client\n"
                                  "jax_platforms \"gpu\"\n"
                                  "nvidia_gpu visible\n"
                                  "op backends\n";
  classify_at(PLATFORMS, "modelled", 0, &c, &f);
  assert_int_equal(f.value[LCTX_F_INIT], 4); /* loud: no oneapi factory */
  classify_at(PLATFORMS, "0.9.2", 0, &c, &f);
  assert_int_equal(f.value[LCTX_F_INIT], 3); /* ok: cuda and rocm */
}

//===----------------------------------------------------------------------===//
// The oracle at a release, and drift
//===----------------------------------------------------------------------===//

static lctx_oracle oracle;

typedef struct tally {
  size_t count;
  char rows[256];
  char expected[512];
} tally;

static void note(void *user, const lctx_violation *v) {
  tally *t = user;
  if (t->count++ == 0) {
    snprintf(t->rows, sizeof t->rows, "%s", v->row);
    snprintf(t->expected, sizeof t->expected, "%s", v->expected);
  }
}

/* Judges case `text` by the real table (edited: `from` replaced by `to`
 * when given) as `release` behaves, against the model at that release. */
static void judge_at(const char *text, const char *release, const char *from,
                     const char *to, tally *t) {
  static char table[1 << 20], edited[1 << 20];
  FILE *fp = fopen(SPEC_PATH, "rb");
  assert_non_null(fp);
  size_t n = fread(table, 1, sizeof table - 1, fp);
  fclose(fp);
  table[n] = '\0';
  snprintf(edited, sizeof edited, "%s", table);
  if (from) {
    const char *at = strstr(table, from);
    assert_non_null(at);
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - table), table, to,
             at + strlen(from));
  }
  char error[512] = "";
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_parse(edited, strlen(edited), "t.lspec", &real, &e) ||
      !lctx_spec_select(&real, release, &e))
    fail_msg("%s", error);
  static lctx_case c;
  if (!lctx_case_parse(text, strlen(text), "t.case", &c, NULL, &e))
    fail_msg("%s", error);
  memset(t, 0, sizeof *t);
  lctx_oracle_init(&oracle, &real, lctx_engine_reference());
  lctx_oracle_set_release(&oracle, lctx_release_find(release));
  oracle.on_violation = note;
  oracle.user = t;
  lctx_oracle_check_case(&oracle, &c);
}

static void test_oracle_skips_what_a_release_lacks(void **state) {
  (void)state;
  static const char OPTIONAL[] =
      "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n"
      "op module_get_backend platforms=[\"cpu\", \"tpu\"] backend=None "
      "optional=true\n";
  tally t;
  judge_at(OPTIONAL, "0.6.2", NULL, NULL, &t);
  assert_int_equal(t.count, 0);
  assert_int_equal(oracle.absent, 1);
  judge_at(OPTIONAL, "0.7.2", NULL, NULL, &t);
  assert_int_equal(t.count, 0);
  assert_int_equal(oracle.absent, 0);
  /* A row absent where the model has the operation: a violation under it. */
  judge_at(OPTIONAL, "0.7.2",
           "outcome = none\nstrict = exact\nsource = "
           "jax/_src/interpreters/mlir.py:891-893",
           "outcome = none\nwas = 0.8.3 0123456789ab absent \"no\"\nstrict = "
           "exact\nsource = x",
           &t);
  assert_int_equal(t.count, 1);
  assert_string_equal(t.rows, "MG-002");
  assert_string_equal(t.expected, "no such operation at JAX 0.7.2: no");
}

static void test_drift_names_the_commit(void **state) {
  (void)state;
  load_real();
  static lctx_case c;
  static lctx_features f;
  static lctx_runner runner;
  parse_case(ONEAPI_PINNED, &c);
  /* What jaxlib 0.10.2 gives: the pinned client. */
  lctx_outcome actual;
  lctx_runner_init_at(&runner, &c, lctx_release_find("0.10.2"));
  lctx_runner_op(&runner, &c.ops[0], &actual, NULL);
  assert_int_equal(actual.kind, LCTX_OUTCOME_CLIENT);
  /* Judged with the modelled expectations it fails, and passes as every
   * release up to 0.10.2 behaves (before 0.5.0 the .backend property
   * returns the client unchecked too). */
  select_release(NULL);
  assert_int_equal(
      lctx_oracle_judge(&real, &f, &actual, true, &(size_t){0}, NULL, NULL),
      LCTX_JUDGE_NO_ROW); /* f is not classified yet: nothing matches */
  char why[512] = "";
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  uint32_t mask = lctx_oracle_drift(&real, &c, 0, &actual, true, &f, &wb);
  assert_int_equal(mask, (1u << 8) - 1);
  assert_string_equal(why, "passes as JAX <=0.10.2 behaves: fact "
                           "client-gpu changed in 00b8c5dbf03c (0.11.0)");
  /* As 0.10.2 behaves it passes; the modelled commit's outcome fails
   * there, and passes from 0.11.0. */
  select_release("0.10.2");
  lctx_runner_init_at(&runner, &c, NULL);
  lctx_runner_op(&runner, &c.ops[0], &actual, NULL);
  lctx_buf_init(&wb, why, sizeof why);
  mask = lctx_oracle_drift(&real, &c, 0, &actual, true, &f, &wb);
  /* Not at 0.11.1 and later: client-gpu was not read there, and the
   * case depends on it, so nothing is claimed of them. */
  assert_int_equal(mask, (1u << 8) | (1u << 9));
  assert_string_equal(why, "passes as JAX 0.11.0..modelled behaves: fact "
                           "client-gpu changed in 00b8c5dbf03c (0.11.0)");
}

/* Found by the matrix on JAX 0.7.2 to 0.9.2 (random case 2628): a rule
 * registered for oneapi, unknown before 5e1c8e729594, is not stored there,
 * so JAX's module has fewer dispatches than the modelled commit expects.
 * The IR row's failure is traced to the facts that classify the case
 * otherwise, not to the lowering's outcome (which passes everywhere). */
static void test_drift_of_a_module_names_the_commit(void **state) {
  (void)state;
  load_real();
  static const char CASE[] = CASE_FX_ONEAPI_KEPT_RULE;
  static lctx_case c;
  static lctx_features f;
  parse_case(CASE, &c);
  select_release(NULL);
  char why[512] = "";
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  /* The judge found the module passing at every release up to 0.9.2
   * (index 6), where the registration is classified otherwise. */
  uint32_t mask = lctx_oracle_drift_ir(&real, &c, 2, (1u << 7) - 1, &f, &wb);
  assert_int_equal(mask, (1u << 7) - 1);
  assert_string_equal(why, "passes as JAX <=0.9.2 behaves: fact "
                           "known-platforms changed in 5e1c8e729594 (0.10.2)");
  /* A module that passes at no release is traced to none: nothing is
   * attributed to a release whose expectation merely differs. */
  lctx_buf_init(&wb, why, sizeof why);
  assert_int_equal(lctx_oracle_drift_ir(&real, &c, 2, 0, &f, &wb), 0);
  assert_string_equal(why, "");
  /* The selected release itself is never named. */
  select_release("0.10.2");
  lctx_buf_init(&wb, why, sizeof why);
  int at = lctx_spec_release_index(&real, "0.10.2");
  mask = lctx_oracle_drift_ir(&real, &c, 2, 1u << at, &f, &wb);
  assert_int_equal(mask, 0);
}

/* A failure that passes at no release the table names is new at the
 * judged release, and says which JAX lines the row cites. */
static void test_drift_new_names_the_release_and_source(void **state) {
  (void)state;
  load_real();
  select_release("0.12.1");
  const lctx_spec_row *ir2 = lctx_spec_find(&real, "IR-002");
  assert_non_null(ir2);
  char why[512] = "";
  lctx_buf wb;
  lctx_buf_init(&wb, why, sizeof why);
  lctx_oracle_drift_new(&real, (size_t)(ir2 - real.rows), &wb);
  assert_non_null(strstr(why, "new at JAX 0.12.1: no release lctx knows "
                              "behaves so; the row cites "));
  assert_non_null(strstr(why, ir2->source));
  /* Judged as the modelled commit, it is new there. */
  select_release(NULL);
  lctx_buf_init(&wb, why, sizeof why);
  lctx_oracle_drift_new(&real, (size_t)(ir2 - real.rows), &wb);
  assert_non_null(
      strstr(why, "new at the modelled commit cec06d116c05: no release"));
}

/* The releases after the modelled commit: in time order, the modelled
 * commit in its place; their was-line states are the modelled commit's. */
static void test_releases_after_the_modelled_commit(void **state) {
  (void)state;
  load_real();
  int m = lctx_spec_release_index(&real, "modelled");
  int a = lctx_spec_release_index(&real, "0.11.0");
  int b = lctx_spec_release_index(&real, "0.11.1");
  int z = lctx_spec_release_index(&real, "0.12.1");
  assert_true(a >= 0 && m == a + 1 && b == m + 1 && z > b);
  assert_string_equal(lctx_spec_release_name(&real, (size_t)m), "modelled");
  assert_true(lctx_spec_same_at(&real, (size_t)m, (size_t)z));
  assert_true(lctx_spec_same_at(&real, (size_t)a, (size_t)m));
  assert_false(lctx_spec_same_at(
      &real, (size_t)lctx_spec_release_index(&real, "0.10.2"), (size_t)a));
  lctx_facts at_m, at_z;
  lctx_spec_facts_at(&real, (size_t)m, &at_m);
  lctx_spec_facts_at(&real, (size_t)z, &at_z);
  assert_memory_equal(&at_m, &at_z, sizeof at_m);
  /* A was line may not name a release after the modelled commit. */
  static const char BAD[] =
      "spec-version = 1.0.0\njax-commit = abc\n"
      "releases = 0.1 modelled 0.2\n"
      "[XX-001]\nop = backends\noutcome = none\nstrict = exact\n"
      "source = x\nwas = 0.2 0123456789ab none\n";
  /* (the was line is line 9) */
  static lctx_spec bad;
  char msg[512] = "";
  lctx_buf mb;
  lctx_buf_init(&mb, msg, sizeof msg);
  assert_false(lctx_spec_parse(BAD, strlen(BAD), "t.lspec", &bad, &mb));
  assert_non_null(strstr(msg, "t.lspec:9:"));
  assert_non_null(strstr(msg, "not after it"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_malformed_releases_are_named_by_position),
      cmocka_unit_test(test_drift_new_names_the_release_and_source),
      cmocka_unit_test(test_releases_after_the_modelled_commit),
      cmocka_unit_test(test_select_gives_each_release_its_outcomes),
      cmocka_unit_test(test_select_gives_each_release_its_facts),
      cmocka_unit_test(test_select_refuses_an_unknown_release),
      cmocka_unit_test(test_real_table_names_the_releases),
      cmocka_unit_test(test_facts_change_the_situation),
      cmocka_unit_test(test_oracle_skips_what_a_release_lacks),
      cmocka_unit_test(test_drift_names_the_commit),
      cmocka_unit_test(test_drift_of_a_module_names_the_commit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
