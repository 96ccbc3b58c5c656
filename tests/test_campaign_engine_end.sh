#!/bin/sh
# test_campaign_engine_end.sh - pins what a campaign says of an engine that
# runs nothing and of AFL++'s live figures, with stand-in engines (no real
# libFuzzer or AFL++ build):
#   1. a fuzz_differential campaign (--time 60) whose LCTX_DIFF_PLUGIN is a
#      library that cannot be loaded (an undefined symbol, as a
#      sanitizer-built plugin has), its stand-in libFuzzer build running
#      this build's replay driver once on the empty input as
#      LLVMFuzzerInitialize does and ending: the campaign stops within
#      seconds (no restarts for half a minute), says NOTHING RUN, and prints
#      the engine's own last lines, which name the cause (the undefined
#      symbol), control bytes escaped;
#   2. an AFL++ campaign (a stand-in afl-fuzz first on PATH) whose
#      fuzzer_stats, written at start, says execs_done 99 and
#      execs_per_sec 99000 (99 inputs over its first millisecond) and whose
#      plot_data gains a row every 0.5 s (AFL++ writes fuzzer_stats once a
#      minute, plot_data every 5 s): the live figures come from plot_data
#      (exec/s 10528, progress.jsonl's execs past 99 while it runs), never
#      99000; the summary names one corpus folder (OUT/corpus) and AFL++'s
#      own state apart.
# Usage: test_campaign_engine_end.sh LCTX DIFF_REPLAY_DRIVER
set -u
LCTX=$1
DRIVER=$2
. "$(dirname -- "$0")/lib.sh"
cd "$tmp" || exit 2
mkdir bin sys

# --- 1. an engine that cannot start ---------------------------------------
printf 'extern int lctx_no_such_symbol;\nint lctx_use(void) { return lctx_no_such_symbol; }\n' >bad.c
${CC:-cc} -shared -fPIC -o bad.so bad.c 2>cc.err ||
  { echo "test_campaign_engine_end: SKIP: no C compiler: $(cat cc.err)"; exit 77; }
cat >bin/fakediff <<EOF
#!/bin/sh
case "\$*" in
*-max_total_time=*)
  printf 'INFO: Seed: 1\\n\\033[2Jstarting\\n'
  : >"$tmp/empty.bin"
  exec "$DRIVER" "$tmp/empty.bin" ;;
-*) exit 0 ;;
esac
exec "$DRIVER" "\$1"
EOF
chmod +x bin/fakediff
start=$(date +%s)
LCTX_DIFF_PLUGIN=$tmp/bad.so TMPDIR="$tmp/sys" "$LCTX" fuzz --engine libfuzzer \
  --target fuzz_differential --time 60 --out n --binary "$tmp/bin/fakediff" \
  >n.txt 2>&1
rc=$?
took=$(($(date +%s) - start))
[ "$rc" -eq 1 ] || fail "1: exit $rc, not 1: $(tail -n 5 n.txt)"
[ "$took" -le 15 ] || fail "1: took $took s to give up an engine that runs nothing"
grep -q '^result: NOTHING RUN' n.txt || fail "1: no NOTHING RUN: $(tail -n 3 n.txt)"
grep -q "ran no input in 2 runs: its engine cannot start" n.txt ||
  fail "1: the job's end is not said: $(grep 'libFuzzer job' n.txt)"
grep -q "^lctx fuzz: the engine's last lines (.*libfuzzer.log):$" n.txt ||
  fail "1: the engine's last lines are not shown: $(tail -n 8 n.txt)"
grep -q '^  | .*undefined symbol: lctx_no_such_symbol' n.txt ||
  fail "1: the cause is not shown: $(tail -n 8 n.txt)"
grep -q '^  | .*\\x1b\[2Jstarting' n.txt ||
  fail "1: the control bytes are not escaped: $(grep starting n.txt)"
grep -q "$(printf '\033')" n.txt && fail "1: a raw ESC reached the terminal"
lines=$(grep -c 'exec/s' n.txt)
[ "$lines" -le 2 ] || fail "1: $lines live lines for an engine that ran nothing"

# --- 2. AFL++'s live figures ----------------------------------------------
cat >bin/afl-fuzz <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
  -i) in=$2; shift ;;
  -o) out=$2; shift ;;
  -M|-S) name=$2; shift ;;
  --) break ;;
  esac
  shift
done
d=$out/$name
mkdir -p "$d/queue" "$d/crashes"
cp "$(find "$in" -maxdepth 1 -type f | head -n 1)" "$d/queue/id:000000"
printf 'start_time        : 1\nrun_time          : 0\nexecs_done        : 99\nexecs_per_sec     : 99000.00\ncorpus_count      : 1\n' >"$d/fuzzer_stats"
echo '# relative_time, cycles_done, cur_item, corpus_count, pending_total, pending_favs, map_size, saved_crashes, saved_hangs, max_depth, execs_per_sec, total_execs, edges_found' >"$d/plot_data"
for i in 1 2 3 4 5 6; do
  sleep 0.5
  echo "$i, 0, 0, 1, 0, 0, 1.00%, 0, 0, 1, 10528.00, $((i * 5264)), 20" >>"$d/plot_data"
done
printf 'start_time        : 1\nrun_time          : 3\nexecs_done        : 31584\nexecs_per_sec     : 10528.00\ncorpus_count      : 1\n' >"$d/fuzzer_stats"
exit 0
EOF
fake_afl_cmin bin/afl-cmin
printf '#!/bin/sh\nexit 0\n' >bin/fuzz_spec_afl
chmod +x bin/afl-fuzz bin/afl-cmin bin/fuzz_spec_afl
PATH="$tmp/bin:$PATH" TMPDIR="$tmp/sys" "$LCTX" fuzz --engine afl \
  --target fuzz_spec --time 3 --binary "$tmp/bin/fuzz_spec_afl" --out a \
  >a.txt 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "2: exit $rc: $(tail -n 8 a.txt)"
grep -q 'exec/s *99000' a.txt && fail "2: fuzzer_stats' start-up rate shown: $(grep exec/s a.txt)"
grep -Eq 'exec/s +10528 ' a.txt || fail "2: plot_data's rate not shown: $(grep exec/s a.txt)"
grep -q '"execs_per_sec": 99000' a/progress.jsonl && fail "2: progress.jsonl says 99000"
live=$(sed -n 's/.*"execs": \([0-9]*\), .*/\1/p' a/progress.jsonl | sort -n | uniq | wc -l)
[ "$live" -ge 3 ] || fail "2: progress.jsonl's execs did not move: $(cat a/progress.jsonl)"
grep -q '"execs": 10528,' a/progress.jsonl ||
  fail "2: plot_data's total_execs not read live: $(cat a/progress.jsonl)"
for f in a.txt a/summary.txt; do
  [ "$(grep -c '^  corpus: ' "$f")" -eq 1 ] || fail "2: $f: not one corpus line"
  grep -Eq '^  corpus: +([^ ]*/)?a/corpus$' "$f" || fail "2: $f: $(grep '^  corpus' "$f")"
  grep -q "^  AFL++'s own state: .*a/afl (queues, crashes, fuzzer_stats)$" "$f" ||
    fail "2: $f: AFL++'s state is not named apart"
  grep -q '^  corpus minimized (afl-cmin): [0-9]* -> [0-9]* inputs from AFL++.s main queue' "$f" ||
    fail "2: $f: $(grep 'corpus minimized' "$f")"
done

finish_failures "test_campaign_engine_end: "
echo "test_campaign_engine_end: ok"
