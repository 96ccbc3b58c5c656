#!/bin/sh
# test_sweep_jobs.sh - `lctx sweep --jobs N` against tests/sweep_fake.py (a
# real process with fixed answers, no JAX):
#   1. the whole fake catalogue (findings, minimized; hostile programs that
#      answer garbage, hang, die or send a wrong id) at --jobs 1 and at
#      --jobs 3: stdout, results.jsonl, the reports, reach.json and every
#      finding's files are the same bytes apart from times and the out
#      folder's name, and each hostile case is marked on its own;
#   2. a --jobs 3 run stopped by SIGINT, then resumed at --jobs 2, gives the
#      results.jsonl of the whole run at --jobs 1;
#   3. --jobs 0, x or given twice: exit 2, the option named.
# Usage: test_sweep_jobs.sh LCTX SOURCE_DIR
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
SRC=$2
FAKE="$PY $SRC/tests/sweep_fake.py"
none=$tmp/no-known
mkdir -p "$none"

sweep() { # sweep OUT JOBS [ARGS...]: the whole catalogue, 3 lists
  out=$1
  jobs=$2
  shift 2
  "$LCTX" sweep --cmd "$FAKE" --known "$none" --out "$tmp/$out" --lists 3 \
    --timeout 1 --quiet --jobs "$jobs" "$@" >"$tmp/$out.out" 2>"$tmp/$out.err"
}

# Every file of run A against run B (and stdout), times and the folder's
# name taken out.
same() { # same A B
  $PY - "$tmp" "$1" "$2" <<'EOF'
import os, re, sys
tmp, a, b = sys.argv[1:]
def norm(text, name):
    text = text.replace(os.path.join(tmp, name), "OUT")
    text = re.sub(r"exports in [0-9.]+ s \([0-9.]+ exports/s\)", "exports", text)
    text = re.sub(r'"(seconds|first_failure_seconds)": [0-9.e+-]+', r'"\1": T', text)
    text = re.sub(r'time="[0-9.]+"', 'time="T"', text)
    text = re.sub(r"# .*seconds.*", "# T", text)
    # Each run its own random id and key (the seal of results.jsonl).
    text = re.sub(r'"run_id": ?"[0-9a-f]{32}"', '"run_id": "R"', text)
    text = re.sub(r'"hmac_sha256": "[0-9a-f]{64}"', '"hmac_sha256": "H"', text)
    return text
def files(name):
    root = os.path.join(tmp, name)
    found = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f in ("implementation.log", ".lock"):  # .lock: the run's pid
                continue
            p = os.path.join(d, f)
            found[os.path.relpath(p, root)] = norm(open(p, errors="replace").read(), name)
    found["stdout"] = norm(open(root + ".out").read(), name)
    return found
fa, fb = files(a), files(b)
bad = sorted(set(fa) ^ set(fb))
bad += [k for k in sorted(set(fa) & set(fb)) if fa[k] != fb[k]]
if bad:
    print("differ: " + ", ".join(bad))
    for k in bad[:3]:
        if k in fa and k in fb:
            la, lb = fa[k].splitlines(), fb[k].splitlines()
            for x, y in zip(la, lb):
                if x != y:
                    print("  %s:\n    %s\n    %s" % (k, x[:200], y[:200]))
                    break
    sys.exit(1)
print("same: %d files" % len(fa))
EOF
}

# 1. --jobs 1 and --jobs 3 on the whole catalogue.
sweep j1 1
rc1=$?
sweep j3 3
rc3=$?
[ "$rc1" -eq 1 ] && [ "$rc3" -eq 1 ] || fail "exit $rc1 and $rc3 (want 1: findings)"
grep -q "result: 4 new findings" "$tmp/j3.out" ||
  fail "--jobs 3: $(tail -n 1 "$tmp/j3.out") (want 4 new findings)"
same j1 j3 || fail "--jobs 3 differs from --jobs 1"
$PY - "$tmp/j3/results.jsonl" <<'EOF' || fail "--jobs 3: hostile verdicts are not on their own cases"
import json, sys
by = {}
for j in [json.loads(l) for l in open(sys.argv[1])][1:]:
    by.setdefault(j["program"], set()).update(v["verdict"] for v in j["verdicts"])
bad = [p for p in ("hostile/garbage", "hostile/die", "hostile/wrong-id")
       if "crash" not in by.get(p, ())]
bad += [] if "timeout" in by.get("hostile/hang", ()) else ["hostile/hang"]
bad += [p for p in ("good/add", "good/mul") if by.get(p) != {"pass"}]
assert not bad, (bad, by)
EOF

# 2. Stopped at --jobs 3, resumed at --jobs 2: the whole run's lines.
interrupt_after 2 "$tmp/i.out" "$LCTX" sweep --cmd "$FAKE" --known "$none" \
  --out "$tmp/i" --lists 3 --timeout 1 --quiet --jobs 3
cut=$(($(wc -l <"$tmp/i/results.jsonl") - 1))
all=$(($(wc -l <"$tmp/j1/results.jsonl") - 1))
[ "$cut" -lt "$all" ] || fail "the run was not cut short ($cut of $all cases)"
sweep i 2
rc=$?
[ "$rc" -eq 1 ] || fail "resumed: exit $rc (want 1: findings)"
grep -q "$all cases ($cut resumed)" "$tmp/i.out" ||
  fail "resumed: $(head -n 1 "$tmp/i.out") (want $all cases, $cut resumed)"
sed 's/"run_id":"[0-9a-f]*"/"run_id":"R"/' "$tmp/i/results.jsonl" >"$tmp/i.lines"
sed 's/"run_id":"[0-9a-f]*"/"run_id":"R"/' "$tmp/j1/results.jsonl" >"$tmp/j1.lines"
cmp -s "$tmp/i.lines" "$tmp/j1.lines" ||
  fail "the resumed results.jsonl differs from the whole run's at --jobs 1"

# 3. Bad values.
for bad in 0 x; do
  "$LCTX" sweep --cmd "$FAKE" --jobs "$bad" >"$tmp/b.out" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || fail "--jobs $bad: exit $rc (want 2)"
  grep -q -- "--jobs: '$bad'" "$tmp/b.out" || fail "--jobs $bad is not named"
done
"$LCTX" sweep --cmd "$FAKE" --jobs 1 --jobs 2 >"$tmp/b.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "--jobs twice: exit $rc (want 2)"
grep -q -- "--jobs is given more than once" "$tmp/b.out" || fail "--jobs twice is not said"

finish_failures "test_sweep_jobs: "
echo PASS
