#!/bin/sh
# test_jax_release.sh - tools/jax_release.py (its parts in
# tools/lctx_release/), "adding a JAX release", on the pinned release 0.10.2
# (installed in build/jax/venv-0.10.2):
#   1. the index of the cited units (conformance/adapters/cited_functions.json)
#      on copies of 0.10.2's cited files (`--diff TREE --against TREE2`):
#      register_lowering reformatted (re-indented, comments added, its
#      docstring rewritten) is reported unchanged against the modelled
#      commit and the original; with one message changed it is reported
#      changed, its rows RL-001..RL-004 named, and the unified diff shows
#      the two lines with their line numbers;
#   2. a malformed `source =` value is refused with a message naming it;
#   3. the whole command offline with a small matrix cell (--random 200):
#      exit 0; the units that differ between 0.10.2 and the modelled commit
#      (conformance/adapters/README.md lists them: ModuleContext's fields,
#      lower_per_platform's check_unreduced_constraint, lower_fun's tracing,
#      _init_backend's hooks) reported changed, register_lowering and
#      ModuleContext.get_backend unchanged; the spec rows of the changed
#      units named; the stock factories (cpu, tpu) as at the modelled
#      commit; the matrix cell run (as 0.10.2 behaves: pass); the drafts
#      written (draft.md: the releases line, a jaxlib_clients.py entry, a
#      release.c row with its citation table lines);
#   4. bad input: not a version (exit 2), a version without requirements
#      offline (exit 1, step 1 named), no traceback either way.
# Skips (exit 77) when LCTX_JAX=off or build/jax/venv-0.10.2 does not
# exist. Usage: test_jax_release.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
V=0.10.2
jax_skip_if_off
VENV=$SRC/build/jax/venv-$V
SP=$(ls -d "$VENV"/lib/python3.*/site-packages 2>/dev/null | head -n 1)
if [ ! -x "$VENV/bin/python" ] || [ -z "$SP" ] || [ ! -d "$SP/jax/_src" ]; then
  echo "SKIPPED: build/jax/venv-$V does not exist (sh tools/setup-jax.sh $V installs it)"
  exit 77
fi
TOOL=$SRC/tools/jax_release.py

