#!/bin/sh
# test_report_html.sh - pins `lctx report html` in a real browser (headless
# Chromium): a page built from the example plugin, the Python example (a
# process), a mutant of the example plugin (and its two shards merged), an
# implementation whose name and messages hold markup, quotes and a control
# byte, and a campaign (the libFuzzer mutant of fuzz_model: plots and findings) and a sweep of
# tests/sweep_fake.py (lctx sweep: hostile answers, escape bytes in its
# texts) renders with no console error; its DOM holds one row per spec row
# and one column per run; the mutant's failing cells open their first
# failing case with expected and actual; the hostile texts are text, never
# markup; at the top, a verdict per run (PASS, FAIL ... with its counts
# adding up); each cell's counts read "N of M"; a failing cell's rerun
# line is shown, selected whole by a click; no passing cell shows a
# failure colour (computed styles, tests/report_html_probe.html). The
# sweep is shown against its own table (no warning beside
# conform runs): its programs by platform-list length, every program with
# a non-pass verdict, its reach, and no raw ESC byte; a sweep's verdict
# counts report.json's "cases" (a sweep's cases have no source) and adds
# up; a merged sweep is labelled merged, not "shard 1 of 2"; the campaign's "spec rows hit" plot says "H of R" and
# the page names the rows it missed. Bad input: a missing
# folder, a truncated report.json and a malformed results.jsonl line of a
# sweep are named on stderr, the page is still written (exit 0) and marked
# partial; nothing usable is exit 2. A screenshot is saved as SCREENSHOT.
# Chromium missing fails the test, unless LCTX_BROWSER=off (exit 77, said).
# Usage: test_report_html.sh LCTX EXAMPLE_PLUGIN MUTANT SRC SCREENSHOT
#        FUZZ_MODEL_MUTANT (a libFuzzer build with findings)
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX EXAMPLE MUTANT SRC SHOT FUZZ_MUTANT -- "$@"
if [ "${LCTX_BROWSER:-}" = off ]; then
  echo "SKIPPED: LCTX_BROWSER=off: the HTML report is NOT tested in a browser"
  exit 77
fi
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "FAIL: chromium is not installed (tools/install-deps.sh installs it;"
  echo "      LCTX_BROWSER=off skips this test)"
  exit 1
fi
chrome() {
  "$CHROMIUM" --headless=new --disable-gpu --no-sandbox --no-first-run \
    --user-data-dir="$tmp/profile" "$@"
}

# The hostile implementation: the Python example, with markup, quotes and
# a control byte in its name and in every message it raises.
HOSTILE='<script>document.title="owned"</script></td><td>'"'q'"
cat >"$tmp/hostile_impl.py" <<PYEOF
import sys
sys.path.insert(0, "$SRC/tests/impls")
import example_wrap
WORD = '<script>document.title="owned"</script></td><td>' + "'q'"
example_wrap.serve("hostile " + WORD, "1</th>", WORD + " \x01 end")
PYEOF

conform example --no-domain --impl "$EXAMPLE" --random 300
conform python --no-domain --cmd "$PY $SRC/conformance/examples/python/lctx_example.py" \
  --random 100
conform mutant --no-domain --impl "$MUTANT" --random 300
conform hostile --no-domain --cmd "$PY $tmp/hostile_impl.py" --random 0
for r in example python; do
  [ "$(cat "$tmp/$r.rc")" = 0 ] || fail "conform $r: exit $(cat "$tmp/$r.rc")"
done
[ "$(cat "$tmp/mutant.rc")" = 1 ] || fail "the mutant passes: no failing rows"
[ "$(cat "$tmp/hostile.rc")" = 1 ] || fail "the hostile run passes"
# The mutant's run in two shards, merged: a report merge keeps the rerun
# lines the page shows.
for k in 1 2; do
  conform "mutant$k" --no-domain --impl "$MUTANT" --random 300 --shard "$k/2"
done
"$LCTX" report merge --out "$tmp/merged" "$tmp/mutant1" "$tmp/mutant2" \
  >"$tmp/merge.out" 2>&1
[ $? = 1 ] || fail "the merged mutant shards: not exit 1: $(tail -3 "$tmp/merge.out")"

