#!/bin/sh
# Real JAX judged by the spec table: `lctx conform` drives the JAX adapter
# (conformance/adapters/jax_adapter.py, whose fake clients behave as the
# installed jaxlib's) on the pinned JAX installed by tools/setup-jax.sh,
# judged as that release behaves (`--jax VERSION`, VERSION read from the
# installed jax). Three runs:
#   1. every conformance case and 10,000 random cases (every row present in
#      the release must be judged: backend selection, register_lowering,
#      lower_per_platform and the IR rows on the modules JAX emits);
#   2. one share of the exhaustive check-spec domain (--shard, below);
#   both must pass with 0 fail and 0 unsupported operations;
#   3. the conformance cases and 2,000 random cases judged as the modelled
#      commit behaves: it must fail (the release differs), and every failing
#      operation must be traced to the spec's `was` lines and facts whose
#      commits lie after the release (the `was` lines whose boundary release
#      is later than VERSION), and to no other.
# Each run judges on `lctx conform`'s default --jobs (the online cores),
# one adapter process per job. `make conform-jax` runs the whole domain.
#
#   test_jax_conform.sh LCTX PYTHON SOURCE_DIR [SHARD] [--optional]
#
# Exit 77 (skipped) only when LCTX_JAX=off, or with --optional (the newest
# release, which needs a Python 3.12) when PYTHON is not installed; a
# missing pinned JAX is a failure.
#
# A release after the modelled commit has rows no case reaches there: a
# case depending on a fact the table says was not read at the release is
# not judged (report.json not_judged; a row reached only by such cases is
# listed, not failed), and from 0.12.1 on IR-006, the nested
# platform-index defect's row, has no module to judge (JAX fixed it,
# reference/src/release.c F12). Its drift from the modelled commit may be
# traced to a change read from its wheel rather than to a commit.
set -u
. "$(dirname -- "$0")/lib.sh"
LCTX=$1
PY=$2
SRC=$3
SHARD=${4:-1/10}
OPTIONAL=${5:-}
jax_skip_if_off
if [ "$OPTIONAL" = --optional ] && [ ! -x "$PY" ]; then
  echo "SKIPPED: $PY is not installed (the newest JAX needs Python 3.12;" \
       "make test installs it where one is found)"
  exit 77
fi
# One import of JAX (about a second of CPU) both checks it and reads its
# release.
if ! RELEASE=$("$PY" -c 'import jax; print(jax.__version__)' 2>/dev/null); then
  echo "FAIL: $PY cannot import jax; run 'make test' (or" \
       "'sh tools/setup-jax.sh 0.10.2') to install the pinned JAX" >&2
  exit 1
fi

OUT=$tmp
ADAPTER="$PY $SRC/conformance/adapters/jax_adapter.py"
status=0

# Checks one run's report.json: 0 fail/xpass/crash/timeout/unsupported and,
# with --every-row, every spec row judged at least once.
check() {
  python3 - "$@" <<'PYEOF'
import json, sys
path = sys.argv[1]
every = "--every-row" in sys.argv[2:]
release = sys.argv[sys.argv.index("--release") + 1]
key = lambda v: tuple(int(x) for x in v.split("."))
# Rows no module or case can reach at this release (see the top comment).
unreachable = {"IR-006"} if key(release) >= key("0.12.1") else set()
report = json.load(open(path))
bad, unjudged, not_judged = [], [], []
for row in report["rows"]:
    for k in ("fail", "xpass", "crash", "timeout", "unsupported", "flaky"):
        if row.get(k):
            bad.append("%s: %d %s" % (row["id"], row[k], k))
    if row.get("absent"):
        continue  # not in this release (the row's `was ... absent` line)
    if sum(row.get(k, 0) for k in ("pass", "fail", "xfail", "xpass",
                                   "crash", "timeout", "flaky")) == 0:
        if row["id"] in unreachable:
            continue
        if row.get("not_judged"):
            not_judged.append(row["id"])
            continue
        unjudged.append(row["id"])
if not report.get("cases_run"):
    bad.append("no case was judged")
if report.get("cases_unsupported"):
    bad.append("%d unsupported cases" % report["cases_unsupported"])
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
if every and unjudged:
    print("FAIL: rows never judged: " + ", ".join(unjudged))
    sys.exit(1)
print("ok: %s, %d cases, %s%s" % (
    report["implementation_version"], report["cases_run"],
    "every row judged" if every else
    "%d rows judged" % (len(report["rows"]) - len(unjudged)),
    "; %d cases not judged (fact %s not read), rows reached only by them: %s"
    % (report.get("cases_not_judged", 0),
       (report.get("not_judged") or {}).get("fact", "-"),
       ", ".join(not_judged) or "none")
    if report.get("cases_not_judged") else ""))
PYEOF
}

