#!/bin/sh
# test_report_html_input.sh - `lctx report html` given hostile folders, no
# browser needed:
#   - a results.jsonl or progress.jsonl line longer than LCTX_HTML_MAX_LINE
#     (1 MiB) and a report.json over LCTX_HTML_MAX_JSON_FILE (16 MiB) are
#     left out and named (the page is still written, partial, exit 0);
#   - a report's spec_file is followed only when it is a regular file
#     named *.lspec: a file of another name and a symbolic link named
#     *.lspec are named and not read (the default table is used), a
#     regular *.lspec copy of the table is read;
#   - counts that would overflow a sum (or negative ones) leave the report
#     out, named, and `lctx report merge` refuses them naming the field in
#     the same words (one reader of report.json, report_read.c);
#   - `lctx report help SUB` and `lctx report --help SUB` give SUB's help.
# Usage: test_report_html_input.sh LCTX EXAMPLE_PLUGIN SOURCE_DIR
set -u
LCTX=$1
EXAMPLE=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"

"$LCTX" conform --report-dir "$tmp/r" --quiet --no-domain --impl "$EXAMPLE" \
  --random 100 >"$tmp/r.out" 2>&1 || fail "conform: $(tail -3 "$tmp/r.out")"
n=0
# html DIR...: lctx report html $tmp/pN.html DIR...; $n is N.
html() {
  n=$((n + 1))
  "$LCTX" report html "$tmp/p$n.html" "$@" >"$tmp/p$n.out" 2>"$tmp/p$n.err"
  echo $? >"$tmp/p$n.rc"
}
rc() { cat "$tmp/p$n.rc"; }
said() { grep -qF -- "$1" "$tmp/p$n.err" || fail "html $n: no '$1' in: $(head -c 800 "$tmp/p$n.err")"; }
# copy NAME: a copy of the run as $tmp/NAME.
copy() {
  rm -rf "$tmp/$1"
  cp -r "$tmp/r" "$tmp/$1"
}
# set_field DIR KEY VALUE: report.json's KEY set to the string VALUE.
set_field() {
  "$PY" - "$1/report.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r[sys.argv[2]] = sys.argv[3]
json.dump(r, open(sys.argv[1], "w"))
PY
}

html "$tmp/r"
[ "$(rc)" = 0 ] || fail "a good run: exit $(rc): $(cat "$tmp/p$n.err")"
[ -s "$tmp/p$n.err" ] && fail "a good run: warnings: $(cat "$tmp/p$n.err")"

# Lines over the limit.
copy long
"$PY" - "$tmp/long/results.jsonl" <<'PY'
import json, sys
line = {"source": "random", "index": 1, "name": "random:1", "operation": 0,
        "row": "RG-001", "verdict": "fail", "detail": "d" * (2 << 20)}
open(sys.argv[1], "a").write(json.dumps(line) + "\n")
PY
at=$(wc -l <"$tmp/long/results.jsonl")
html "$tmp/long"
[ "$(rc)" = 0 ] || fail "a long results line: exit $(rc)"
said "long/results.jsonl:$at: longer than 1 MiB, the limit of a line"
mkdir "$tmp/camp"
"$PY" - "$tmp/camp/progress.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for t in (1, 2):
        f.write(json.dumps({"seconds": t, "execs": 10 * t, "corpus": t}) + "\n")
    f.write(json.dumps({"seconds": 3, "pad": "p" * (2 << 20)}) + "\n")
PY
html "$tmp/camp"
[ "$(rc)" = 0 ] || fail "a long progress line: exit $(rc)"
said "camp/progress.jsonl:3: longer than 1 MiB, the limit of a line"
copy big
"$PY" - "$tmp/big/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["padding"] = "x" * (17 << 20)
json.dump(r, open(sys.argv[1], "w"))
PY
html "$tmp/r" "$tmp/big"
[ "$(rc)" = 0 ] || fail "a report.json over 16 MiB: exit $(rc)"
said "big/report.json: over 16 MiB, the most a report.json may hold; not read; left out"
rm -rf "$tmp/big"

