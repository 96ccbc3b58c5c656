#!/bin/sh
# test_report_counts.sh - pins the one count line of `lctx conform` and of
# `lctx report merge`: "T cases (C conformance, D domain, R random; of them
# J judged, S skipped by shard or --ops, U unsupported[, N not reached as
# the run stopped])", its total the sum of its sources and the sum of its
# outcomes, and report.json's `cases` the same: cases = the sum of
# cases_by_source = cases_run + cases_skipped + cases_unsupported +
# cases_not_reached, each equal to the line's. Checked on an implementation
# that lacks lower_per_platform (unsupported cases, with --random), the
# same sharded (skipped by shard) and with --jobs 2 and --ops, a mutant
# stopping at its first failure, and the merge of three shards (whose total
# and judged cases are the unsharded run's).
# Usage: test_report_counts.sh LCTX MUTANT SRC
set -u
LCTX=$1
MUTANT=$2
SRC=$3
. "$(dirname -- "$0")/lib.sh"

# An implementation of every operation but lower_per_platform: the Python
# example over the process protocol, saying so in its hello.
cat >"$tmp/partial.py" <<PYEOF
import json, sys
sys.path.insert(0, "$SRC/tests/impls")
import example_wrap, lctx_example
for line in sys.stdin:
    r = json.loads(line)
    if r.get("lctx") == "hello":
        example_wrap.hello("partial", "1")
    elif r.get("lctx") == "bye":
        break
    else:
        print(json.dumps({"id": r["id"], "results":
                          [lctx_example.run_case(c) for c in r["cases"]]}),
              flush=True)
PYEOF
PARTIAL="$PY $tmp/partial.py"

# sums NAME PREFIX [MIN_UNSUPPORTED MIN_SKIPPED]: the line of $tmp/NAME.out
# starting PREFIX adds up, and so does $tmp/NAME/report.json, with the
# same numbers; at least MIN_UNSUPPORTED unsupported and MIN_SKIPPED
# skipped cases. Prints "TOTAL JUDGED" (the failures on stderr).
sums() {
  "$PY" - "$tmp/$1.out" "$tmp/$1/report.json" "$2" "${3:-0}" "${4:-0}" <<'PYEOF'
import json, re, sys
out, report, prefix, min_u, min_s = sys.argv[1:6]
pat = re.compile(re.escape(prefix) + r"(\d+) cases \((\d+) conformance, "
                 r"(\d+) domain, (\d+) random; of them (\d+) judged, (\d+) "
                 r"skipped by shard or --ops, (\d+) unsupported"
                 r"(?:, (\d+) not reached as the run stopped)?\)(?: |$)")
lines = [l.rstrip("\n") for l in open(out) if l.startswith(prefix)]
m = [pat.match(l) for l in lines]
if len(lines) != 1 or not m[0]:
    print("FAIL: %s: not one count line of the form 'T cases (C conformance, "
          "D domain, R random; of them J judged, S skipped ..., U "
          "unsupported)': %r"
          % (out, lines), file=sys.stderr)
    sys.exit(1)
t, c, d, r, j, s, u, n = (int(x or 0) for x in m[0].groups())
bad = []
if t != c + d + r:
    bad.append("total %d != sources %d+%d+%d" % (t, c, d, r))
if t != j + s + u + n:
    bad.append("total %d != outcomes %d+%d+%d+%d" % (t, j, s, u, n))
if u < int(min_u) or s < int(min_s):
    bad.append("%d unsupported, %d skipped: want at least %s, %s"
               % (u, s, min_u, min_s))
rep = json.load(open(report))
src = rep.get("cases_by_source", {})
want = {"cases": t, "cases_run": j, "cases_skipped": s,
        "cases_unsupported": u, "cases_not_reached": n}
got = {k: rep.get(k) for k in want}
if got != want:
    bad.append("report.json %r, the line %r" % (got, want))
if [src.get(k) for k in ("conformance", "domain", "random")] != [c, d, r]:
    bad.append("report.json cases_by_source %r, the line %r" % (src, (c, d, r)))
for b in bad:
    print("FAIL: %s: %s: %s" % (out, b, lines[0]), file=sys.stderr)
print(t, j)
sys.exit(1 if bad else 0)
PYEOF
}

conform whole --no-domain --cmd "$PARTIAL" --random 1500
[ "$(rc whole)" = 0 ] || fail "the partial implementation: exit $(rc whole): $(tail -3 "$tmp/whole.out")"
whole=$(sums whole "conform: " 1 0) || failures=$((failures + 1))
conform shard --no-domain --cmd "$PARTIAL" --random 1500 --shard 2/3
sums shard "conform: " 1 1 >/dev/null || failures=$((failures + 1))
conform jobs --no-domain --cmd "$PARTIAL" --random 1500 --shard 1/3 --jobs 2
sums jobs "conform: " 1 1 >/dev/null || failures=$((failures + 1))
conform ops --no-domain --cmd "$PARTIAL" --random 300 --ops backends,canonicalize
sums ops "conform: " 0 1 >/dev/null || failures=$((failures + 1))
conform first --no-domain --impl "$MUTANT" --random 3000 --first-failure
[ "$(rc first)" = 1 ] || fail "the mutant with --first-failure: exit $(rc first)"
sums first "conform: " >/dev/null || failures=$((failures + 1))

# The merge of three shards: its line and report.json add up, to the
# unsharded run's total and judged cases.
for k in 1 2 3; do
  conform "s$k" --no-domain --cmd "$PARTIAL" --random 1500 --shard "$k/3"
done
"$LCTX" report merge --out "$tmp/m" "$tmp/s1" "$tmp/s2" "$tmp/s3" \
  >"$tmp/m.out" 2>"$tmp/m.err" || fail "merge: $(cat "$tmp/m.err")"
merged=$(sums m "merged 3 of 3 shards: " 1 0) || failures=$((failures + 1))
[ "$merged" = "$whole" ] ||
  fail "merged total and judged '$merged', the unsharded run's '$whole'"
# A partial merge: the cases of the missing shard are skipped, the line
# still adds up to the whole run's total.
"$LCTX" report merge --partial --out "$tmp/p" "$tmp/s1" "$tmp/s3" \
  >"$tmp/p.out" 2>"$tmp/p.err" || fail "merge --partial: $(cat "$tmp/p.err")"
part=$(sums p "merged 2 of 3 shards: " 1 1) || failures=$((failures + 1))
[ "${part% *}" = "${whole% *}" ] ||
  fail "the partial merge's total ${part% *}, the whole run's ${whole% *}"

finish_failures "test_report_counts: "
echo "test_report_counts: the count lines add up ($whole)"
