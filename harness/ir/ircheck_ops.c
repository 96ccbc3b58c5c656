/*
 * ircheck_ops.c - reading the ops of a lowering's MLIR for the checker
 * (ircheck_private.h): names, string attributes and `L:C` locations of ops,
 * the switches a dispatch is made of (scf.index_switch, stablehlo.case) and
 * their branches, integer constants, and following integer casts back to
 * the value they convert. Holds no state; builds and changes no IR.
 */
#include "ircheck_private.h"

#include <string.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

MlirStringRef lctx_ir_sref(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

bool lctx_ir_sref_is(MlirStringRef s, const char *c) {
  size_t n = strlen(c);
  return s.length == n && (n == 0 || memcmp(s.data, c, n) == 0);
}

lctx_str lctx_ir_sref_view(MlirStringRef s) {
  return lctx_str_make(s.data, s.length);
}

MlirStringRef lctx_ir_op_name(MlirOperation op) {
  return mlirIdentifierStr(mlirOperationGetName(op));
}

bool lctx_ir_op_is(MlirOperation op, const char *name) {
  return lctx_ir_sref_is(lctx_ir_op_name(op), name);
}

void lctx_ir_append_cb(MlirStringRef s, void *user) {
  lctx_buf_append((lctx_buf *)user, s.data, s.length);
}

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// Appends `L:C` of a file location (`loc("name":L:C)`), else `?:?`.
void lctx_ir_append_linecol(lctx_buf *out, MlirLocation loc) {
  char storage[512];
  lctx_buf b;
  lctx_buf_init(&b, storage, sizeof storage);
  mlirLocationPrint(loc, lctx_ir_append_cb, &b);
  const char *s = b.data;
  size_t n = b.length;
  // Find the last `digits:digits` in the text.
  size_t end = n;
  while (end > 0 && !is_digit(s[end - 1]))
    --end;
  size_t col = end;
  while (col > 0 && is_digit(s[col - 1]))
    --col;
  size_t line_end = col > 0 && s[col - 1] == ':' ? col - 1 : col;
  size_t line = line_end;
  while (line > 0 && is_digit(s[line - 1]))
    --line;
  if (b.overflow || col == end || line_end == col || line == line_end) {
    lctx_buf_append_cstr(out, "?:?");
    return;
  }
  lctx_buf_append(out, s + line, end - line);
}

void lctx_ir_append_op_loc(lctx_buf *out, MlirOperation op) {
  lctx_ir_append_linecol(out, mlirOperationGetLocation(op));
}

MlirOperation lctx_ir_last_op(MlirBlock block) {
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    last = op;
  return last;
}

MlirStringRef lctx_ir_string_attr(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, lctx_ir_sref(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return (MlirStringRef){NULL, 0};
  return mlirStringAttrGetValue(a);
}

lctx_ir_switch_kind lctx_ir_switch_kind_of(MlirOperation op) {
  if (lctx_ir_op_is(op, "scf.index_switch"))
    return SW_SCF;
  if (lctx_ir_op_is(op, "stablehlo.case"))
    return SW_CASE;
  return SW_NONE;
}

size_t lctx_ir_branch_count(MlirOperation sw) {
  return (size_t)mlirOperationGetNumRegions(sw);
}

/// Branch k of a switch: region k of stablehlo.case; for scf.index_switch,
/// `case k` is region k+1 and the last branch is `default`, region 0.
MlirRegion lctx_ir_branch_region(MlirOperation sw, size_t k) {
  size_t n = lctx_ir_branch_count(sw);
  if (lctx_ir_switch_kind_of(sw) == SW_SCF)
    return mlirOperationGetRegion(sw, k + 1 < n ? (intptr_t)(k + 1) : 0);
  return mlirOperationGetRegion(sw, (intptr_t)k);
}

/// True when the scf.index_switch's cases are exactly 0..n-2 in order (so
/// that `default` is branch n-1). stablehlo.case always is.
bool lctx_ir_cases_are_dense(MlirOperation sw) {
  if (lctx_ir_switch_kind_of(sw) != SW_SCF)
    return true;
  MlirAttribute cases =
      mlirOperationGetAttributeByName(sw, lctx_ir_sref("cases"));
  if (mlirAttributeIsNull(cases) || !mlirAttributeIsADenseI64Array(cases))
    return false;
  intptr_t n = mlirDenseArrayGetNumElements(cases);
  if ((size_t)n + 1 != lctx_ir_branch_count(sw))
    return false;
  for (intptr_t i = 0; i < n; ++i)
    if (mlirDenseI64ArrayGetElement(cases, i) != i)
      return false;
  return true;
}

/// The integer of a constant op (arith.constant, stablehlo.constant with a
/// splat integer tensor).
bool lctx_ir_constant_value(MlirOperation op, int64_t *out) {
  if (!lctx_ir_op_is(op, "arith.constant") &&
      !lctx_ir_op_is(op, "stablehlo.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(op, lctx_ir_sref("value"));
  if (mlirAttributeIsNull(a))
    return false;
  if (mlirAttributeIsAInteger(a)) {
    *out = mlirIntegerAttrGetValueInt(a);
    return true;
  }
  if (mlirAttributeIsADenseIntElements(a) && mlirDenseElementsAttrIsSplat(a)) {
    MlirType et = mlirShapedTypeGetElementType(mlirAttributeGetType(a));
    if (!mlirTypeIsAInteger(et))
      return false;
    switch (mlirIntegerTypeGetWidth(et)) {
    case 32:
      *out = mlirDenseElementsAttrGetInt32SplatValue(a);
      return true;
    case 64:
      *out = mlirDenseElementsAttrGetInt64SplatValue(a);
      return true;
    default:
      return false;
    }
  }
  return false;
}

bool lctx_ir_is_cast(MlirOperation op) {
  static const char *const casts[] = {"arith.index_cast", "arith.index_castui",
                                      "arith.extsi",      "arith.extui",
                                      "arith.trunci",     "stablehlo.convert",
                                      "stablehlo.reshape"};
  for (size_t i = 0; i < sizeof casts / sizeof casts[0]; ++i)
    if (lctx_ir_op_is(op, casts[i]))
      return true;
  return false;
}

/// Follows integer casts back from `v`; returns its defining op (null for a
/// block argument).
MlirOperation lctx_ir_source_op(MlirValue v, MlirValue *root) {
  for (int depth = 0; depth < IR_MAX_DEPTH; ++depth) {
    if (!mlirValueIsAOpResult(v))
      break;
    MlirOperation def = mlirOpResultGetOwner(v);
    if (!lctx_ir_is_cast(def) || mlirOperationGetNumOperands(def) < 1) {
      *root = v;
      return def;
    }
    v = mlirOperationGetOperand(def, 0);
  }
  *root = v;
  return (MlirOperation){NULL};
}