# 1. The index: a reformatted copy is unchanged, a modified one changed.
files=$("$PY" -c 'import json, sys
print("\n".join(json.load(open(sys.argv[1]))["files"]))' \
  "$SRC/conformance/adapters/cited_functions.json") ||
  fail "cannot read conformance/adapters/cited_functions.json"
for t in base reformatted modified; do
  for f in $files; do
    mkdir -p "$tmp/$t/$(dirname "$f")"
    cp "$SP/$f" "$tmp/$t/$f" || fail "$SP/$f is missing"
  done
done
cat >"$tmp/edit.py" <<'EOF'
# edit.py MODE FILE: rewrites register_lowering of mlir.py in place.
import ast, sys
mode, path = sys.argv[1], sys.argv[2]
src = open(path, encoding="utf-8").read()
lines = src.splitlines()
node = next(n for n in ast.parse(src).body
            if getattr(n, "name", "") == "register_lowering")
start = min([d.lineno for d in node.decorator_list] + [node.lineno])
if mode == "reformat":
    # Another layout (4-space indents, one line per statement, quotes
    # normalized), a comment at every line's end, a new docstring.
    node.body[0] = ast.Expr(ast.Constant("Rewritten by the test."))
    new = ["# register_lowering, reformatted by test_jax_release.sh", ""]
    new += [l + "  # reformatted" if l.strip() else l
            for l in ast.unparse(node).splitlines()]
else:
    old = "\n".join(lines[start - 1:node.end_lineno])
    assert "Registering an MLIR lowering rule" in old, "message not found"
    new = old.replace("Registering an MLIR lowering rule",
                      "Registering a lowering rule").splitlines()
out = "\n".join(lines[:start - 1] + new + lines[node.end_lineno:]) + "\n"
ast.parse(out)
open(path, "w", encoding="utf-8").write(out)
EOF
MLIR=jax/_src/interpreters/mlir.py
"$PY" "$tmp/edit.py" reformat "$tmp/reformatted/$MLIR" ||
  fail "could not reformat register_lowering"
"$PY" "$tmp/edit.py" modify "$tmp/modified/$MLIR" ||
  fail "could not modify register_lowering"
cmp -s "$tmp/base/$MLIR" "$tmp/reformatted/$MLIR" &&
  fail "the reformatted copy is the same file"

# against_base COPY STATE: `--diff COPY --against base` succeeds and its
# table says register_lowering is STATE in both columns.
against_base() {
  "$PY" "$TOOL" --diff "$tmp/$1" --against "$tmp/base" >"$tmp/$1.out" 2>&1 ||
    fail "--diff ($1) exited $?: $(tail -5 "$tmp/$1.out")"
  grep -Eq "^ +register_lowering +$2 +$2 +[0-9]" "$tmp/$1.out" ||
    fail "a $1 register_lowering is not reported $2: $(grep register_lowering "$tmp/$1.out")"
}

against_base reformatted unchanged
grep -q '^  every cited unit is as in .*base$' "$tmp/reformatted.out" ||
  fail "the reformatted copy differs from the original: $(grep 'differ from' "$tmp/reformatted.out")"

against_base modified changed
grep -Eq '^  differ from .*base: register_lowering \(changed\)$' "$tmp/modified.out" ||
  fail "units other than register_lowering reported: $(grep 'differ from' "$tmp/modified.out")"
grep -Eq '^  rows whose cited units differ from .*base: .*RL-001 \(register_lowering\), RL-002 \(register_lowering\), RL-003 \(register_lowering\), RL-004 \(register_lowering\)' \
  "$tmp/modified.out" || fail "the rows of register_lowering are not named"
grep -Eq '^  @@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@$' "$tmp/modified.out" &&
  grep -q '^  -.*Registering an MLIR lowering rule' "$tmp/modified.out" &&
  grep -q '^  +.*Registering a lowering rule' "$tmp/modified.out" ||
  fail "no unified diff of the changed line: $(grep -A12 'unified diffs' "$tmp/modified.out")"

# 2. A malformed source line.
PYTHONPATH=$SRC/tools "$PY" - >"$tmp/malformed.out" 2>&1 <<'EOF' || fail "malformed source: $(cat "$tmp/malformed.out")"
from lctx_release.spec import parse_source
for bad in ("jax/_src/xla_bridge.py:912-", "912-914", "jax/_src/x.py:9-3"):
    try:
        parse_source(bad, "spec.lspec:7")
    except ValueError as e:
        assert "spec.lspec:7" in str(e), e
    else:
        raise SystemExit("accepted: " + bad)
kind, items, _ = parse_source(
    "jax/_src/interpreters/mlir.py:898, 2616-2617,jax/_src/core.py:3",
    "spec.lspec:8")
assert kind == "lines", kind
assert items == [("jax/_src/interpreters/mlir.py", [(898, 898), (2616, 2617)]),
                 ("jax/_src/core.py", [(3, 3)])], items
EOF

# 3. The command, offline, on the pinned release.
"$PY" "$TOOL" "$V" --offline --random 200 --out "$tmp/out" --lctx "$LCTX" \
  >"$tmp/release.out" 2>&1
code=$?
[ "$code" -eq 0 ] || fail "jax_release.py $V exited $code: $(tail -20 "$tmp/release.out")"
out=$tmp/release.out
for step in "1 (requirements)" "2 (install)" "3 (source)" "4 (matrix)" "5 (drafts)"; do
  grep -qF "jax-release $V: step $step" "$out" || fail "step $step not run"
done
unit() { # NAME STATE: NAME's line in the table says STATE against the model
  grep -Eq "^ +$1 +$2 " "$out" ||
    fail "$1 is not reported $2 against the modelled commit: $(grep -E "^ +$1 " "$out")"
}
unit 'ModuleContext \(class body\)' changed
unit 'lower_per_platform' changed
unit 'lower_fun' changed
unit '_init_backend' changed
unit 'register_lowering' unchanged
unit 'ModuleContext\.get_backend' unchanged
unit 'canonicalize_platform' unchanged
unit 'backends' unchanged
differ=$(grep '^  differ from the modelled commit: ' "$out")
case "$differ" in *register_lowering*) fail "register_lowering listed: $differ" ;; esac
rows=$(grep '^  rows whose cited units differ from the modelled commit: ' "$out")
for r in "LP-001 (lower_per_platform)" "MG-004 (lower_per_platform, lower_fun)" \
  "LP-007 (lower_fun)" "RG-002 (_init_backend)"; do
  case "$rows" in *"$r"*) ;; *) fail "rows: $r not named: $rows" ;; esac
