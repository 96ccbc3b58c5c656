# tests/lib.sh - sourced by the shell tests: a temporary folder $tmp that is
# removed on exit, fail MESSAGE (prints "FAIL: MESSAGE" and counts it in
# $failures), finish_failures PREFIX (prints "PREFIXN failure(s)" and exits
# 1 when any check failed), jax_skip_if_off (exit 77 when LCTX_JAX=off) and
# hold_lock DIR TEXT (another process holds DIR/.lock, naming itself TEXT,
# until release_lock) and report_field DIR ROW KEY (a count from a conform
# report.json: KEY summed over row ROW, '*' for every row, or '-' for the
# top-level field KEY).

# PY: the system's Python 3 for the tests' own scripts (/usr/bin/python3 when
# there, else python3 on PATH); a real-JAX test sets its own after this.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The key store of sealed results (lctx sweep, generate) in $tmp, never the
# user's home.
LCTX_STATE_DIR=$tmp/state
export LCTX_STATE_DIR
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

finish_failures() {
  if [ "$failures" -ne 0 ]; then
    echo "$1$failures failure(s)"
    exit 1
  fi
}

jax_skip_if_off() {
  if [ "${LCTX_JAX:-}" = off ]; then
    echo "SKIPPED: LCTX_JAX=off, the real-JAX tests do not run"
    exit 77
  fi
}

hold_lock() {
  mkdir -p "$1"
  rm -f "$tmp/.lock-held"
  "$PY" - "$1/.lock" "$2" "$tmp/.lock-held" <<'PYEOF' &
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.flock(f, fcntl.LOCK_EX)
f.write(sys.argv[2] + "\n")
f.flush()
open(sys.argv[3], "w").close()
time.sleep(60)
PYEOF
  lock_holder=$!
  for _ in $(seq 100); do
    [ -e "$tmp/.lock-held" ] && return 0
    sleep 0.1
  done
  fail "hold_lock: $1/.lock was not taken"
}

release_lock() {
  kill "$lock_holder" 2>/dev/null
  wait "$lock_holder" 2>/dev/null
}

report_field() {
  "$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]+"/report.json"))
if sys.argv[2]=="-": print(r[sys.argv[3]])
else: print(sum(x.get(sys.argv[3], 0) for x in r["rows"] if sys.argv[2] in ("*",x["id"])))' "$@"
}

# conform DIR ARGS...: $LCTX conform --report-dir $tmp/DIR --quiet ARGS, its
# output in $tmp/DIR.out and its exit status in $tmp/DIR.rc; rc DIR: that
# status.
conform() {
  dir=$1
  shift
  "$LCTX" conform --report-dir "$tmp/$dir" --quiet "$@" >"$tmp/$dir.out" 2>&1
  echo $? >"$tmp/$dir.rc"
}
rc() { cat "$tmp/$1.rc"; }

# fake_afl_cmin FILE - writes a stand-in afl-cmin to FILE (executable): it
# copies every input of -i into -o, as a minimization that drops nothing.
fake_afl_cmin() {
  cat >"$1" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
  -i) in=$2; shift ;;
  -o) out=$2; shift ;;
  --) break ;;
  esac
  shift
