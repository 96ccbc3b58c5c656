/*
 * ircheck.c - checking the MLIR of a multi-platform lowering (ircheck.h).
 *
 * Owns the checker's MLIR context and its diagnostic capture, the walk that
 * matches the dispatches of `@main` (pairs of switches, or a direct rule
 * call) against the expected ones in pre-order (IR-002..IR-004), and a small
 * interpreter of `@main` for one platform index: switch indices and yielded
 * slots are evaluated on demand from the platform index (argument 0 of
 * `@main`) through constants and integer casts, and the `lctx.marker` ops
 * reached are collected in order (IR-005, IR-006). Reading ops, switches,
 * constants and casts is ircheck_ops.c's.
 */
#include "ircheck_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>

#include "lctx/mlir_emit.h"
#include "lctx/pyrepr.h"

/// Rule names collected by one evaluation, at most.
#define IR_MAX_REACHED 64

struct lctx_ircheck {
  MlirContext context;
  size_t recycle_every;
  size_t checks_in_context;
  size_t contexts_created;
  /// The diagnostics of the current check, `L:C: message; ...`.
  char diag_storage[1024];
  lctx_buf diag;
  size_t diag_errors;
  /// The first error is an op verifier's (`'name' op ...`): MLIR verifies
  /// while parsing, so this is how a verifier failure is told apart.
  bool first_error_from_verifier;
};

//===----------------------------------------------------------------------===//
// Context and diagnostics
//===----------------------------------------------------------------------===//

static MlirLogicalResult on_diagnostic(MlirDiagnostic d, void *user) {
  lctx_ircheck *ck = user;
  MlirDiagnosticSeverity sev = mlirDiagnosticGetSeverity(d);
  if (sev == MlirDiagnosticNote || sev == MlirDiagnosticRemark)
    return mlirLogicalResultSuccess();
  if (ck->diag.length > 0)
    lctx_buf_append_cstr(&ck->diag, "; ");
  lctx_ir_append_linecol(&ck->diag, mlirDiagnosticGetLocation(d));
  lctx_buf_append_cstr(&ck->diag,
                       sev == MlirDiagnosticWarning ? ": warning: " : ": ");
  size_t start = ck->diag.length;
  mlirDiagnosticPrint(d, lctx_ir_append_cb, &ck->diag);
  if (sev == MlirDiagnosticError && ck->diag_errors++ == 0) {
    const char *m = ck->diag.data + start;
    size_t n = ck->diag.length - start;
    const char *close =
        n > 1 && m[0] == '\'' ? memchr(m + 1, '\'', n - 1) : NULL;
    ck->first_error_from_verifier =
        close && (size_t)(m + n - close) >= 5 && memcmp(close, "' op ", 5) == 0;
  }
  return mlirLogicalResultSuccess();
}

static MlirContext context_new(lctx_ircheck *ck) {
  MlirContext ctx = lctx_mlir_context_new(false, on_diagnostic, ck);
  ck->contexts_created++;
  ck->checks_in_context = 0;
  return ctx;
}

lctx_ircheck *lctx_ircheck_create(void) {
  lctx_ircheck *ck = calloc(1, sizeof *ck);
  if (!ck)
    return NULL;
  lctx_buf_init(&ck->diag, ck->diag_storage, sizeof ck->diag_storage);
  ck->context = context_new(ck);
  return ck;
}

void lctx_ircheck_destroy(lctx_ircheck *ck) {
  if (!ck)
    return;
  mlirContextDestroy(ck->context);
  free(ck);
}

void lctx_ircheck_recycle(lctx_ircheck *ck, size_t every_n) {
  ck->recycle_every = every_n;
}

