/*
 * tests/oracle_fx.h - what the tests of the oracle (test_oracle.c,
 * test_oracle_engines.c) share: the real spec table loaded once per group,
 * the case judged with its expectations, outcomes written as values,
 * registry configurations in the `.case` text form, and a recorder of the
 * violations reported with the check of each against the one expected.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_ORACLE_FX_H
#define LCTX_TESTS_ORACLE_FX_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "case_gen.h"
#include "oracle.h"
#include "test_support.h"

#define SPEC_PATH LCTX_SOURCE_DIR "/conformance/spec/backend-selection.lspec"

static lctx_spec g_spec;
static lctx_case g_case;
static lctx_case_expect g_expect;

static inline void load_spec(void) {
  char error[512];
  lctx_buf e;
  lctx_buf_init(&e, error, sizeof error);
  if (!lctx_spec_load(SPEC_PATH, &g_spec, &e))
    fail_msg("%s", error);
}

/// Parses `body` after the header into g_case.
static inline void parse_body(const char *what, const char *body) {
  char error[512];
  if (!case_gen_parse_body(body, &g_case, &g_expect, error, sizeof error))
    fail_msg("%s: %s", what, error);
}

/// An outcome written as a value.
typedef struct outcome_spec {
  lctx_outcome_kind kind;
  lctx_error_class error;
  lctx_client_origin origin;
  int registration;
  const char *text;
} outcome_spec;

#define O_NONE                                                                 \
  { LCTX_OUTCOME_NONE, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, "" }
#define O_STRING(s)                                                            \
  { LCTX_OUTCOME_STRING, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, (s) }
#define O_RAISE(e, s)                                                          \
  { LCTX_OUTCOME_RAISE, (e), LCTX_CLIENT_REGISTRY, -1, (s) }
#define O_CLIENT(r, s)                                                         \
  { LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, (r), (s) }
#define O_PINNED(s)                                                            \
  { LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_PINNED, -1, (s) }

static inline void make_outcome(const outcome_spec *s, lctx_outcome *o) {
  switch (s->kind) {
  case LCTX_OUTCOME_NONE:
    lctx_outcome_set_none(o);
    return;
  case LCTX_OUTCOME_CLIENT:
    lctx_outcome_set_client(o, s->origin, s->registration, ts_s(s->text));
    return;
  case LCTX_OUTCOME_RAISE: {
    lctx_buf w = lctx_outcome_begin_raise(o, s->error);
    lctx_buf_append_cstr(&w, s->text);
    lctx_outcome_end(o, &w);
    return;
  }
  case LCTX_OUTCOME_STRING:
  case LCTX_OUTCOME_PLATFORMS: {
    lctx_buf w = lctx_outcome_begin(o, s->kind);
    lctx_buf_append_cstr(&w, s->text);
    lctx_outcome_end(o, &w);
    return;
  }
  }
}

#define CPU "factory \"cpu\" priority=0 loud client\n"
#define STOCK                                                                  \
  CPU "factory \"tpu\" priority=300 quiet raises \"TPU not found\"\n"
#define GPUS                                                                   \
  STOCK "factory \"cuda\" priority=400 loud client\n"                          \
        "factory \"rocm\" priority=400 loud client\n"                          \
        "factory \"oneapi\" priority=400 loud client\nnvidia_gpu visible\n"
#define M1                                                                     \
  "accessing .backend in multi-lowering setting. This can occur when "         \
  "lowering a primitive that has not been adapted to multi-platform lowering"
#define NO_GPU                                                                 \
  "Unknown backend: 'gpu' requested, but no platforms that are instances of "  \
  "gpu are present. Platforms present are: cpu"
#define B2A                                                                    \
  "the platform for the specified backend cpu is different from the "          \
  "lowering platform tpu"
/// B2a's operation: module_get_backend of (tpu) with backend cpu, not
/// optional.
#define B2A_OP                                                                 \
  "op module_get_backend platforms=[\"tpu\"] backend=\"cpu\" optional=false\n"

//===----------------------------------------------------------------------===//
// Recording violations
//===----------------------------------------------------------------------===//

typedef struct seen {
  lctx_violation_kind kind;
  size_t op_index;
  char row[16];
  char invariant[32];
  char features[256];
  char expected[1024];
  char actual[1024];
  bool has_expected_outcome;
  bool has_actual_outcome;
  const lctx_case *c;
} seen;

typedef struct vlog {
  size_t count;
  seen items[8];
} vlog;

static inline void note(void *user, const lctx_violation *v) {
  vlog *l = user;
  assert_true(l->count < 8);
  seen *s = &l->items[l->count++];
  s->kind = v->kind;
  s->op_index = v->op_index;
  snprintf(s->row, sizeof s->row, "%s", v->row);
  snprintf(s->invariant, sizeof s->invariant, "%s", v->invariant);
  snprintf(s->features, sizeof s->features, "%s", v->features);
  snprintf(s->expected, sizeof s->expected, "%s", v->expected);
  snprintf(s->actual, sizeof s->actual, "%s", v->actual);
  s->has_expected_outcome = v->expected_outcome != NULL;
  s->has_actual_outcome = v->actual_outcome != NULL;
  s->c = v->c;
}

/// One violation as the test expects it.
typedef struct want {
  lctx_violation_kind kind;
  size_t op_index;
  const char *row;
  const char *invariant;
  const char *features; ///< NULL: not checked
  const char *expected;
  const char *actual;
} want;

static inline void check_seen(const char *what, const seen *s, const want *w) {
  if (s->kind != w->kind || s->op_index != w->op_index ||
      strcmp(s->row, w->row) != 0 || strcmp(s->invariant, w->invariant) != 0 ||
      (w->features && strcmp(s->features, w->features) != 0) ||
      strcmp(s->expected, w->expected) != 0 ||
      strcmp(s->actual, w->actual) != 0)
    fail_msg("%s: violation\n  got  kind=%d op=%zu row=\"%s\" inv=\"%s\"\n"
             "       features=\"%s\"\n       expected=\"%s\"\n"
             "       actual=\"%s\"\n  want kind=%d op=%zu row=\"%s\" "
             "inv=\"%s\"\n       features=\"%s\"\n       expected=\"%s\"\n"
             "       actual=\"%s\"",
             what, (int)s->kind, s->op_index, s->row, s->invariant, s->features,
             s->expected, s->actual, (int)w->kind, w->op_index, w->row,
             w->invariant, w->features ? w->features : "(any)", w->expected,
             w->actual);
  assert_ptr_equal(s->c, &g_case);
  assert_true(s->has_actual_outcome);
  /* An expected outcome exists for a disallowed outcome, a failed
   * expectation and an invariant; not when no row could say one. */
  assert_int_equal(s->has_expected_outcome, w->kind == LCTX_V_OUTCOME ||
                                                w->kind == LCTX_V_EXPECT ||
                                                w->kind == LCTX_V_INVARIANT);
}

/// The group set-up: loads the real table into g_spec.
static inline int oracle_fx_setup(void **state) {
  (void)state;
  load_spec();
  return 0;
}

#endif