# spec_file: only a regular *.lspec file is read.
printf 'not a spec table\n' >"$tmp/garbage.txt"
ln -s "$tmp/garbage.txt" "$tmp/link.lspec"
copy sf1
set_field "$tmp/sf1" spec_file "$tmp/garbage.txt"
html "$tmp/sf1"
[ "$(rc)" = 0 ] || fail "spec_file of another name: exit $(rc): $(cat "$tmp/p$n.err")"
said "its spec_file $tmp/garbage.txt is not read"
copy sf2
set_field "$tmp/sf2" spec_file "$tmp/link.lspec"
html "$tmp/sf2"
[ "$(rc)" = 0 ] || fail "spec_file a symbolic link: exit $(rc): $(cat "$tmp/p$n.err")"
said "its spec_file $tmp/link.lspec is not read"
spec=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["spec_file"])' "$tmp/r/report.json")
cp "$spec" "$tmp/copy.lspec"
copy sf3
set_field "$tmp/sf3" spec_file "$tmp/copy.lspec"
html "$tmp/sf3"
[ "$(rc)" = 0 ] || fail "spec_file a regular .lspec: exit $(rc): $(cat "$tmp/p$n.err")"
[ -s "$tmp/p$n.err" ] && fail "spec_file a regular .lspec: $(cat "$tmp/p$n.err")"
grep -qF "$tmp/copy.lspec" "$tmp/p$n.html" || fail "the page does not name copy.lspec"

# Counts that would overflow a sum (INT64_MAX twice, in a row and at the
# top) or are negative: the report is left out and named, never a crash
# (the test build stops on signed overflow); `lctx report merge` refuses
# such a shard, naming the field.
copy big
"$PY" - "$tmp/big/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["rows"][:2]:
    row["pass"] = row["fail"] = 9223372036854775807
r["cases_run"] = r["cases_skipped"] = 9223372036854775807
json.dump(r, open(sys.argv[1], "w"))
PY
html "$tmp/big" "$tmp/r"
big_err=$tmp/p$n.err
[ "$(rc)" = 0 ] || fail "huge counts: exit $(rc): $(tail -n 5 "$tmp/p$n.err")"
said "big/report.json: field '"
said "is not a count (0 to 2^40): negative or over 1099511627776; left out"
copy neg
"$PY" - "$tmp/neg/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["rows"][0]["pass"] = -5
json.dump(r, open(sys.argv[1], "w"))
PY
html "$tmp/neg"
[ "$(rc)" = 2 ] || fail "a negative count, nothing else: exit $(rc), want 2"
said "neg/report.json: field 'rows[0].pass' is not a count (0 to 2^40)"
"$LCTX" report merge --out "$tmp/merged" "$tmp/big" >"$tmp/m.out" 2>&1
[ $? = 2 ] || fail "merge of a shard with huge counts: not exit 2: $(tail -n 3 "$tmp/m.out")"
grep -q "big/report.json.*a count (0 to 2^40)" "$tmp/m.out" ||
  fail "merge of huge counts: the field is not named: $(tail -n 3 "$tmp/m.out")"
# One reader of report.json: `report html` and `report merge` say the same
# of the same file, word for word.
why=$(sed -n 's/^lctx report html: warning: \(.*big\/report\.json: field .*\); left out$/\1/p' \
  "$big_err" | head -n 1)
[ -n "$why" ] || fail "report html did not name the huge count: $(cat "$big_err")"
grep -qF "lctx report merge: $why" "$tmp/m.out" ||
  fail "report merge and report html read report.json differently: html '$why', merge: $(tail -n 3 "$tmp/m.out")"

# The help of a subcommand.
for how in "help html" "--help html" "help merge"; do
  # shellcheck disable=SC2086 # split on purpose
  "$LCTX" report $how >"$tmp/help.out" 2>&1 || fail "lctx report $how: exit $?"
  grep -q "^usage: lctx report ${how#* }" "$tmp/help.out" ||
    fail "lctx report $how: $(head -3 "$tmp/help.out")"
done

finish_failures "test_report_html_input: "
echo "test_report_html_input: all checks passed"