size_t lctx_ircheck_contexts_created(const lctx_ircheck *ck) {
  return ck->contexts_created;
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

/// Violations are written through a checker-wide state.
typedef struct ir_state {
  const lctx_ir_expectation *expect;
  lctx_ir_report *report;
  lctx_buf msg;                      ///< the message being written
  char scratch[LCTX_IR_MESSAGE_MAX]; ///< where dropped messages go
  MlirBlock main_entry;
  size_t next_dispatch; ///< dispatches found so far (pre-order)
  bool reported_extra;  ///< "more dispatches than expected" said once
} ir_state;

/// Starts a violation of `row`; the caller appends its message to st->msg.
static lctx_buf *violation(ir_state *st, const char *row) {
  lctx_ir_report *r = st->report;
  char *storage = st->scratch;
  if (r->count < LCTX_IR_MAX_VIOLATIONS) {
    lctx_ir_violation *v = &r->violations[r->count++];
    size_t n = strlen(row);
    if (n >= sizeof v->row)
      n = sizeof v->row - 1;
    memcpy(v->row, row, n);
    v->row[n] = '\0';
    storage = v->message;
  } else {
    r->dropped++;
  }
  lctx_buf_init(&st->msg, storage, LCTX_IR_MESSAGE_MAX);
  return &st->msg;
}

const lctx_ir_violation *lctx_ir_report_find(const lctx_ir_report *report,
                                             const char *row) {
  for (size_t i = 0; i < report->count; ++i)
    if (strcmp(report->violations[i].row, row) == 0)
      return &report->violations[i];
  return NULL;
}

void lctx_ir_report_format(const lctx_ir_report *report, lctx_buf *out) {
  for (size_t i = 0; i < report->count; ++i) {
    lctx_buf_append_cstr(out, report->violations[i].row);
    lctx_buf_append_cstr(out, ": ");
    lctx_buf_append_cstr(out, report->violations[i].message);
    lctx_buf_append_char(out, '\n');
  }
  if (report->dropped > 0) {
    lctx_buf_append_cstr(out, "(");
    lctx_buf_append_int(out, (long long)report->dropped);
    lctx_buf_append_cstr(out, " more violations not stored)\n");
  }
}

//===----------------------------------------------------------------------===//
// IR-001: the platform index argument
//===----------------------------------------------------------------------===//

static MlirOperation find_main(MlirModule module) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (lctx_ir_op_is(op, "func.func") &&
        lctx_ir_sref_is(lctx_ir_string_attr(op, "sym_name"), "main"))
      return op;
  return (MlirOperation){NULL};
}

/// True when argument 0 of `main` carries the platform-index mark.
static bool arg0_is_marked(MlirOperation main_fn) {
  MlirAttribute attrs =
      mlirOperationGetAttributeByName(main_fn, lctx_ir_sref("arg_attrs"));
  if (mlirAttributeIsNull(attrs) || !mlirAttributeIsAArray(attrs) ||
      mlirArrayAttrGetNumElements(attrs) < 1)
    return false;
  MlirAttribute d = mlirArrayAttrGetElement(attrs, 0);
  if (!mlirAttributeIsADictionary(d))
    return false;
  MlirAttribute g = mlirDictionaryAttrGetElementByName(
      d, lctx_ir_sref("jax.global_constant"));
  return !mlirAttributeIsNull(g) && mlirAttributeIsAString(g) &&
         lctx_ir_sref_is(mlirStringAttrGetValue(g), "_platform_index");
}

/// True when `t` is a signless integer of `width` bits, or a rank-0 tensor
/// of one.
static bool is_scalar_int(MlirType t, unsigned width) {
  if (mlirTypeIsARankedTensor(t) && mlirShapedTypeGetRank(t) == 0)
    t = mlirShapedTypeGetElementType(t);
  return mlirTypeIsAInteger(t) && mlirIntegerTypeIsSignless(t) &&
         mlirIntegerTypeGetWidth(t) == width;
}

static void check_platform_arg(ir_state *st, MlirOperation main_fn) {
  const lctx_ir_expectation *e = st->expect;
  MlirBlock entry = st->main_entry;
  bool has_arg = !mlirBlockIsNull(entry) && mlirBlockGetNumArguments(entry) > 0;
  bool marked = has_arg && arg0_is_marked(main_fn);
  const char *want = e->x64 ? "i64" : "i32";
  if (e->platform_count > 1) {
    if (!has_arg || !marked) {
      lctx_buf *m = violation(st, "IR-001");
      lctx_buf_append_cstr(m, has_arg ? "argument 0 of @main is not marked "
                                        "jax.global_constant = "
                                        "\"_platform_index\""
                                      : "@main has no platform index argument");
      lctx_buf_append_cstr(m, " (expected ");
      lctx_buf_append_cstr(m, want);
      lctx_buf_append_cstr(m, " {jax.global_constant = \"_platform_index\"} "
                              "for ");
      lctx_buf_append_int(m, (long long)e->platform_count);
      lctx_buf_append_cstr(m, " platforms)");
      return;
    }
    MlirType t = mlirValueGetType(mlirBlockGetArgument(entry, 0));
    if (!is_scalar_int(t, e->x64 ? 64 : 32)) {
      lctx_buf *m = violation(st, "IR-001");
      lctx_buf_append_cstr(m, "the platform index has type ");
      mlirTypePrint(t, lctx_ir_append_cb, m);
      lctx_buf_append_cstr(m, ", expected ");
      lctx_buf_append_cstr(m, want);
      lctx_buf_append_cstr(m, e->x64 ? " (x64)" : " (x64 off)");
    }
  } else if (marked) {
    lctx_buf *m = violation(st, "IR-001");
    lctx_buf_append_cstr(m, "@main has a platform index argument but the "
                            "module lowers for ");
    lctx_buf_append_int(m, (long long)e->platform_count);
    lctx_buf_append_cstr(m,
                         e->platform_count == 1 ? " platform" : " platforms");
  }
}

