#!/bin/sh
# test_reproduce.sh - every reproduction lctx writes runs as written, pasted
# into `env -i PATH=/usr/bin:/bin sh -c LINE` from another folder (no lctx on
# PATH, no LCTX_* variable set), and gives the finding (exit status and key
# as written), creating nothing in that folder:
#   - reproduce.txt of a campaign run with --binary against a stand-in
#     libFuzzer build (a script: in a campaign it writes one crash input to
#     the artifact folder and reports 100 inputs run; given a file, it fails
#     with an LCTX-FINDING key when the file holds BAD), the campaign's
#     --out and --binary given relative: its build line and its
#     `lctx replay --binary` line fail with the key of key.txt (exit 1) and
#     leave no scratch folder; each line names the running lctx by its
#     absolute path;
#   - reproduce.txt of a fuzz_differential campaign whose LCTX_DIFF_PLUGIN
#     (relative) is a mutant of the example plugin, the build a stand-in
#     libFuzzer over this build's fuzz_differential replay driver: the
#     build line, the `lctx replay --binary` line, the in-process
#     `lctx replay` line and the replay driver's line each reproduce the
#     finding (they carry LCTX_DIFF_PLUGIN, made absolute); report.txt names
#     the mutant's library, not only the name its table gives
#     (lctx-example-c);
#     the campaign's terminal prints the build line itself under the
#     finding (pasted as printed, it reproduces too);
#   - the rerun line of `lctx conform` (its --impl and --report-dir given
#     relative) reruns the failing case into the run's own rerun folder;
#   - the reproduce line `lctx mutants --fuzz` prints for a kill (the
#     stand-in fuzzer again) fails with the key of the kill.
# Also: `lctx replay --binary` of an input that passes exits 0, a binary
# that is not executable or an unknown --engine exits 2.
#
# Usage: test_reproduce.sh LCTX DIFF_REPLAY_DRIVER MUTANT.so SOURCE_DIR
set -u
LCTX=$(readlink -f "$1")
DRIVER=$(readlink -f "$2")
MUTANT=$(readlink -f "$3")
SRC=$(readlink -f "$4")
. "$(dirname "$0")/lib.sh"
unset LCTX_DIFF_PLUGIN
LCTX_REAL=$(readlink -f "$LCTX")
cd "$tmp" || exit 2
mkdir sys work elsewhere

# paste NAME LINE WANT_RC [KEY]: LINE run in an empty environment from
# ./elsewhere exits WANT_RC (`fail`: a failure of the program, neither 0 nor
# 126/127, not run; an engine build aborts) and, given KEY, prints it;
# nothing is left in ./elsewhere.
paste_line() {
  (cd elsewhere && env -i PATH=/usr/bin:/bin TMPDIR="$tmp/sys" sh -c "$2") \
    >"$1.pasted" 2>&1
  rc=$?
  case "$3:$rc" in
  fail:0 | fail:126 | fail:127) ;; # passed, or not run at all
  fail:*) rc=fail ;;
  esac
  [ "$rc" = "$3" ] || fail "$1: exit $rc, not $3: $2: $(tail -n 5 "$1.pasted")"
  [ $# -lt 4 ] || grep -qF "$4" "$1.pasted" ||
    fail "$1: not the key $4: $(tail -n 5 "$1.pasted")"
  [ -z "$(ls -A elsewhere)" ] || fail "$1: left in the other folder: $(ls -A elsewhere)"
}

# lines FILE: the command lines of a reproduce.txt (no comments).
lines() { grep -v '^#' "$1"; }

# --- fuzz_model, a stand-in libFuzzer build -----------------------------
fake_libfuzzer fakefz \
  'echo "stat::number_of_executed_units: 100"'
(cd work && TMPDIR="$tmp/sys" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_model --time 1 --out camp --binary ../fakefz) >run.txt 2>&1
[ $? -eq 1 ] || fail "the campaign should exit 1: $(cat run.txt)"
finding=$tmp/work/camp/findings/fuzz_model__outcome__stand-in-bug
[ -f "$finding/reproduce.txt" ] || fail "no reproduce.txt: $(ls work/camp/findings)"
key=$(cat "$finding/key.txt")
lines "$finding/reproduce.txt" | grep -v " promote " | grep -q " lctx " &&
  fail "a bare lctx: $(cat "$finding/reproduce.txt")"
build=$(lines "$finding/reproduce.txt" | head -n 1)
[ "$build" = "cd $tmp/work && $tmp/work/../fakefz $finding/minimized" ] ||
  fail "the build line: $build"
paste_line build "$build" 1 "LCTX-FINDING $key"
# The campaign's own terminal prints that line itself, under the finding.
printed=$(sed -n 's/^    reproduce: //p' run.txt)
[ "$printed" = "$build" ] ||
  fail "the terminal's reproduce line is not reproduce.txt's first: $printed"
paste_line printed "$printed" 1 "LCTX-FINDING $key"
line=$(grep -- ' replay .*--binary' "$finding/reproduce.txt")
[ "$line" = "cd $tmp/work && $LCTX_REAL replay --target fuzz_model --binary $tmp/work/../fakefz $finding/minimized" ] ||
  fail "replay line: $line"