# A campaign of the libFuzzer mutant of fuzz_model (it has findings): its
# progress.jsonl holds points, its findings their keys.
c=$tmp/campaign
mkdir -p "$tmp/cwd"
[ -x "$FUZZ_MUTANT" ] || fail "$FUZZ_MUTANT is not built (the test preset builds it)"
(cd "$tmp/cwd" && "$LCTX" fuzz --engine libfuzzer --target fuzz_model \
  --time 3 --out "$c" --binary "$FUZZ_MUTANT") >"$tmp/fuzz.out" 2>&1
[ "$(grep -c '"execs_per_sec"' "$c/progress.jsonl" 2>/dev/null)" -ge 2 ] ||
  fail "the campaign recorded fewer than 2 progress points"
findings=$(ls "$c"/findings/*/key.txt 2>/dev/null | wc -l)
[ "$findings" -ge 1 ] || fail "the mutant campaign has no finding"

# A JAX version matrix as tools/jax_matrix.py writes it.
mkdir "$tmp/matrix"
cat >"$tmp/matrix/matrix.json" <<'JEOF'
{"versions": [{"version": "0.4.30", "status": "ok"},
              {"version": "0.5.0", "status": "ok"}],
 "rows": [{"id": "RG-001", "cells": {"0.4.30": {"status": "pass"},
                                     "0.5.0": {"status": "pass"}}},
          {"id": "RG-002", "cells": {"0.4.30": {"status": "pass"},
                                     "0.5.0": {"status": "fail",
                                               "first": "random case 7: <i>x</i>"}}}]}
JEOF

# A sweep of tests/sweep_fake.py (it has findings and hostile answers).
sw=$tmp/sweep
mkdir -p "$tmp/no-known"
"$LCTX" sweep --cmd "$PY $SRC/tests/sweep_fake.py" --out "$sw" --timeout 1 \
  --known "$tmp/no-known" --lists 2 --quiet >"$tmp/sweep.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "the fake sweep: exit $rc, want 1: $(tail -3 "$tmp/sweep.out")"
[ -s "$sw/report.json" ] && [ -s "$sw/results.jsonl" ] && [ -s "$sw/reach.json" ] ||
  fail "the fake sweep wrote no report.json, results.jsonl or reach.json"
# The programs with a non-pass verdict, from results.jsonl.
"$PY" - "$sw/results.jsonl" >"$tmp/sweep.failing" <<'PYEOF'
import json, sys
seen = []
for k, line in enumerate(open(sys.argv[1])):
    j = json.loads(line)
    if k and any(v["verdict"] != "pass" for v in j["verdicts"]) and \
            j["program"] not in seen:
        seen.append(j["program"])
print("\n".join(seen))
PYEOF
[ "$(wc -l <"$tmp/sweep.failing")" -ge 5 ] ||
  fail "the fake sweep has fewer than 5 failing programs"
ESC=$(printf '\033')
# The bad programs' sweep in two shards merged: the page counts a sweep
# by report.json's "cases" (a sweep's cases have no source) and labels a
# merge as one run.
for k in 1 2; do
  "$LCTX" sweep --cmd "$PY $SRC/tests/sweep_fake.py --only-kind bad" \
    --out "$tmp/swsh$k" --known "$tmp/no-known" --lists 2 --quiet \
    --no-minimize --shard "$k/2" >"$tmp/swsh$k.out" 2>&1
done
"$LCTX" report merge --out "$tmp/swmerged" "$tmp/swsh1" "$tmp/swsh2" \
  >"$tmp/swmerge.out" 2>&1
[ $? = 1 ] || fail "the merged sweep shards: not exit 1: $(tail -3 "$tmp/swmerge.out")"

page=$tmp/page.html
"$LCTX" report html "$page" "$tmp/example" "$tmp/python" "$tmp/mutant" \
  "$tmp/hostile" "$tmp/merged" "$c" "$tmp/matrix" "$sw" "$tmp/swmerged" \
  >"$tmp/html.out" 2>"$tmp/html.err"
rc=$?
[ "$rc" = 0 ] || fail "report html: exit $rc: $(cat "$tmp/html.err")"
[ -s "$tmp/html.err" ] && fail "report html: warnings on whole input: $(cat "$tmp/html.err")"
grep -q 'id="partial"' "$page" && fail "a whole page is marked partial"
grep -Eq '<(script|link|img|iframe)|https?://' "$page" &&
  fail "the page has a script or an external resource"
[ "$(grep -o '<svg class="plot"' "$page" | wc -l)" = 4 ] ||
  fail "the campaign has not its 4 plots"
[ "$(grep -o '<tr><td>fuzz_model' "$page" | wc -l)" = "$findings" ] ||
  fail "the page does not list the campaign's $findings finding(s)"
grep -q 'lctx replay --target fuzz_model' "$page" ||
  fail "the findings' reproduce commands are missing"
[ "$(grep -o '<tr class="matrix-row">' "$page" | wc -l)" = 2 ] &&
  [ "$(grep -o '<th class="version">' "$page" | wc -l)" = 2 ] ||
  fail "the JAX version matrix is not 2 rows by 2 versions"
grep -q 'random case 7: &lt;i&gt;x&lt;/i&gt;' "$page" ||
  fail "the matrix's failing cell does not show its first failure as text"
# The sweep: its rows against its own table, the programs by list length,
# the failing programs, the reach; its escape bytes as text.
grep -q 'sweep table [^<]*jax-sweep.lspec' "$page" ||
  fail "the page does not name the sweep table"
[ "$(grep -o '<tr class="sweep-row"' "$page" | wc -l)" = \
  "$(grep -c '^\[SW-' "$SRC/conformance/spec/jax-sweep.lspec")" ] ||
  fail "the sweep scoreboard has not one row per sweep row"
grep -q '<table class="sweep-groups">' "$page" &&
  grep -q '<th class="sweep-len">2 platforms</th>' "$page" &&
  grep -q '<th class="sweep-len">3 platforms</th>' "$page" ||
  fail "no programs x platform-list length table with columns 2 and 3"
for g in good bad hostile; do
  grep -q "<tr class=\"sweep-group\"><th>$g</th>" "$page" ||
    fail "the programs view has no row for the group $g"
done
grep -q '<tr class="sweep-group"><th>good</th><td class="cell c-pass"' "$page" ||
  fail "the good programs do not pass"
while read -r prog; do
  grep -q "<tr class=\"sweep-program\"><th>$prog<" "$page" ||
    fail "the failing program $prog is not listed"
done <"$tmp/sweep.failing"
sed -n '/<h3>sweep 1: /,/<\/section>/p' "$page" >"$tmp/sweep1.html"
[ "$(grep -o '<tr class="sweep-program">' "$tmp/sweep1.html" | wc -l)" = \
  "$(wc -l <"$tmp/sweep.failing")" ] ||
  fail "the failing programs' table lists a program that did not fail"
# The merged sweep is one run, not its first shard.
sed -n '/<h3>sweep 2: /,/<\/section>/p' "$page" >"$tmp/sweep2.html"
grep -q ' program(s), the whole plan;' "$tmp/sweep2.html" ||
  fail "the merged sweep is not said merged: $(grep -o 'program(s), [^;]*' "$tmp/sweep2.html")"
grep -q 'shard 1 of 2' "$tmp/sweep2.html" && fail "the merged sweep is labelled shard 1 of 2"
grep -q ' program(s), the whole plan;' "$tmp/sweep1.html" ||
  fail "an unsharded sweep is not said to be the whole plan"
grep -q 'SW-001 TypeError at jax/_src/interpreters/mlir.py:2562</pre>' "$page" ||
  fail "a failing verdict does not open its key"
grep -q '1 of 3 lowering primitives reached' "$page" &&
  grep -q '<li>never_reached</li>' "$page" ||
  fail "the reach (1 of 3, never_reached not reached) is missing"
LC_ALL=C grep -q "$ESC" "$page" && fail "a raw ESC byte is in the page"
grep -q 'cannot run \\x1b\[1mthis' "$page" ||
  fail "the escape bytes of a hostile answer are not shown as \\x1b"
rows=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' \
  "$tmp/example/report.json")

# The browser: console errors, the DOM, a screenshot.
chrome --enable-logging=stderr --v=0 --dump-dom "file://$page" \
  >"$tmp/dom.html" 2>"$tmp/chrome.log"
[ -s "$tmp/dom.html" ] || fail "chromium dumped no DOM: $(tail -5 "$tmp/chrome.log")"
grep -iE 'CONSOLE|Uncaught' "$tmp/chrome.log" >"$tmp/console.log" &&
  fail "console messages: $(head -5 "$tmp/console.log")"
# The computed styles, read by tests/report_html_probe.html beside the page.
cp "$SRC/tests/report_html_probe.html" "$tmp/probe.html"
chrome --allow-file-access-from-files --virtual-time-budget=10000 \
  --dump-dom "file://$tmp/probe.html" >"$tmp/probe.dom" 2>"$tmp/probe.log"
"$PY" "$SRC/tests/report_html_dom.py" --campaign-state "$c/state.json" \
  --sweep-report "$sw/report.json" --sweep-report "$tmp/swmerged/report.json" \
  "$tmp/dom.html" "$rows" 5 3 4 \
  "$HOSTILE" "$tmp/probe.dom" 5 || fail "the DOM checks failed"
mkdir -p "$(dirname -- "$SHOT")"
rm -f "$SHOT"
chrome --screenshot="$SHOT" --window-size=1400,2000 --hide-scrollbars \
  "file://$page" >"$tmp/shot.log" 2>&1
[ -s "$SHOT" ] || fail "no screenshot: $(tail -5 "$tmp/shot.log")"
echo "screenshot: $SHOT"

# Bad input: a missing folder, a truncated report.json and a report of
# another spec version: named, the page
# written and marked partial, exit 0; nothing usable: exit 2, no page.
mkdir "$tmp/cut"
head -c 300 "$tmp/mutant/report.json" >"$tmp/cut/report.json"
mkdir "$tmp/other"
sed 's/"spec_version": *"[^"]*"/"spec_version": "9.9.9"/' \
  "$tmp/mutant/report.json" >"$tmp/other/report.json"
"$LCTX" report html "$tmp/partial.html" "$tmp/example" "$tmp/nowhere" \
  "$tmp/cut" "$tmp/other" >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
[ "$rc" = 0 ] || fail "partial page: exit $rc, want 0"
grep -q "$tmp/nowhere: no such folder" "$tmp/p.err" ||
  fail "the missing folder is not named: $(cat "$tmp/p.err")"
grep -q "$tmp/cut/report.json:[0-9]*:[0-9]*:" "$tmp/p.err" ||
  fail "the truncated report.json is not named with line and column"
grep -q "$tmp/other/report.json: a report of spec version 9.9.9" "$tmp/p.err" ||
  fail "the report of another spec version is not named"
grep -q 'id="partial"' "$tmp/partial.html" || fail "the page is not marked partial"
[ "$(grep -c 'class="run"' "$tmp/partial.html")" = 1 ] ||
  fail "the partial page does not show the sound run alone"
# A sweep alone, with a malformed results.jsonl line (and one over 64
# KiB): the line named and skipped, the rest shown, exit 0, partial.
cp -r "$sw" "$tmp/swbad"
{
  head -n 2 "$sw/results.jsonl"
  echo '{"case": 99, "program": "<b>x</b>", "platforms": "cpu"'
  head -c 70000 /dev/zero | tr '\0' x
  echo
  tail -n +3 "$sw/results.jsonl"
} >"$tmp/swbad/results.jsonl"
"$LCTX" report html "$tmp/sweep.html" "$tmp/swbad" >"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
[ "$rc" = 0 ] || fail "sweep with a malformed line: exit $rc, want 0"
grep -q "$tmp/swbad/results.jsonl: 2 malformed line(s) skipped, the first at line 3" \
  "$tmp/s.err" || fail "the malformed results.jsonl line is not named: $(cat "$tmp/s.err")"
grep -q 'id="partial"' "$tmp/sweep.html" ||
  fail "the sweep page with a malformed line is not marked partial"
grep -q 'id="scoreboard"' "$tmp/sweep.html" &&
  fail "a page of a sweep alone shows the conform scoreboard"
[ "$(grep -o '<tr class="sweep-program">' "$tmp/sweep.html" | wc -l)" = \
  "$(wc -l <"$tmp/sweep.failing")" ] ||
  fail "the sweep page with a malformed line lost failing programs"
LC_ALL=C grep -q "$ESC" "$tmp/sweep.html" && fail "a raw ESC byte is in the sweep page"
"$LCTX" report html "$tmp/none.html" "$tmp/nowhere" "$tmp/cut" \
  >"$tmp/n.out" 2>"$tmp/n.err"
rc=$?
[ "$rc" = 2 ] || fail "nothing usable: exit $rc, want 2"
[ -e "$tmp/none.html" ] && fail "a page was written from nothing usable"
finish_failures "test_report_html: "
echo "test_report_html: ok"