//===----------------------------------------------------------------------===//
// IR-002..IR-004: the dispatches, in pre-order
//===----------------------------------------------------------------------===//

/// The expected shape of dispatch `d`; false when unknown. entry_count or
/// kept_count 0 means unchecked.
static bool expected_dispatch(ir_state *st, size_t d, MlirOperation at,
                              lctx_ir_dispatch *out) {
  const lctx_ir_expectation *e = st->expect;
  if (e->dispatch_count == 0) {
    if (d != 0)
      return false;
    out->entry_count = e->platform_count;
    out->kept_count = 0;
    return true;
  }
  if (d < e->dispatch_count && d < LCTX_IR_MAX_DISPATCHES) {
    *out = e->dispatches[d];
    return true;
  }
  if (!st->reported_extra) {
    st->reported_extra = true;
    lctx_buf *m = violation(st, "IR-003");
    lctx_buf_append_cstr(m, "more dispatches than the ");
    lctx_buf_append_int(m, (long long)e->dispatch_count);
    lctx_buf_append_cstr(m, " expected: dispatch ");
    lctx_buf_append_int(m, (long long)d);
    lctx_buf_append_cstr(m, " at ");
    lctx_ir_append_op_loc(m, at);
  }
  return false;
}

static void append_dispatch(lctx_buf *m, size_t d) {
  lctx_buf_append_cstr(m, "dispatch ");
  lctx_buf_append_int(m, (long long)d);
  lctx_buf_append_cstr(m, ": ");
}

/* Opens a violation of `row` about dispatch d's switch `sw`: "dispatch d:
 * <which> at <loc>"; the caller appends what is wrong with it. */
static lctx_buf *switch_violation(ir_state *st, const char *row, size_t d,
                                  const char *which, MlirOperation sw) {
  lctx_buf *m = violation(st, row);
  append_dispatch(m, d);
  lctx_buf_append_cstr(m, which);
  lctx_buf_append_cstr(m, " at ");
  lctx_ir_append_op_loc(m, sw);
  return m;
}

/* Appends " has N branches, expected WANT (<per>)". */
static void append_branch_counts(lctx_buf *m, size_t n, size_t want,
                                 const char *per) {
  lctx_buf_append_cstr(m, " has ");
  lctx_buf_append_int(m, (long long)n);
  lctx_buf_append_cstr(m, " branches, expected ");
  lctx_buf_append_int(m, (long long)want);
  lctx_buf_append_cstr(m, " (");
  lctx_buf_append_cstr(m, per);
  lctx_buf_append_char(m, ')');
}

static const char k_not_dense[] =
    " does not have cases 0..n-2 with its last branch as default";

