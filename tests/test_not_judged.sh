#!/bin/sh
# test_not_judged.sh - a fact the spec table says was not read at a release
# (client-gpu after the modelled commit: jaxlib's py_client.h is in no
# readable source) leaves the cases that depend on it not judged there,
# counted and listed, never guessed and never a refusal of the run:
#   1. the example plugin (which behaves as the modelled commit) judged as
#      JAX 0.12.1: report.json counts the cases not judged, names the fact,
#      why and the rows; the summary says so; the count line adds up
#      (judged + not judged = total); its only failures are IR-002's (its
#      modules keep the nested dispatch JAX 0.12.1 dropped), traced to
#      that change;
#   2. judged as 0.11.0 (where the fact was read) nothing is left out;
#   (and the HTML page of the run counts them, its count line adding up);
#   3. two shards merged (lctx report merge) count what the unsharded run
#      counts: the same cases not judged, no case counted as skipped.
#
# Usage: test_not_judged.sh LCTX EXAMPLE_PLUGIN
set -u
LCTX=$1
PLUGIN=$2
. "$(dirname "$0")/lib.sh"

run() { # DIR ARGS...: conform into $tmp/DIR, output in $tmp/DIR.txt
  d=$1
  shift
  "$LCTX" conform --impl "$PLUGIN" --no-domain --random 3000 \
    --report-dir "$tmp/$d" "$@" >"$tmp/$d.txt" 2>&1
  echo $? >"$tmp/$d.rc"
}

run at121 --jax 0.12.1
[ "$(cat "$tmp/at121.rc")" = 1 ] || { cat "$tmp/at121.txt"; fail "as 0.12.1: exit $(cat "$tmp/at121.rc"), expected 1 (IR-002)"; }
nj=$(report_field "$tmp/at121" - cases_not_judged)
[ "$nj" -gt 0 ] || fail "as 0.12.1: no case not judged"
$PY - "$tmp/at121/report.json" <<'PYEOF' || fail "as 0.12.1: report.json's not_judged"
import json, sys
r = json.load(open(sys.argv[1]))
nj = r["not_judged"]
assert nj["fact"] == "client-gpu", nj
assert "py_client.h" in nj["why"], nj
rows = [x["id"] for x in r["rows"] if x.get("not_judged")]
assert rows and rows == nj["rows"], (rows, nj["rows"])
src = sum(r["cases_by_source"].values())
assert r["cases_run"] + r["cases_not_judged"] + r["cases_skipped"] \
    + r["cases_unsupported"] == src, r
assert r["cases_not_reached"] == 0, r
failing = [x["id"] for x in r["rows"] if x.get("fail")]
assert failing == ["IR-002"], failing
ir2 = [x for x in r["rows"] if x["id"] == "IR-002"][0]
assert ir2["drift_explained"] == ir2["fail"], ir2
assert "dispatch_module_platforms (F12) changed in jax-v0.12.1" in ir2["drift"], ir2
PYEOF
grep -q "not judged at this release" "$tmp/at121.txt" ||
  fail "as 0.12.1: the count line does not say what was not judged"
grep -q "^not judged: $nj cases need fact client-gpu" "$tmp/at121.txt" ||
  fail "as 0.12.1: no 'not judged' summary line"

# The HTML page counts them too: its count line adds up.
"$LCTX" report html "$tmp/page.html" "$tmp/at121" >"$tmp/html.txt" 2>&1 ||
  fail "report html: $(cat "$tmp/html.txt")"
grep -q "$nj not judged at this release" "$tmp/page.html" ||
  fail "report html: the cases not judged are not counted"
if grep -q "do not add up" "$tmp/page.html"; then
  fail "report html: the counts of a run with cases not judged do not add up"
fi

run at110 --jax 0.11.0
[ "$(cat "$tmp/at110.rc")" = 0 ] || fail "as 0.11.0: exit $(cat "$tmp/at110.rc")"
[ "$(report_field "$tmp/at110" - cases_not_judged)" = 0 ] ||
  fail "as 0.11.0, where client-gpu was read, cases were left out"

run s1 --jax 0.12.1 --shard 1/2
run s2 --jax 0.12.1 --shard 2/2
"$LCTX" report merge "$tmp/s1" "$tmp/s2" --out "$tmp/merged" >"$tmp/merge.txt" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/merge.txt"; fail "report merge: exit $rc, expected 1 (IR-002)"; }
[ "$(report_field "$tmp/merged" - cases_not_judged)" = "$nj" ] ||
  fail "merged: $(report_field "$tmp/merged" - cases_not_judged) not judged, unsharded $nj"
[ "$(report_field "$tmp/merged" - cases_skipped)" = 0 ] ||
  fail "merged: not-judged cases counted as skipped"
[ "$(report_field "$tmp/merged" '*' not_judged)" = "$(report_field "$tmp/at121" '*' not_judged)" ] ||
  fail "merged: the rows' not_judged differ from the unsharded run's"

finish_failures "test_not_judged: "
echo "test_not_judged: $nj cases not judged as 0.12.1, counted, listed and merged"
