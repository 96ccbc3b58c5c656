#!/bin/sh
# test_defect_status.sh - the table of JAX releases in each docs/upstream-*.md
# (written by tools/defect_status.py --write) agrees with a fresh run of its
# reproduction under the releases make test installs (RELEASE..., the pinned
# and the newest; those of them installed in build/jax as
# build/jax/venv-VERSION/bin/python), or every installed release when no
# RELEASE is given (each release runs every reproduction: about 3 s a
# report and release, so a machine with the whole matrix installed would
# spend minutes on releases make test does not install):
#   - `tools/defect_status.py --check --releases ...` exits 0 and judges
#     each of those releases in every report; releases of the tables left
#     out are not judged (the check lists them);
#   - the check can fail: a report copied to a temporary folder with the
#     status of the oldest installed release flipped (present <-> fixed,
#     cannot run -> present) makes `--check --docs DIR` exit 1 and name the
#     report and that release;
#   - bad input (an unknown report) exits 2 with a message, no traceback.
# LCTX_JAX=off skips (exit 77), and so does a tree with no JAX installed at
# all (`sh tools/setup-jax.sh 0.10.2` installs the pinned one).
# Usage: test_defect_status.sh SOURCE_DIR [RELEASE...]
set -u
. "$(dirname -- "$0")/lib.sh"
jax_skip_if_off
if [ $# -lt 1 ]; then
  echo "usage: test_defect_status.sh SOURCE_DIR [RELEASE...]" >&2
  exit 2
fi
SRC=$1
shift
TOOL=$SRC/tools/defect_status.py

# The releases judged (RELEASE... that are installed, or every installed
# one), oldest first (numerically: 0.9.2 < 0.10.2).
releases=$(for p in "$SRC"/build/jax/venv-*/bin/python; do
  [ -e "$p" ] || continue
  v=${p%/bin/python}
  v=${v##*/venv-}
  if [ $# -eq 0 ]; then
    echo "$v"
  else
    for want in "$@"; do [ "$want" = "$v" ] && echo "$v"; done
  fi
done | sort -t. -k1,1n -k2,2n -k3,3n -k4,4n)
if [ -z "$releases" ]; then
  echo "SKIPPED: no JAX release ${*:+of $* }is installed (no build/jax/venv-VERSION/bin/python); sh tools/setup-jax.sh 0.10.2 installs the pinned one"
  exit 77
fi
echo "judged: $(echo $releases) (installed: $(ls -d "$SRC"/build/jax/venv-* 2>/dev/null | sed 's|.*/venv-||' | tr '\n' ' '))"
list=$(echo $releases | tr ' ' ,)

# 1. Every table agrees with a fresh run under each of those releases.
"$PY" "$TOOL" --check --releases "$list" >"$tmp/check.out" 2>"$tmp/check.err"
rc=$?
cat "$tmp/check.out"
if [ "$rc" -ne 0 ]; then
  fail "defect_status.py --check exited $rc (want 0)"
  cat "$tmp/check.err"
fi
docs=$(grep -c ': agrees; judged ' "$tmp/check.out")
[ "$docs" -ge 1 ] || fail "--check judged no report"
for v in $releases; do
  n=$(sed -n 's/.*: agrees; judged \(.*\); not judged .*/, \1,/p' \
        "$tmp/check.out" | grep -c -F ", $v,")
  [ "$n" -eq "$docs" ] ||
    fail "JAX $v was judged in $n of the $docs reports (want all)"
done
grep -q "Traceback" "$tmp/check.err" && fail "--check printed a traceback"

# 2. A table with one cell flipped fails the check, naming the release.
doc=upstream-nested-platform-index.md
first=$(echo "$releases" | head -n 1)
mkdir "$tmp/docs"
awk -v r="$first" '
  BEGIN { FS = " \\| "; OFS = " | " }
  $1 == "| " r && !done {
    if ($4 == "present") $4 = "fixed"
    else if ($4 == "fixed") $4 = "present"
    else $4 = "present"
    done = 1
  }
  { print }
  END { if (!done) exit 1 }' "$SRC/docs/$doc" >"$tmp/docs/$doc" ||
  fail "docs/$doc has no row for JAX $first"
cmp -s "$SRC/docs/$doc" "$tmp/docs/$doc" && fail "the flip changed nothing"
"$PY" "$TOOL" --check --docs "$tmp/docs" --releases "$first" \
  >"$tmp/flip.out" 2>"$tmp/flip.err"
rc=$?
[ "$rc" -eq 1 ] || fail "--check of the flipped table exited $rc (want 1)"
grep "^DIFFERS: .*$doc: JAX $first: the table says " "$tmp/flip.out" ||
  { fail "--check of the flipped table did not name $doc and JAX $first"; cat "$tmp/flip.out" "$tmp/flip.err"; }

# 2b. A known defect's "fixed_in" (which lctx sweep's diagnoses name)
# follows its report: dropped from a copy of the regressions, --check names
# it; --write puts it back from the report.
mkdir "$tmp/reg"
cp "$SRC"/conformance/sweep/regressions/*.json "$tmp/reg/"
case=gen-nested-platform-index.json
grep -q '"fixed_in": "' "$tmp/reg/$case" ||
  fail "$case has no fixed_in, though docs/$doc says it is fixed"
sed '/"fixed_in": /d' "$SRC/conformance/sweep/regressions/$case" >"$tmp/reg/$case"
"$PY" "$TOOL" --check --releases "$first" --regressions "$tmp/reg" \
  "$SRC/docs/$doc" >"$tmp/fix.out" 2>"$tmp/fix.err"
rc=$?
[ "$rc" -eq 1 ] || fail "--check of a dropped fixed_in exited $rc (want 1)"
grep -q "^DIFFERS: .*$case: fixed_in is None, its report says '" \
  "$tmp/fix.out" || { fail "--check did not name the dropped fixed_in"; cat "$tmp/fix.out" "$tmp/fix.err"; }

# 3. Bad input: a message and exit 2, never a traceback.
"$PY" "$TOOL" --check "$tmp/no-such-report.md" >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "an unknown report exited $rc (want 2)"
grep -q "no such report" "$tmp/bad.out" || fail "an unknown report gave no message: $(cat "$tmp/bad.out")"
grep -q "Traceback" "$tmp/bad.out" && fail "an unknown report gave a traceback"

finish_failures "test_defect_status: "
echo PASS