run() {
  name=$1
  shift
  echo "== $name: lctx conform $*"
  if ! "$LCTX" conform --cmd "$ADAPTER" --quiet --report-dir "$OUT/$name" \
      "$@" >"$OUT/$name.log" 2>&1; then
    cat "$OUT/$name.log"
    echo "FAIL: lctx conform ($name) did not pass"
    status=1
    return
  fi
  tail -4 "$OUT/$name.log"
}

run cases-random --jax "$RELEASE" --no-domain --random 10000
[ -f "$OUT/cases-random/report.json" ] &&
  { check "$OUT/cases-random/report.json" --every-row --release "$RELEASE" || status=1; }
run domain-share --jax "$RELEASE" --random 0 --shard "$SHARD"
[ -f "$OUT/domain-share/report.json" ] &&
  { check "$OUT/domain-share/report.json" --release "$RELEASE" || status=1; }

# 3. As the modelled commit behaves: the drift, each operation traced.
echo "== modelled: lctx conform --no-domain --random 2000 (expected to fail)"
"$LCTX" conform --cmd "$ADAPTER" --quiet --report-dir "$OUT/modelled" \
  --no-domain --random 2000 >"$OUT/modelled.log" 2>&1
code=$?
if [ $code -ne 1 ]; then
  cat "$OUT/modelled.log"
  echo "FAIL: judged as the modelled commit, JAX $RELEASE should fail" \
       "(exit 1), exit status $code"
  status=1
elif ! python3 - "$OUT/modelled/report.json" "$RELEASE" \
    "$SRC/conformance/spec/backend-selection.lspec" <<'PYEOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
release = tuple(int(x) for x in sys.argv[2].split("."))
# The commits of `was` lines (rows and facts) whose boundary release is
# later than the installed one: what may explain the drift.
later = set()
for line in open(sys.argv[3]):
    m = re.match(r"^was = (\d+(?:\.\d+)+) ([0-9a-f]{12}) ", line)
    if m and tuple(int(x) for x in m.group(1).split(".")) > release:
        later.add(m.group(2))
bad, failing = [], []
for row in report["rows"]:
    fails = row.get("fail", 0)
    if not fails:
        continue
    failing.append(row["id"])
    traced = row.get("drift_explained", 0)
    why = row.get("drift", "")
    cited = set(re.findall(r"\b[0-9a-f]{12}\b", why))
    # A change after the history readable here is cited by the release
    # whose wheel it was read from, which must not be later than this one.
    wheel = [tuple(int(x) for x in v.split("."))
             for v in re.findall(r"changed in jax-v([0-9.]+[0-9]) \(read from "
                                 r"its wheel", why)]
    if traced != fails:
        bad.append("%s: %d of %d failing operations traced" % (
            row["id"], traced, fails))
    elif wheel and not cited and all(w <= release for w in wheel):
        pass
    elif not cited or not cited <= later:
        bad.append("%s: traced to %s, not to a change after %s (%s)" % (
            row["id"], why, sys.argv[2], ", ".join(sorted(later))))
if not failing:
    bad.append("nothing failed, yet the spec names changes after %s: %s"
               % (sys.argv[2], ", ".join(sorted(later))))
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
print("ok: as the modelled commit, %d rows fail (%s), each traced to %s"
      % (len(failing), ", ".join(failing),
         ", ".join(sorted(later)) or "changes read from the wheels"))
PYEOF
then
  status=1
fi

[ $status -eq 0 ] && echo "PASS: real JAX $RELEASE agrees with the spec table as $RELEASE behaves"
exit $status