static void check_first_switch(ir_state *st, MlirOperation sw, size_t d) {
  size_t n = lctx_ir_branch_count(sw);
  lctx_ir_dispatch want;
  if (!lctx_ir_cases_are_dense(sw)) {
    lctx_buf *m = switch_violation(st, "IR-002", d, "first switch", sw);
    lctx_buf_append_cstr(m, k_not_dense);
  }
  if (expected_dispatch(st, d, sw, &want) && want.entry_count != 0 &&
      want.entry_count != n) {
    lctx_buf *m = switch_violation(st, "IR-002", d, "first switch", sw);
    append_branch_counts(m, n, want.entry_count, "one per platform-list entry");
  }
  for (size_t k = 0; k < n; ++k) {
    MlirBlock b = mlirRegionGetFirstBlock(lctx_ir_branch_region(sw, k));
    MlirOperation term =
        mlirBlockIsNull(b) ? (MlirOperation){NULL} : lctx_ir_last_op(b);
    int64_t slot;
    bool ok =
        !mlirOperationIsNull(term) && mlirOperationGetNumOperands(term) >= 1;
    if (ok) {
      MlirValue root;
      MlirOperation def =
          lctx_ir_source_op(mlirOperationGetOperand(term, 0), &root);
      ok = !mlirOperationIsNull(def) && lctx_ir_constant_value(def, &slot);
    }
    if (!ok) {
      lctx_buf *m = violation(st, "IR-002");
      append_dispatch(m, d);
      lctx_buf_append_cstr(m, "branch ");
      lctx_buf_append_int(m, (long long)k);
      lctx_buf_append_cstr(m, " of the first switch at ");
      lctx_ir_append_op_loc(m, sw);
      lctx_buf_append_cstr(m, " does not yield a constant rule slot");
    }
  }
}

static void walk_block(ir_state *st, MlirBlock block, bool rule_branch,
                       int depth);

static void walk_second_switch(ir_state *st, MlirOperation sw, size_t d,
                               int depth) {
  size_t n = lctx_ir_branch_count(sw);
  lctx_ir_dispatch want;
  bool known = expected_dispatch(st, d, sw, &want) && want.kept_count != 0;
  if (!lctx_ir_cases_are_dense(sw)) {
    lctx_buf *m = switch_violation(st, "IR-003", d, "second switch", sw);
    lctx_buf_append_cstr(m, k_not_dense);
  }
  if ((known && want.kept_count == 1) || (!known && n == 1)) {
    lctx_buf *m = switch_violation(st, "IR-004", d, "a switch", sw);
    lctx_buf_append_cstr(m, " dispatches a single kept rule, which must be "
                            "called directly");
  } else if (known && want.kept_count != n) {
    lctx_buf *m = switch_violation(st, "IR-003", d, "second switch", sw);
    append_branch_counts(m, n, want.kept_count, "one per kept rule");
  }
  for (size_t k = 0; k < n; ++k) {
    MlirBlock b = mlirRegionGetFirstBlock(lctx_ir_branch_region(sw, k));
    if (!mlirBlockIsNull(b))
      walk_block(st, b, true, depth + 1);
  }
}

static void report_unpaired(ir_state *st, MlirOperation first, size_t d) {
  lctx_buf *m = switch_violation(st, "IR-003", d, "first switch", first);
  lctx_buf_append_cstr(m, " is not followed by a second switch indexed by "
                          "its slot");
}

