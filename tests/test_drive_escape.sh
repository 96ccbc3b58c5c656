#!/bin/sh
# test_drive_escape.sh - pins that the drive layer's messages show outside
# text escaped (harness/core/base/escape.h) where the command line cannot
# refuse it first (harness/cli/argcheck.c refuses control bytes in the
# arguments of `lctx fuzz` and `lctx corpus`): a fuzz build folder
# ($LCTX_FUZZ_BUILD) whose name holds ESC [2J, a newline and a forged
# "result: PASS" (`lctx fuzz --engine afl --jobs 2` names its CMPLOG
# build), corpus and replay folders holding files and folders so named,
# a stand-in fuzz build that prints such a key and log, and a sweep case
# file in such a folder whose raise message holds the same bytes (its
# unexpected verdict's detail quotes it). For every run, stdout and stderr
# together hold no byte below 0x20 but '\n', no 0x7f, and no line that
# starts with the forged "result: PASS".
# Usage: test_drive_escape.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"
cd "$tmp" || exit 2

ESC=$(printf '\033')
NL='
'
evil="x${ESC}[2J${NL}result: PASS"

n=0
# run ARGS...: runs lctx (any exit code), then checks its whole output.
run() {
  n=$((n + 1))
  "$LCTX" "$@" >"$tmp/out$n" 2>&1 </dev/null
  clean_terminal "$tmp/out$n" "$n" "$1"
}

# A fuzz build folder whose name holds the bytes: AFL++ with two jobs
# names the CMPLOG build beside the build it found there.
build="$tmp/b$evil"
mkdir "$build"
fake_libfuzzer "$build/fuzz_model_afl"
fake_libfuzzer "$build/fuzz_model"
export LCTX_FUZZ_BUILD="$build"
run fuzz --engine afl --target fuzz_model --time 1 --jobs 2 --out camp
shows $n 'CMPLOG build'
shows $n 'bx\x1b[2J\x0aresult: PASS/fuzz_model_cmplog'

# A libFuzzer campaign of that build: it runs, finds its crash, and says so.
run fuzz --engine libfuzzer --target fuzz_model --time 1 --out camp2
shows $n 'new finding'

# Corpus folders holding a file and a folder so named.
mkdir -p "corpus/d$evil"
printf 'ab' >"corpus/f$evil"
printf 'cd' >"corpus/d$evil/g$evil"
seed=CP-001-near-alias-names.bin
cp "$SRC/corpus/seeds/fuzz_model/$seed" "corpus/s$evil"
run corpus rows --target fuzz_model corpus
shows $n "CP-001"
run corpus minimize --target fuzz_model --out min corpus
unset LCTX_FUZZ_BUILD

# Replay of that folder, in process and with the stand-in build, whose
# finding key and log hold the bytes.
run replay --target fuzz_model --verbose corpus
shows $n 'ok corpus/fx\x1b[2J\x0aresult: PASS'
{
  echo '#!/bin/sh'
  echo "printf 'LCTX-FINDING fuzz_model/outcome/k\\033[2J\\nresult: PASS\\n'"
  echo 'exit 1'
} >"$tmp/keyer"
chmod +x "$tmp/keyer"
run replay --target fuzz_model --binary "$tmp/keyer" corpus
shows $n 'FINDING corpus/'

# A sweep case in a folder so named, whose raise message holds the bytes:
# its verdict (SW-001 fail) is not expected, and the detail quotes it.
mkdir "sweep$evil"
"$PY" - "$SRC/conformance/sweep/cases/SW-001-raise-of-its-own.json" \
  "sweep$evil/c$evil.json" <<'PY' || fail "no sweep case written"
import json, sys
c = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        if "message" in x:
            x["message"] = "m\x1b[2J\nresult: PASS"
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(c["answers"])
c["expect"] = []
json.dump(c, open(sys.argv[2], "w"))
PY
run sweep --judge "sweep$evil"
shows $n 'not expected'
run sweep --judge "sweep$evil/c$evil.json"
shows $n 'sweepx\x1b[2J\x0aresult: PASS/cx\x1b[2J'

finish_failures "test_drive_escape: "
echo "PASS ($n runs)"