done
case "$rows" in *RL-00*) fail "rows: the register_lowering rows named: $rows" ;; esac
grep -q '^  module-level register_backend_factory calls in jax/_src/xla_bridge.py: cpu (priority 0, line [0-9]*), tpu (priority 300, fail_quietly, line [0-9]*)$' "$out" ||
  fail "the stock factories: $(grep -A1 'register_backend_factory calls' "$out")"
grep -q '^    against the modelled commit: the same$' "$out" ||
  fail "the factories differ from the modelled commit's"
grep -q "^  as itself (--jax $V): pass; " "$out" ||
  fail "the matrix cell: $(sed -n '/step 4/,/step 5/p' "$out" | tail -8)"
[ -f "$tmp/out/matrix/matrix.json" ] || fail "no matrix.json in the report folder"
draft=$tmp/out/draft.md
if [ -f "$draft" ]; then
  grep -q '^    releases = .*0\.10\.2' "$draft" || fail "draft: no releases line"
  grep -q "^    CLIENTS\['$V'\] = " "$draft" || fail "draft: no jaxlib_clients.py entry"
  grep -q "^    RELEASE(\"$V\", \"jax-v$V" "$draft" || fail "draft: no release.c row"
  # Its flags: 0.9.2's and the modelled commit's facts as read back from
  # release.c's rows (0.10.2 holds the modelled commit's), F2 not read.
  grep -q "^            MODELLED_FLAGS | CLIENT_GPU_UNREAD),$" "$draft" ||
    fail "draft: the row's flags are not MODELLED_FLAGS | CLIENT_GPU_UNREAD: $(grep -A3 "^    RELEASE(" "$draft")"
  # Its citation table lines: a cell a column. With 0.9.2 installed (the
  # base release whose cited units it compares) F5 is 0.9.2's line moved;
  # without it (a fresh clone has the pinned and newest releases only), the
  # facts come from the modelled commit, cited where 0.10.2 holds them.
  grep -q "^     \*   $V  *[0-9]" "$draft" ||
    fail "draft: no citation table line for $V: $(grep -A3 "release  F1" "$draft")"
  if [ -x "$SRC/build/jax/venv-0.9.2/bin/python" ]; then
    grep -q "^     \*   $V  .* 836  " "$draft" ||
      fail "draft: no citation table line with F5 at 836 (moved from 0.9.2): $(grep -A3 "release  F1" "$draft")"
  else
    grep -q "F5: .*, as at the modelled commit" "$draft" ||
      fail "draft: without 0.9.2, F5 is not cited as at the modelled commit: $(grep 'F5' "$draft")"
  fi
  grep -q '^4\. Rows to re-read:' "$draft" || fail "draft: no rows to re-read"
else
  fail "no draft.md"
fi
for f in report.txt report.json; do
  [ -s "$tmp/out/$f" ] || fail "no $f"
done

# 4. Bad input: clear messages, no traceback.
"$PY" "$TOOL" banana >"$tmp/usage.out" 2>&1
[ $? -eq 2 ] || fail "'banana': exit status not 2: $(cat "$tmp/usage.out")"
grep -q "not a JAX version: 'banana'" "$tmp/usage.out" || fail "'banana': $(cat "$tmp/usage.out")"
"$PY" "$TOOL" 0.0.1 --offline --no-matrix --out "$tmp/none" >"$tmp/none.out" 2>&1
[ $? -eq 1 ] || fail "0.0.1 --offline: exit status not 1"
grep -q '^jax-release: step 1 (requirements) failed: .*jax-0.0.1.txt does not exist' "$tmp/none.out" ||
  fail "0.0.1 --offline: $(cat "$tmp/none.out")"
grep -l 'Traceback (most recent call last)' "$tmp"/*.out >"$tmp/tb" &&
  fail "a traceback in $(cat "$tmp/tb"): $(grep -h -A12 'Traceback (most recent' "$tmp"/*.out | head -30)"

finish_failures "test_jax_release: "
echo "ok: tools/jax_release.py $V: the cited units against the modelled commit, a matrix cell and the drafts; the index's unit check"