/// Walks a block: each first switch (with results) opens a dispatch that
/// the next second switch indexed by its result closes; a marker is a rule
/// called directly (a one-rule dispatch), except the first marker of a
/// second switch's branch, which is that branch's rule.
static void walk_block(ir_state *st, MlirBlock block, bool rule_branch,
                       int depth) {
  if (depth > IR_MAX_DEPTH)
    return;
  bool branch_rule_seen = !rule_branch;
  MlirOperation pending = {NULL};
  size_t pending_d = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (lctx_ir_switch_kind_of(op) != SW_NONE) {
      /* A switch indexed (through casts) by the pending first switch's
       * slot is its second switch, with results (JAX's stablehlo.case
       * yields the rules' outputs) or without (the reference's form). Any
       * other switch with results opens a dispatch. */
      MlirValue root;
      MlirOperation src =
          mlirOperationGetNumOperands(op) > 0
              ? lctx_ir_source_op(mlirOperationGetOperand(op, 0), &root)
              : (MlirOperation){NULL};
      bool closes = !mlirOperationIsNull(pending) &&
                    !mlirOperationIsNull(src) &&
                    mlirOperationEqual(src, pending);
      if (!closes && mlirOperationGetNumResults(op) > 0) {
        if (!mlirOperationIsNull(pending))
          report_unpaired(st, pending, pending_d);
        pending = op;
        pending_d = st->next_dispatch++;
        check_first_switch(st, op, pending_d);
        continue;
      }
      size_t d;
      if (closes) {
        d = pending_d;
        pending = (MlirOperation){NULL};
      } else {
        d = st->next_dispatch++;
        lctx_buf *m = violation(st, "IR-002");
        append_dispatch(m, d);
        lctx_buf_append_cstr(m, "switch at ");
        lctx_ir_append_op_loc(m, op);
        lctx_buf_append_cstr(m, " is not indexed by the slot of a first "
                                "switch");
      }
      walk_second_switch(st, op, d, depth);
      continue;
    }
    if (lctx_ir_op_is(op, "lctx.marker")) {
      if (!branch_rule_seen) {
        branch_rule_seen = true;
        continue;
      }
      if (!mlirOperationIsNull(pending)) {
        report_unpaired(st, pending, pending_d);
        pending = (MlirOperation){NULL};
      }
      size_t d = st->next_dispatch++;
      lctx_ir_dispatch want;
      if (expected_dispatch(st, d, op, &want) && want.kept_count > 1) {
        lctx_buf *m = violation(st, "IR-003");
        append_dispatch(m, d);
        lctx_buf_append_cstr(m, "rule ");
        lctx_buf_append_str(m,
                            lctx_ir_sref_view(lctx_ir_string_attr(op, "rule")));
        lctx_buf_append_cstr(m, " is called directly at ");
        lctx_ir_append_op_loc(m, op);
        lctx_buf_append_cstr(m, ", expected a switch over ");
        lctx_buf_append_int(m, (long long)want.kept_count);
        lctx_buf_append_cstr(m, " kept rules");
      }
      continue;
    }
    intptr_t nr = mlirOperationGetNumRegions(op);
    for (intptr_t r = 0; r < nr; ++r)
      for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
           !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
        walk_block(st, b, false, depth + 1);
  }
  if (!mlirOperationIsNull(pending))
    report_unpaired(st, pending, pending_d);
}

//===----------------------------------------------------------------------===//
// IR-005, IR-006: evaluation for one platform index
//===----------------------------------------------------------------------===//

typedef struct ir_eval {
  MlirBlock main_entry;
  int64_t platform;
  size_t count;
  bool overflow;
  MlirStringRef rules[IR_MAX_REACHED];
  bool failed;
  char error_storage[256];
  lctx_buf error;
} ir_eval;

static bool eval_fail(ir_eval *ev, const char *what, MlirOperation at) {
  if (!ev->failed) {
    ev->failed = true;
    lctx_buf_append_cstr(&ev->error, what);
    if (!mlirOperationIsNull(at)) {
      lctx_buf_append_cstr(&ev->error, " '");
      lctx_buf_append_str(&ev->error, lctx_ir_sref_view(lctx_ir_op_name(at)));
      lctx_buf_append_cstr(&ev->error, "' at ");
      lctx_ir_append_op_loc(&ev->error, at);
    }
  }
  return false;
}

static bool eval_value(ir_eval *ev, MlirValue v, int depth, int64_t *out);

/// The region a switch takes: out of range runs the last branch.
static bool choose_branch(ir_eval *ev, MlirOperation sw, int depth,
                          MlirRegion *out) {
  int64_t index;
  if (mlirOperationGetNumOperands(sw) < 1 || lctx_ir_branch_count(sw) == 0)
    return eval_fail(ev, "malformed switch", sw);
  if (!eval_value(ev, mlirOperationGetOperand(sw, 0), depth + 1, &index))
    return false;
  if (lctx_ir_switch_kind_of(sw) == SW_SCF) {
    MlirAttribute cases =
        mlirOperationGetAttributeByName(sw, lctx_ir_sref("cases"));
    *out = mlirOperationGetRegion(sw, 0);
    if (!mlirAttributeIsNull(cases) && mlirAttributeIsADenseI64Array(cases)) {
      intptr_t n = mlirDenseArrayGetNumElements(cases);
      for (intptr_t i = 0; i < n; ++i)
        if (mlirDenseI64ArrayGetElement(cases, i) == index &&
            i + 1 < mlirOperationGetNumRegions(sw)) {
          *out = mlirOperationGetRegion(sw, i + 1);
          break;
        }
    }
    return true;
  }
  size_t n = lctx_ir_branch_count(sw);
  size_t k = index < 0 || (uint64_t)index >= n ? n - 1 : (size_t)index;
  *out = mlirOperationGetRegion(sw, (intptr_t)k);
  return true;
}

