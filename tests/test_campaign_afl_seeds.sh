#!/bin/sh
# test_campaign_afl_seeds.sh - pins where an AFL++ campaign starts, with a
# stand-in afl-fuzz (and afl-cmin) first on PATH, so no AFL++ is needed:
#   1. `lctx fuzz --engine afl --corpus EMPTY_DIR` hands afl-fuzz the seeds
#      (OUT/seeds) as -i, not the empty folder that AFL++ refuses ("no
#      usable test cases"), says so, and runs inputs (not NOTHING RUN);
#   2. `--corpus DIR` with inputs is handed over as it is.
# Usage: test_campaign_afl_seeds.sh LCTX
set -u
LCTX=$1
. "$(dirname -- "$0")/lib.sh"

mkdir -p "$tmp/bin" "$tmp/empty" "$tmp/full"
printf 'x' >"$tmp/full/one"
# The stand-in afl-fuzz: records its -i folder in $tmp/input-of-NAME; an
# -i without a regular file is refused as AFL++ does; else it writes the
# instance's fuzzer_stats and a queue entry and ends.
cat >"$tmp/bin/afl-fuzz" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
  case "\$1" in
  -i) in=\$2; shift ;;
  -o) out=\$2; shift ;;
  -M|-S) name=\$2; shift ;;
  --) break ;;
  esac
  shift
done
echo "\$in" >"$tmp/input-of-\$name"
if [ -z "\$(find "\$in" -maxdepth 1 -type f | head -n 1)" ]; then
  echo "[-] PROGRAM ABORT : We need at least one valid input seed that does not crash!"
  echo "no usable test cases in '\$in'"
  exit 1
fi
mkdir -p "\$out/\$name/queue" "\$out/\$name/crashes"
cp "\$(find "\$in" -maxdepth 1 -type f | head -n 1)" "\$out/\$name/queue/id:000000"
printf 'execs_done        : 100\nexecs_per_sec     : 50\ncorpus_count      : 1\n' \\
  >"\$out/\$name/fuzzer_stats"
exit 0
EOF
# The stand-in afl-cmin copies the queue.
fake_afl_cmin "$tmp/bin/afl-cmin"
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/fuzz_spec_afl"
chmod +x "$tmp/bin/afl-fuzz" "$tmp/bin/afl-cmin" "$tmp/bin/fuzz_spec_afl"

# afl_run WHAT CORPUS OUT INPUT: lctx fuzz --engine afl --corpus CORPUS
# --out $tmp/OUT (its output in $tmp/OUT.txt); a failure, said with WHAT,
# unless it exits 0 and afl-fuzz's -i was INPUT.
afl_run() {
  rm -f "$tmp/input-of-main"
  PATH="$tmp/bin:$PATH" "$LCTX" fuzz --engine afl --target fuzz_spec --time 1 \
    --corpus "$2" --binary "$tmp/bin/fuzz_spec_afl" --out "$tmp/$3" \
    >"$tmp/$3.txt" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || fail "$1: lctx fuzz exited $rc: $(tail -n 8 "$tmp/$3.txt")"
  [ "$(cat "$tmp/input-of-main" 2>/dev/null)" = "$4" ] ||
    fail "$1: afl-fuzz -i was '$(cat "$tmp/input-of-main" 2>/dev/null)', not $4"
}

# 1. An empty --corpus: AFL++ starts from the seeds.
afl_run "empty --corpus" "$tmp/empty" c1 "$tmp/c1/seeds"
grep -q "is empty: AFL++ starts from the seeds" "$tmp/c1.txt" ||
  fail "empty --corpus: not said: $(head -n 4 "$tmp/c1.txt")"
grep -q "NOTHING RUN" "$tmp/c1.txt" && fail "empty --corpus: nothing run"

# 2. A --corpus with inputs is AFL++'s -i.
afl_run "--corpus" "$tmp/full" c2 "$tmp/full"

finish_failures "test_campaign_afl_seeds: "
echo "test_campaign_afl_seeds: ok"
