#!/bin/sh
# test_explain_ir.sh - pins how the MLIR and the IR rows can be seen:
# `lctx explain --mlir` of the IR-006 case prints the reference's module
# (a func.func @main with the platform index and the lctx.marker ops) and
# the IR rows that judged it, IR-006 among them and reported as JAX's
# nested platform-index defect; without --mlir the rows are printed and
# the module is not; a case without a lowering prints no IR rows; `lctx
# eval --cover` of a case that reaches no IR row says how each IR row is
# reached (on the reference's MLIR of a lower_per_platform that succeeds)
# and what IR-006 needs, and of the whole folder counts the modules per row.
#
# Usage: test_explain_ir.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
cases="$SRC/conformance/cases"
ir6="$cases/IR-006-nested-platform-index-defect.case"
plain="$cases/XG-001-default-highest-priority.case"

# 1. explain --mlir shows the module and names IR-006.
"$LCTX" explain --mlir "$ir6" >"$tmp/m.out" 2>&1 ||
  fail "explain --mlir exits $?: $(cat "$tmp/m.out")"
grep -q "^    mlir (the reference's module):" "$tmp/m.out" ||
  fail "no module header: $(cat "$tmp/m.out")"
grep -q 'func.func @main(%arg0: i32 {jax.global_constant = "_platform_index"})' \
  "$tmp/m.out" || fail "no @main with the platform index"
grep -q '"lctx.marker"() {platforms = \["tpu"\], primitive = "Q", rule = "Q.tpu"}' \
  "$tmp/m.out" || fail "no marker of Q.tpu in the module"
grep -q '^    IR rows that judged the module: IR-000 IR-001 IR-002 IR-003 IR-005 IR-006$' \
  "$tmp/m.out" || fail "rows: $(grep 'IR rows' "$tmp/m.out")"
grep -q "^    IR-006 reported (JAX's nested platform-index defect is present, as expected): .*platform tpu runs \['P.def', 'Q.cuda'\] instead of \['P.def', 'Q.tpu'\]" \
  "$tmp/m.out" || fail "IR-006 not named: $(cat "$tmp/m.out")"
grep -q '^    IR verdict: ok$' "$tmp/m.out" || fail "no IR verdict"

# 2. Without --mlir: the rows, not the module.
"$LCTX" explain "$ir6" >"$tmp/n.out" 2>&1 || fail "explain exits $?"
grep -q 'IR-006 reported' "$tmp/n.out" || fail "IR-006 not named without --mlir"
grep -q 'func.func' "$tmp/n.out" && fail "the module printed without --mlir"

# 3. A case without a lowering: no IR lines.
"$LCTX" explain --mlir "$plain" >"$tmp/p.out" 2>&1 || fail "explain plain exits $?"
grep -q 'IR rows\|mlir' "$tmp/p.out" && fail "IR lines for a case without a lowering"

# 4. eval --cover says how IR rows are reached.
"$LCTX" eval --cover "$plain" >"$tmp/c.out" 2>&1
[ $? -eq 1 ] || fail "eval --cover of one case should exit 1"
grep -q "^row IR-006 has no case: an IR row, judged on the reference's MLIR of a lower_per_platform that succeeds; it needs a default rule (lower_fun)" \
  "$tmp/c.out" || fail "no hint for IR-006: $(grep IR-006 "$tmp/c.out")"
grep -q '^IR rows are judged on the MLIR the reference emits .*fuzz_lowering.*modules judged: 0$' \
  "$tmp/c.out" || fail "no IR coverage line: $(cat "$tmp/c.out")"
"$LCTX" eval --cover --quiet "$cases" >"$tmp/a.out" 2>&1 ||
  fail "eval --cover of the folder exits $?"
grep -q '^  IR-006: 1 modules' "$tmp/a.out" || fail "IR-006 count: $(cat "$tmp/a.out")"
grep -q 'has no case' "$tmp/a.out" && fail "a row without a case in the folder"

finish_failures "test_explain_ir: "