static bool eval_value(ir_eval *ev, MlirValue v, int depth, int64_t *out) {
  if (depth > IR_MAX_DEPTH)
    return eval_fail(ev, "values nested too deeply", (MlirOperation){NULL});
  if (mlirValueIsABlockArgument(v)) {
    if (mlirBlockEqual(mlirBlockArgumentGetOwner(v), ev->main_entry) &&
        mlirBlockArgumentGetArgNumber(v) == 0) {
      *out = ev->platform;
      return true;
    }
    return eval_fail(ev,
                     "a switch index depends on a block argument other "
                     "than the platform index",
                     (MlirOperation){NULL});
  }
  MlirOperation def = mlirOpResultGetOwner(v);
  if (lctx_ir_constant_value(def, out))
    return true;
  if (lctx_ir_is_cast(def) && mlirOperationGetNumOperands(def) >= 1)
    return eval_value(ev, mlirOperationGetOperand(def, 0), depth + 1, out);
  if (lctx_ir_switch_kind_of(def) != SW_NONE) {
    MlirRegion region;
    if (!choose_branch(ev, def, depth, &region))
      return false;
    MlirBlock b = mlirRegionGetFirstBlock(region);
    MlirOperation term =
        mlirBlockIsNull(b) ? (MlirOperation){NULL} : lctx_ir_last_op(b);
    intptr_t k = mlirOpResultGetResultNumber(v);
    if (mlirOperationIsNull(term) || mlirOperationGetNumOperands(term) <= k)
      return eval_fail(ev, "a branch yields no value for", def);
    return eval_value(ev, mlirOperationGetOperand(term, k), depth + 1, out);
  }
  return eval_fail(ev, "cannot evaluate the value of", def);
}

static void exec_block(ir_eval *ev, MlirBlock block, int depth) {
  if (depth > IR_MAX_DEPTH) {
    eval_fail(ev, "regions nested too deeply", (MlirOperation){NULL});
    return;
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op) && !ev->failed;
       op = mlirOperationGetNextInBlock(op)) {
    if (lctx_ir_op_is(op, "lctx.marker")) {
      if (ev->count < IR_MAX_REACHED)
        ev->rules[ev->count++] = lctx_ir_string_attr(op, "rule");
      else
        ev->overflow = true;
    } else if (lctx_ir_switch_kind_of(op) != SW_NONE) {
      MlirRegion region;
      if (!choose_branch(ev, op, depth, &region))
        return;
      MlirBlock b = mlirRegionGetFirstBlock(region);
      if (!mlirBlockIsNull(b))
        exec_block(ev, b, depth + 1);
    }
  }
}

static bool rules_equal(const ir_eval *ev, const lctx_ir_rules *want) {
  if (ev->overflow || ev->count != want->count)
    return false;
  for (size_t k = 0; k < want->count; ++k)
    if (!lctx_ir_sref_is(ev->rules[k], want->names[k] ? want->names[k] : ""))
      return false;
  return true;
}

static void append_got(lctx_buf *m, const ir_eval *ev) {
  lctx_str items[IR_MAX_REACHED];
  for (size_t k = 0; k < ev->count; ++k)
    items[k] = lctx_ir_sref_view(ev->rules[k]);
  lctx_pyrepr_str_list(m, items, ev->count);
  if (ev->overflow)
    lctx_buf_append_cstr(m, " (and more)");
}

static void append_want(lctx_buf *m, const lctx_ir_rules *want) {
  lctx_str items[LCTX_IR_MAX_RULES];
  size_t n = want->count < LCTX_IR_MAX_RULES ? want->count : LCTX_IR_MAX_RULES;
  for (size_t k = 0; k < n; ++k)
    items[k] = lctx_str_from_cstr(want->names[k] ? want->names[k] : "");
  lctx_pyrepr_str_list(m, items, n);
}

static void append_platform(lctx_buf *m, const lctx_ir_expectation *e,
                            size_t i) {
  if (e->platforms[i]) {
    lctx_buf_append_cstr(m, e->platforms[i]);
  } else {
    lctx_buf_append_cstr(m, "#");
    lctx_buf_append_int(m, (long long)i);
  }
}

