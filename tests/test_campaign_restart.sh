#!/bin/sh
# test_campaign_restart.sh - pins how a libFuzzer campaign job (one plain
# libFuzzer process, no -fork) is started again when it stops, with
# stand-in libFuzzer builds (scripts; given a file, they fail with an
# LCTX-FINDING key when it holds BAD):
#   1. a build that stops after 2.5 s on an input of its corpus (it writes
#      the crash input, which is also a file of the working corpus) is
#      started again on the same corpus until --time is up; the input that
#      stopped it is no longer in the corpus of the next run; the inputs of
#      all its runs are added up (100 a run);
#   2. a build that stops at once on every run (a target crashing on every
#      input) cannot make lctx spin: the job is given up after 8 runs in a
#      row, saying so, long before --time 120 is up; its finding is kept;
#   3. an input of the user's --corpus that stops every run it is read in
#      stops only the first: libFuzzer reads a copy of --corpus, from which
#      it is dropped, and the user's folder is left as it was.
# Usage: test_campaign_restart.sh LCTX
set -u
LCTX=$1
. "$(dirname -- "$0")/lib.sh"
cd "$tmp" || exit 2

# libfuzzer_script FILE RUN: writes FILE, a stand-in libFuzzer build. Its
# campaign run (-max_total_time first) sets $p to its -artifact_prefix,
# $corpus to its first folder (the working corpus) and $found to a file
# holding BAD in any of its folders, then runs the shell text RUN (which
# exits); another option exits 0; given an input, it fails with an
# LCTX-FINDING key when the input holds BAD.
libfuzzer_script() {
  cat >"$1" <<EOS
#!/bin/sh
case "\$1" in
-max_total_time=*)
  corpus=
  found=
  for a in "\$@"; do
    case "\$a" in
    -artifact_prefix=*) p=\${a#-artifact_prefix=} ;;
    -*) ;;
    *) [ -n "\$corpus" ] || corpus=\$a
       for f in "\$a"/*; do
         [ -f "\$f" ] && grep -q BAD "\$f" && found=\$f
       done ;;
    esac
  done
$2
-*) exit 0 ;;
esac
if grep -q BAD "\$1"; then
  echo "LCTX-FINDING fuzz_model/outcome/stand-in-bug"
  exit 1
fi
exit 0
EOS
  chmod +x "$1"
}

# stand_in FILE SLEEP: a campaign run appends a line to FILE.runs, writes
# xxBADxx as a crash input and, on its first run, as a file of its working
# corpus, says 100 inputs run, sleeps SLEEP s and ends; a later run that
# still finds that corpus file appends "stopper kept" to FILE.runs.
stand_in() {
  libfuzzer_script "$1" "  [ -e \"\$corpus/stopper\" ] && echo \"stopper kept\" >>\"$1.runs\"
  [ -s \"$1.runs\" ] || printf 'xxBADxx' >\"\$corpus/stopper\"
  echo run >>\"$1.runs\"
  echo \"#100	NEW    cov: 10 ft: 10 corp: 3/30b exec/s: 50 rss: 30Mb\"
  sleep $2
  printf 'xxBADxx' >\"\${p}crash-0001\"
  echo \"stat::number_of_executed_units: 100\"
  exit 1 ;;"
}

# 1. Restarted until the time is up, without the input that stopped it.
stand_in "$tmp/slow" 2.5
LCTX_FUZZ_NO_TMPFS=1 "$LCTX" fuzz --engine libfuzzer --target fuzz_model \
  --time 7 --out "$tmp/a" --binary "$tmp/slow" >a.txt 2>&1
runs=$(grep -c '^run$' "$tmp/slow.runs")
[ "$runs" -ge 2 ] || fail "1: the job ran $runs time(s), want 2 or more: $(cat a.txt)"
grep -q "stopper kept" "$tmp/slow.runs" &&
  fail "1: the input that stopped the job was still in its corpus"
grep -q "finished after .*: $((runs * 100)) input(s) run" a.txt ||
  fail "1: the inputs of $runs runs are not added up: $(grep 'input(s) run' a.txt)"
grep -q "1 new finding(s)" a.txt || fail "1: no finding: $(cat a.txt)"

# 2. A job that stops at once is given up; lctx does not spin.
stand_in "$tmp/quick" 0
start=$(date +%s)
LCTX_FUZZ_NO_TMPFS=1 "$LCTX" fuzz --engine libfuzzer --target fuzz_model \
  --time 120 --out "$tmp/b" --binary "$tmp/quick" >b.txt 2>&1
took=$(($(date +%s) - start))
runs=$(grep -c '^run$' "$tmp/quick.runs")
[ "$runs" -eq 8 ] || fail "2: the job ran $runs time(s), want 8"
[ "$took" -lt 90 ] || fail "2: the campaign took $took s"
grep -q "libFuzzer job 0 ended at once too often: not started again" b.txt ||
  fail "2: no word of the job given up: $(cat b.txt)"
grep -q "1 new finding(s)" b.txt || fail "2: no finding: $(cat b.txt)"

# 3. A stopper in the user's --corpus: dropped from the campaign's copy.
libfuzzer_script "$tmp/reader" "  echo \"#100	NEW    cov: 10 ft: 10 corp: 3/30b exec/s: 50 rss: 30Mb\"
  echo \"stat::number_of_executed_units: 100\"
  if [ -n \"\$found\" ]; then
    echo \"stopped on \$found\" >>\"$tmp/reader.runs\"
    cp \"\$found\" \"\${p}crash-0002\"
    exit 1
  fi
  echo run >>\"$tmp/reader.runs\"
  sleep 3
  exit 0 ;;"
mkdir -p "$tmp/mine"
printf 'xxBADxx' >"$tmp/mine/bad"
printf 'fine' >"$tmp/mine/good"
LCTX_FUZZ_NO_TMPFS=1 "$LCTX" fuzz --engine libfuzzer --target fuzz_model \
  --time 6 --corpus "$tmp/mine" --out "$tmp/c" --binary "$tmp/reader" \
  >c.txt 2>&1
stops=$(grep -c '^stopped on' "$tmp/reader.runs")
[ "$stops" -eq 1 ] ||
  fail "3: $stops runs stopped on the --corpus input, want 1: $(cat c.txt)"
grep -q '^run$' "$tmp/reader.runs" || fail "3: no run went on past it"
grep -q "not started again" c.txt && fail "3: the job was given up: $(cat c.txt)"
[ "$(cat "$tmp/mine/bad")" = xxBADxx ] && [ -f "$tmp/mine/good" ] ||
  fail "3: the user's --corpus was changed: $(ls "$tmp/mine")"

finish_failures "test_campaign_restart: "
echo "test_campaign_restart: PASS"