paste_line replay "$line" 1 "  key: $key"
grep -q '^replay: 1 inputs, 1 findings$' replay.pasted || fail "$(cat replay.pasted)"
[ -z "$(ls sys)" ] || fail "scratch left: $(ls sys)"
grep -q "^# lctx's own check of this source tree" "$finding/reproduce.txt" ||
  fail "the in-process line is not explained"
grep -q "^found by: fuzz_model under libfuzzer ($tmp/work/../fakefz), from $tmp/work/" \
  "$finding/report.txt" || fail "report.txt: $(head -n 3 "$finding/report.txt")"

# --- fuzz_differential against a mutant (LCTX_DIFF_PLUGIN) --------------
"$LCTX" encode "$SRC/conformance/cases/RG-008-no-priority-beats-minus-1000.case" \
  >rg8.bin || fail "lctx encode"
cp "$MUTANT" work/mutant.so
cat >fakediff <<EOF
#!/bin/sh
case "\$*" in
*-max_total_time=*)
  for a in "\$@"; do
    case "\$a" in -artifact_prefix=*) p=\${a#-artifact_prefix=} ;; esac
  done
  cp "$tmp/rg8.bin" "\${p}crash-0001"
  "$DRIVER" "\${p}crash-0001"
  exit 0 ;;
-*) exit 0 ;;
esac
exec "$DRIVER" "\$1"
EOF
chmod +x fakediff
(cd work && LCTX_DIFF_PLUGIN=./mutant.so TMPDIR="$tmp/sys" "$LCTX" fuzz \
  --engine libfuzzer --target fuzz_differential --time 1 --out dcamp \
  --binary "$tmp/fakediff") >drun.txt 2>&1
[ $? -eq 1 ] || fail "the differential campaign should exit 1: $(tail -n 5 drun.txt)"
dfinding=$(ls -d "$tmp"/work/dcamp/findings/fuzz_differential__impl__row=RG-008*)
dkey=$(cat "$dfinding/key.txt")
n=0
lines "$dfinding/reproduce.txt" | grep -v " promote " >dlines
while IFS= read -r line; do
  n=$((n + 1))
  case "$line" in
  *"LCTX_DIFF_PLUGIN=$tmp/work/mutant.so "*) ;;
  *) fail "line $n does not carry LCTX_DIFF_PLUGIN: $line" ;;
  esac
  paste_line "diff$n" "$line" fail "$dkey"
done <dlines
[ "$n" -eq 4 ] || fail "$n lines, not build, replay --binary, replay, driver: $(cat dlines)"
grep -qx "implementation: $tmp/work/mutant.so (LCTX_DIFF_PLUGIN)" "$dfinding/report.txt" ||
  fail "report.txt does not name the mutant: $(head -n 6 "$dfinding/report.txt")"
grep -q "^lctx fuzz_differential: lctx-example-c ([^)]*mutant.so) " "$dfinding/report.txt" ||
  fail "the check's report does not name the mutant's library: $(grep '^lctx fuzz' "$dfinding/report.txt")"

# --- conform's rerun line --------------------------------------------------
(cd work && "$LCTX" conform --impl ./mutant.so --quiet --first-failure \
  --no-domain --random 0 --report-dir rep) >conform.out 2>&1
[ $? -eq 1 ] || fail "conform should exit 1: $(tail -n 3 conform.out)"
first=$(grep -m1 '^[A-Z][A-Z]*-[0-9]*: ' conform.out)
rerun=$(sed -n 's/^  rerun: //p' conform.out | head -n 1)
paste_line conform "$rerun" 1 "$first"
[ -s work/rep/rerun/report.json ] || fail "the rerun did not write into work/rep/rerun"

# --- lctx mutants --fuzz ---------------------------------------------------
(cd work && "$LCTX" mutants --only rg-tie-later --no-control --fuzz 1 \
  --fuzz-start seeds --fuzzer "$tmp/fakediff" --out mut) >mut.out 2>&1
grep -q '^  fuzz from seeds .* RG-008 (seed): ' mut.out ||
  fail "the stand-in fuzzer did not kill: $(cat mut.out)"
mline=$(sed -n 's/^    reproduce: //p' mut.out | grep LCTX_DIFF_PLUGIN | head -n 1)
[ -n "$mline" ] || fail "lctx mutants prints no fuzz reproduce line: $(cat mut.out)"
paste_line mutants "$mline" fail "$dkey"
cline=$(sed -n 's/^    reproduce: //p' mut.out | grep ' conform ' | head -n 1)
[ -n "$cline" ] || fail "lctx mutants prints no conform reproduce line"
paste_line mutants-conform "$cline" 1

printf 'good' >good.bin
"$LCTX" replay --target fuzz_model --binary "$tmp/fakefz" good.bin >g.out 2>&1 ||
  fail "a passing input: exit $?: $(cat g.out)"
"$LCTX" replay --target fuzz_model --binary "$tmp/none" good.bin >n.out 2>&1
[ $? -eq 2 ] || fail "a missing binary should exit 2"
grep -q 'is not an executable file' n.out || fail "$(cat n.out)"
"$LCTX" replay --target fuzz_model --binary "$tmp/fakefz" --engine x \
  good.bin >x.out 2>&1
[ $? -eq 2 ] || fail "--engine x should exit 2"

finish_failures "test_reproduce: "