static void check_evaluation(ir_state *st, MlirOperation main_fn) {
  const lctx_ir_expectation *e = st->expect;
  size_t n = e->platform_count < LCTX_IR_MAX_PLATFORMS ? e->platform_count
                                                       : LCTX_IR_MAX_PLATFORMS;
  MlirBlock entry = st->main_entry;
  (void)main_fn;
  if (mlirBlockIsNull(entry))
    return;
  for (size_t i = 0; i < n; ++i) {
    ir_eval ev;
    memset(&ev, 0, sizeof ev);
    lctx_buf_init(&ev.error, ev.error_storage, sizeof ev.error_storage);
    ev.main_entry = entry;
    ev.platform = (int64_t)i;
    exec_block(&ev, entry, 0);
    if (ev.failed) {
      lctx_buf *m = violation(st, "IR-005");
      lctx_buf_append_cstr(m, "platform ");
      append_platform(m, e, i);
      lctx_buf_append_cstr(m, ": ");
      lctx_buf_append_str(m, lctx_buf_view(&ev.error));
      continue;
    }
    if (rules_equal(&ev, &e->intended[i]))
      continue;
    bool defect = e->has_jax_actual[i] && rules_equal(&ev, &e->jax_actual[i]);
    lctx_buf *m = violation(st, defect ? "IR-006" : "IR-005");
    if (defect)
      lctx_buf_append_cstr(m, "known upstream defect: nested dispatch indexed "
                              "by the module-wide platform index: ");
    lctx_buf_append_cstr(m, "platform ");
    append_platform(m, e, i);
    lctx_buf_append_cstr(m, " runs ");
    append_got(m, &ev);
    lctx_buf_append_cstr(m, " instead of ");
    append_want(m, &e->intended[i]);
  }
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

bool lctx_ircheck_run(lctx_ircheck *ck, lctx_str mlir_text,
                      const lctx_ir_expectation *expect,
                      lctx_ir_report *report) {
  memset(report, 0, sizeof *report);
  if (ck->recycle_every > 0 && ck->checks_in_context >= ck->recycle_every) {
    mlirContextDestroy(ck->context);
    ck->context = context_new(ck);
  }
  ck->checks_in_context++;
  lctx_buf_reset(&ck->diag);
  ck->diag_errors = 0;
  ck->first_error_from_verifier = false;

  ir_state *st = calloc(1, sizeof *st);
  if (!st)
    return false;
  st->expect = expect;
  st->report = report;

  MlirModule module = mlirModuleCreateParse(
      ck->context, mlirStringRefCreate(mlir_text.data, mlir_text.length));
  if (mlirModuleIsNull(module)) {
    // Parsing verifies: a verifier's error means the syntax was fine.
    report->parse_ok = ck->first_error_from_verifier;
    lctx_buf *m = violation(st, "IR-000");
    lctx_buf_append_cstr(m, report->parse_ok ? "the module does not verify: "
                                             : "the text does not parse: ");
    lctx_buf_append_str(m, lctx_buf_view(&ck->diag));
    free(st);
    return false;
  }
  report->parse_ok = true;
  MlirOperation mop = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(mop)) {
    lctx_buf *m = violation(st, "IR-000");
    lctx_buf_append_cstr(m, "the module does not verify: ");
    lctx_buf_append_str(m, lctx_buf_view(&ck->diag));
    mlirModuleDestroy(module);
    free(st);
    return false;
  }
  report->verified = true;

  MlirOperation main_fn = find_main(module);
  if (mlirOperationIsNull(main_fn)) {
    lctx_buf *m = violation(st, "IR-001");
    lctx_buf_append_cstr(m, "the module has no func.func @main");
  } else {
    MlirRegion body = mlirOperationGetRegion(main_fn, 0);
    st->main_entry = mlirRegionGetFirstBlock(body);
    check_platform_arg(st, main_fn);
    if (!mlirBlockIsNull(st->main_entry)) {
      walk_block(st, st->main_entry, false, 0);
      const lctx_ir_expectation *e = expect;
      if (e->dispatch_count > 0 && st->next_dispatch < e->dispatch_count) {
        lctx_buf *m = violation(st, "IR-003");
        lctx_buf_append_cstr(m, "found ");
        lctx_buf_append_int(m, (long long)st->next_dispatch);
        lctx_buf_append_cstr(m, " dispatches, expected ");
        lctx_buf_append_int(m, (long long)e->dispatch_count);
      }
    }
    check_evaluation(st, main_fn);
  }
  mlirModuleDestroy(module);
  free(st);
  return report->count == 0 && report->dropped == 0;
}
