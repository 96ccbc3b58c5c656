#!/bin/sh
# test_report_counts.sh - pins the one count line of `lctx conform` and of
# `lctx report merge`: "T cases (C conformance, D domain, R random; of them
# J judged, S skipped by shard or --ops, U unsupported[, N not reached as
# the run stopped])", and report.json's `cases`, `cases_by_source`,
# `cases_run`, `cases_skipped`, `cases_unsupported`, `cases_not_reached`
# equal to the line's; T = C + D + R = J + S + U + N.
# Those sums hold by construction; what a run must reach is required from
# sources lctx does not compute them from:
#   - C is the number of .case files in conformance/cases, R the --random
#     asked, D 0 with --no-domain and else `lctx enumerate --count`;
#   - a whole run (no shard, no --first-failure) reaches every case: N = 0,
#     S = 0, J > 0;
#   - on an implementation that lacks lower_per_platform (the Python
#     example over the process protocol, saying so in its hello) the
#     unsupported conformance cases are the .case files with an `op
#     lower_per_platform` line, and the unsupported cases of a run with
#     random cases are the cases --ops without lower_per_platform skips;
#   - a shard I/N judges or finds unsupported T/N cases (give or take
#     one), with and without --jobs 2; a shard of the domain on a plugin
#     (a mutant of the example plugin, run to its end) likewise;
#   - --first-failure on that mutant stops (exit 1) before the random
#     cases asked are drawn;
#   - the merge of the three shards has the whole run's counts, a partial
#     merge of two the whole run's total, the missing shard's cases
#     skipped.
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
NO_LPP=backends,canonicalize,get_backend,module_get_backend,register_lowering