done
mkdir -p "$out" && cp "$in"/* "$out"/
EOF
  chmod +x "$1"
}

# fake_libfuzzer FILE [LINE...] - writes a stand-in libFuzzer binary to FILE:
# its campaign run (-max_total_time=N first) writes the crash input
# xxBADxx, prints each LINE, then the count of executed units, and ends; run on an input it prints the finding
# fuzz_model/outcome/stand-in-bug (exit 1) for one holding BAD, else exits 0.
fake_libfuzzer() {
  out=$1
  shift
  {
    echo '#!/bin/sh'
    echo 'case "$1" in'
    echo '-max_total_time=*)'
    echo '  for a in "$@"; do'
    echo '    case "$a" in -artifact_prefix=*) p=${a#-artifact_prefix=} ;; esac'
    echo '  done'
    echo "  printf 'xxBADxx' >\"\${p}crash-0001\""
    for line in "$@"; do echo "  $line"; done
    echo '  exit 0 ;;'
    echo '-*) exit 0 ;;'
    echo 'esac'
    echo 'if grep -q BAD "$1"; then'
    echo '  echo "LCTX-FINDING fuzz_model/outcome/stand-in-bug"'
    echo '  exit 1'
    echo 'fi'
    echo 'exit 0'
  } >"$out"
  chmod +x "$out"
}

# The real-JAX reproduction tests (test_jax_repro*.sh), which share their
# start and end. jax_repro_start TEST REPRO PYTHON SOURCE_DIR: skips when
# LCTX_JAX=off, checks the arguments, that PYTHON has jax (found, not
# imported) and that the reproduction conformance/adapters/REPRO exists;
# sets PY, SRC, REPRO, PINNED and setup_hint; runs REPRO --json into
# $tmp/out.json (a failure if it exits other than 0). jax_repro_finish: the human report's verdict line
# agrees with $tmp/out.json, the program exits 0, an unknown option gives
# usage and exit 2; then PASS, or the failures and exit 1.
# jax_repro_judge: judges $tmp/out.json with the Python read from stdin (a
# failure if it fails): the Python finds r (the JSON object; not one is a
# failure), version and verdict (r's jax_version and verdict), PINNED as
# pinned, and bad, a list of messages, with want(WHAT, GOT, EXPECTED) adding
# one when GOT != EXPECTED; each message is printed as a FAIL line.
jax_repro_start() {
  jax_skip_if_off
  if [ $# -ne 4 ]; then
    echo "usage: $1 PYTHON SOURCE_DIR" >&2
    exit 2
  fi
  PY=$3
  SRC=$4
  REPRO=$SRC/conformance/adapters/$2
  PINNED=0.10.2
  setup_hint="run \`make test\` or \`sh tools/setup-jax.sh $PINNED\` (it creates build/jax/venv-$PINNED), or set LCTX_JAX=off to skip the real-JAX tests"
  if ! command -v "$PY" >/dev/null 2>&1; then
    echo "FAIL: the Python for the real-JAX tests, $PY, does not exist or is not executable; $setup_hint"
    exit 1
  fi
  if ! jax_installed "$PY" jax; then
    echo "FAIL: $PY cannot import jax; $setup_hint"
    "$PY" -c 'import jax' 2>&1 | tail -n 1
    exit 1
  fi
  if [ ! -f "$REPRO" ]; then
    echo "FAIL: $REPRO is missing"
    exit 1
  fi
  "$PY" "$REPRO" --json >"$tmp/out.json" 2>"$tmp/err.json"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$2 --json exited $rc (want 0)"
    cat "$tmp/out.json" "$tmp/err.json"
  fi
}

jax_repro_judge() {
  {
    cat <<'EOF'
import json, sys
path, pinned = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print("FAIL: the --json output is not one JSON object: %s" % e)
    sys.exit(1)
bad = []
def want(what, got, expected):
    if got != expected:
        bad.append("%s is %r, want %r" % (what, got, expected))
version = r.get("jax_version")
verdict = r.get("verdict")
EOF
    cat
    cat <<'EOF'
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
EOF
  } >"$tmp/judge.py"
  "$PY" "$tmp/judge.py" "$tmp/out.json" "$PINNED" >"$tmp/judge" 2>&1
  judge_rc=$?
  cat "$tmp/judge"
  [ "$judge_rc" -eq 0 ] || failures=$((failures + 1))
}

jax_repro_finish() {
  "$PY" "$REPRO" >"$tmp/out.txt" 2>"$tmp/err.txt"
  rc=$?
  [ "$rc" -eq 0 ] || fail "$(basename "$REPRO") exited $rc (want 0)"
  verdict=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("verdict"))' "$tmp/out.json" 2>/dev/null)
  case $verdict in
  defect) headline="DEFECT REPRODUCED: " ;;
  fixed) headline="FIXED IN THIS JAX VERSION: " ;;
  *) headline="(no verdict)" ;;
  esac
  if ! grep -q "^$headline" "$tmp/out.txt"; then
    fail "the report has no line starting with '$headline'"
    cat "$tmp/out.txt" "$tmp/err.txt"
  fi
  "$PY" "$REPRO" --no-such-option >/dev/null 2>"$tmp/err.bad"
  rc=$?
  [ "$rc" -eq 2 ] || fail "an unknown option exited $rc (want 2)"
  grep -q "usage:" "$tmp/err.bad" || fail "an unknown option printed no usage"
  finish_failures ""
  grep "^$headline" "$tmp/out.txt"
  echo "PASS"
  exit 0
}

# clean_terminal FILE N WHAT: FILE, the whole output of run N of `lctx
# WHAT`, is what a terminal may show: no control byte but line ends, no C1
# control, no line of its own starting "result: PASS", not empty. Each
# problem is printed as a FAIL line with the output; counted in $failures.
clean_terminal() {
  "$PY" - "$1" "$2" "$3" <<'PY' || failures=$((failures + 1))
import re, sys
data = open(sys.argv[1], "rb").read()
where = "run %s (lctx %s)" % (sys.argv[2], sys.argv[3])
bad = [b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f]
problems = []
if bad:
    problems.append("control bytes %r" % sorted(set(bad)))
if re.search(rb"\xc2[\x80-\x9f]", data):
    problems.append("a C1 control")
if re.search(rb"(^|\n)result: PASS", data):
    problems.append("a forged 'result: PASS' line")
if not data.strip():
    problems.append("no output at all")
for p in problems:
    print("FAIL: %s: %s in:\n%s" % (where, p, data.decode("utf-8", "replace")))
sys.exit(1 if problems else 0)
PY
}

# shows N TEXT: the output of run N ($tmp/outN) holds TEXT.
shows() {
  grep -qF -- "$2" "$tmp/out$1" || fail "run $1: no '$2' in: $(cat "$tmp/out$1")"
}

# sweep_count DIR ROW VERDICT [KEY-SUBSTRING]: how many verdicts of a
# sweep's or a campaign's results.jsonl have that row and verdict (and key
# part).
sweep_count() {
  "$PY" - "$1/results.jsonl" "$2" "$3" "${4:-}" <<'PY'
import json, sys
path, row, verdict, key = sys.argv[1:]
n = 0
for k, line in enumerate(open(path)):
    if k:
        n += sum(v["row"] == row and v["verdict"] == verdict and key in v["key"]
                 for v in json.loads(line)["verdicts"])
print(n)
PY
}

# jax_installed PYTHON MODULE...: PYTHON finds each MODULE (found, not
# imported).
jax_installed() {
  jax_py=$1
  shift
  "$jax_py" - "$@" >/dev/null 2>&1 <<'PY'
import importlib.util, sys
sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)
PY
}

# jax_export_start LCTX PYTHON SOURCE_DIR: the start of a test of the real,
# pinned JAX through the exporter (test_jax_sweep.sh, test_jax_generate.sh,
# test_jax_export.sh): exit 77 when LCTX_JAX=off; sets LCTX, PY and SRC;
# a PYTHON without jax and absl fails (exit 1), saying how to install
# them. They are looked up, not imported (jax_installed: an import of JAX
# is about a second of CPU; the test's own first import fails a broken one).
jax_export_start() {
  jax_skip_if_off
  LCTX=$1
  PY=$2
  SRC=$3
  if ! jax_installed "$PY" jax absl; then
    echo "FAIL: $PY cannot import jax and absl; run \`make test\` or \`sh tools/setup-jax.sh 0.10.2\`, or set LCTX_JAX=off"
    exit 1
  fi
}

# python_unittests FILE...: each unittest file of conformance/adapters
# (under $SRC) run verbosely with $PY; a failure, or any skipped test, fails
# the test, its output shown.
python_unittests() {
  for t in "$@"; do
    "$PY" "$SRC/conformance/adapters/$t" -v >"$tmp/unittest.out" 2>&1
    rc=$?
    tail -n 4 "$tmp/unittest.out"
    [ "$rc" -eq 0 ] || { cat "$tmp/unittest.out"; fail "$t failed (exit $rc)"; }
    if grep -q "skipped" "$tmp/unittest.out"; then
      fail "some tests of $t were skipped"
    fi
  done
}

# take_args NAME... -- "$@": the test's arguments, the first into the
# variable named first, and so on; too few print the test's usage (its
# "# Usage:" comment and the indented comment lines after it) and exit 2.
take_args() {
  take_names=
  while [ "$1" != -- ]; do
    take_names="$take_names $1"
    shift
  done
  shift
  for take_name in $take_names; do
    if [ $# -eq 0 ]; then
      awk '/^# Usage: / { sub(/^# Usage: /, "usage: "); print; on = 1; next }
        on && /^#   / { sub(/^# /, ""); print; next }
        { on = 0 }' "$0" >&2
      exit 2
    fi
    eval "$take_name=\$1"
    shift
  done
}

# need_command CMD WHAT: unless CMD is on PATH, prints "FAIL: WHAT is not
# installed" and exits 1.
need_command() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "FAIL: $2 is not installed"
  exit 1
}

# hostile_cases DIR: writes DIR/1.case to DIR/7.case, the cases the hostile
# implementations of tests/impls/ are tried on: get_backend("tpu") with one
# cpu client, the three of 2, 4 and 6 marked by jax_platform_name "HOSTILE"
# (what makes those implementations attack).
hostile_cases() {
  mkdir -p "$1"
  for i in 1 2 3 4 5 6 7; do
    {
      echo 'lctx-case 1'
      echo 'factory "cpu" priority=0 loud client'
      case $i in 2 | 4 | 6) echo 'jax_platform_name "HOSTILE"' ;; esac
      echo 'nvidia_gpu hidden'
      echo 'op get_backend "tpu"'
    } >"$1/$i.case"
  done
}

# interrupt PID OUT WHAT: sends SIGINT to the lctx run PID (a background
# job of the test), whose output goes to OUT, and fails, naming WHAT,
# unless it then exits 1 with a result line saying INTERRUPTED.
interrupt() {
  kill -INT "$1"
  wait "$1"
  int_rc=$?
  [ "$int_rc" -eq 1 ] || fail "$3: exit $int_rc (want 1)"
  grep -q "^result: .*INTERRUPTED" "$2" ||
    fail "$3: no result line saying INTERRUPTED: $(tail -n 3 "$2")"
}

# interrupt_after SECONDS OUT COMMAND...: runs COMMAND in the background,
# its stdout and stderr into OUT, and interrupts it after SECONDS.
interrupt_after() {
  int_after=$1
  int_out=$2
  shift 2
  "$@" >"$int_out" 2>&1 &
  int_pid=$!
  sleep "$int_after"
  interrupt "$int_pid" "$int_out" "interrupted"
}

# counts DIR WHAT ROW:KEY=N...: fails, naming WHAT, for each count of the
# conform report in DIR (report_field DIR ROW KEY) that is not N.
counts() {
  counts_dir=$1
  counts_what=$2
  shift 2
  for counts_want in "$@"; do
    counts_row=${counts_want%%:*}
    counts_key=${counts_want#*:}
    counts_key=${counts_key%%=*}
    counts_got=$(report_field "$counts_dir" "$counts_row" "$counts_key")
    [ "$counts_got" = "${counts_want#*=}" ] ||
      fail "$counts_what: $counts_key of row $counts_row is $counts_got, want ${counts_want#*=}"
  done
}

# left: the /proc/PID/cmdline file of every process whose command line
# holds $word (the unique word a test gives the implementation it runs).
# none_left WHAT: waits up to 3 s for those processes to end; fails,
# naming WHAT, when some are left, and kills them.
left() {
  for f in /proc/[0-9]*/cmdline; do
    { tr "\0" " " <"$f"; } 2>/dev/null | grep -q -- "$word" && echo "$f"
  done
}
none_left() {
  left_tries=0
  while [ -n "$(left)" ] && [ $left_tries -lt 30 ]; do
    sleep 0.1
    left_tries=$((left_tries + 1))
  done
  [ -z "$(left)" ] || fail "$1: processes left: $(left)"
  for f in $(left); do
    pid=${f#/proc/}
    kill -9 "${pid%/cmdline}" 2>/dev/null
  done
}

# merge ARGS...: lctx report merge --out $tmp/mN ARGS, N being the count of
# merges so far, $n (the test sets n=0 first); its stdout, stderr and exit
# status in $tmp/mN.out, mN.err and mN.rc.
merge() {
  n=$((n + 1))
  "$LCTX" report merge --out "$tmp/m$n" "$@" >"$tmp/m$n.out" 2>"$tmp/m$n.err"
  echo $? >"$tmp/m$n.rc"
}