# What lctx does not compute: the conformance cases, those with a
# lower_per_platform operation, the cases of the bounded domain.
CASES=$(ls "$SRC/conformance/cases" | grep -c '\.case$')
LPP_CASES=$(grep -l '^op lower_per_platform ' "$SRC"/conformance/cases/*.case | wc -l)
DOMAIN=$("$LCTX" enumerate --count | sed -n 's/^\([0-9][0-9]*\) cases in the bounded domain$/\1/p')
[ "$CASES" -gt 50 ] && [ "$LPP_CASES" -gt 0 ] && [ "$LPP_CASES" -lt "$CASES" ] ||
  fail "conformance/cases: $CASES cases, $LPP_CASES with lower_per_platform"
[ "${DOMAIN:-0}" -gt 100000 ] || fail "lctx enumerate --count: '${DOMAIN:-}'"
finish_failures "test_report_counts: "

# counts NAME PREFIX: the line of $tmp/NAME.out starting PREFIX, checked
# against $tmp/NAME/report.json and for its sums; prints "t=T c=C d=D r=R
# j=J s=S u=U n=N" (the failures on stderr, and exit 1).
counts() {
  "$PY" - "$tmp/$1.out" "$tmp/$1/report.json" "$2" <<'PYEOF'
import json, re, sys
out, report, prefix = sys.argv[1:4]
pat = re.compile(re.escape(prefix) + r"(\d+) cases \((\d+) conformance, "
                 r"(\d+) domain, (\d+) random; of them (\d+) judged, (\d+) "
                 r"skipped by shard or --ops, (\d+) unsupported"
                 r"(?:, (\d+) not reached as the run stopped)?\)(?: |$)")
lines = [l.rstrip("\n") for l in open(out) if l.startswith(prefix)]
m = [pat.match(l) for l in lines]
if len(lines) != 1 or not m[0]:
    print("FAIL: %s: not one count line of the form 'T cases (C conformance, "
          "D domain, R random; of them J judged, S skipped ..., U "
          "unsupported)': %r" % (out, lines), file=sys.stderr)
    sys.exit(1)
t, c, d, r, j, s, u, n = (int(x or 0) for x in m[0].groups())
bad = []
if t != c + d + r:
    bad.append("total %d != sources %d+%d+%d" % (t, c, d, r))
if t != j + s + u + n:
    bad.append("total %d != outcomes %d+%d+%d+%d" % (t, j, s, u, n))
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
print("t=%d c=%d d=%d r=%d j=%d s=%d u=%d n=%d" % (t, c, d, r, j, s, u, n))
sys.exit(1 if bad else 0)
PYEOF
}

# need NAME PREFIX CHECK...: reads the counts of run NAME (counts NAME
# PREFIX) into t c d r j s u n; each CHECK, a shell arithmetic condition
# over them (e.g. 'n == 0'), must hold.
need() {
  name=$1 prefix=$2
  shift 2
  t=-1 c=-1 d=-1 r=-1 j=-1 s=-1 u=-1 n=-1
  got=$(counts "$name" "$prefix") || failures=$((failures + 1))
  eval "$got"
  for check in "$@"; do
    [ $(($check)) -eq 1 ] ||
      fail "$name: not $check: $(grep "^$prefix" "$tmp/$name.out")"
  done
}
# The shard rule: a shard of N runs T/N cases, give or take one.
share() { echo "$1 * (j + u) >= t - $1 && $1 * (j + u) <= t + $1"; }

# A whole run: every case reached, the sources as asked, the unsupported
# cases those --ops without lower_per_platform skips (next run).
conform whole --no-domain --cmd "$PARTIAL" --random 1500
[ "$(rc whole)" = 0 ] || fail "the partial implementation: exit $(rc whole): $(tail -3 "$tmp/whole.out")"
need whole "conform: " "c == $CASES" "d == 0" "r == 1500" "n == 0" "s == 0" \
  "j > 0" "u > 0"
whole_j=$j whole_u=$u whole_t=$t
conform ops --no-domain --cmd "$PARTIAL" --random 1500 --ops "$NO_LPP"
need ops "conform: " "t == $whole_t" "s == $whole_u" "j == $whole_j" "u == 0" \
  "n == 0"
conform ops2 --no-domain --cmd "$PARTIAL" --random 300 --ops backends,canonicalize
need ops2 "conform: " "r == 300" "c == $CASES" "s > 0" "j > 0" "n == 0"
# The conformance cases alone: the unsupported ones are those with a
# lower_per_platform operation.
conform cases --no-domain --cmd "$PARTIAL" --random 0
need cases "conform: " "t == $CASES" "u == $LPP_CASES" "j == $CASES - $LPP_CASES" \
  "s == 0" "n == 0"

# Shards, with and without --jobs 2: a third of the cases each.
conform shard --no-domain --cmd "$PARTIAL" --random 1500 --shard 2/3
need shard "conform: " "t == $whole_t" "n == 0" "u > 0" "$(share 3)"
conform jobs --no-domain --cmd "$PARTIAL" --random 1500 --shard 1/3 --jobs 2
need jobs "conform: " "t == $whole_t" "n == 0" "u > 0" "$(share 3)"
# A shard of the domain on a plugin, run to its end (it fails some cases).
conform domain --impl "$MUTANT" --random 100 --shard 7/40
[ "$(rc domain)" = 1 ] || fail "the mutant over a domain shard: exit $(rc domain)"
need domain "conform: " "c == $CASES" "d == $DOMAIN" "r == 100" "n == 0" \
  "u == 0" "$(share 40)"
# --first-failure stops: the conformance cases first, then fewer random
# cases drawn than asked (a case drawn and not offered is not reached).
conform first --no-domain --impl "$MUTANT" --random 3000 --first-failure
[ "$(rc first)" = 1 ] || fail "the mutant with --first-failure: exit $(rc first)"
need first "conform: " "c == $CASES" "r < 3000" "j > 0" "s == 0"

# The merge of three shards: the whole run's counts.
for k in 1 2 3; do
  conform "s$k" --no-domain --cmd "$PARTIAL" --random 1500 --shard "$k/3"
done
"$LCTX" report merge --out "$tmp/m" "$tmp/s1" "$tmp/s2" "$tmp/s3" \
  >"$tmp/m.out" 2>"$tmp/m.err" || fail "merge: $(cat "$tmp/m.err")"
need m "merged 3 of 3 shards: " "t == $whole_t" "j == $whole_j" \
  "u == $whole_u" "s == 0" "n == 0"
# A partial merge: the cases of the missing shard are skipped.
"$LCTX" report merge --partial --out "$tmp/p" "$tmp/s1" "$tmp/s3" \
  >"$tmp/p.out" 2>"$tmp/p.err" || fail "merge --partial: $(cat "$tmp/p.err")"
s2_run=$(($(report_field "$tmp/s2" - cases_run) + $(report_field "$tmp/s2" - cases_unsupported)))
need p "merged 2 of 3 shards: " "t == $whole_t" "s == $s2_run" "n == 0" "j > 0"

finish_failures "test_report_counts: "
echo "test_report_counts: the counts add up and reach what they must ($whole_t cases: $CASES conformance + 1500 random; $whole_j judged, $whole_u unsupported; domain $DOMAIN)"
