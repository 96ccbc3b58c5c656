#!/bin/sh
# test_input_rules.sh - pins the one reading rule of input files and the
# strict numbers of the command line, end to end:
#   - a FIFO (no writer), a folder or a device given as a case, spec, rule
#     or byte file to eval, explain, lint, check-spec, encode and decode
#     exits 2 at once (never hangs) with `PATH: not a regular file (...)`;
#   - `lctx eval` on a folder without .case files, or on cases without
#     operations, exits 1 with "nothing was judged"; a good case exits 0,
#     a failing one 1, a malformed one 2 (the README's exits);
#   - numbers on the command line are whole, unsigned, decimal and in
#     range: `--seed " -1"`, `--seed 99999999999999999999999`, `--random
#     ""`, `--limit +1`, `--jobs "1 "`, `--fuzz-seconds 1e3`... exit 2
#     naming the option and the value.
# Usage: test_input_rules.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"

n=0
# run WANT_RC TEXT ARGS...: lctx ARGS exits WANT_RC within 20 s and its
# output (stdout and stderr) holds TEXT.
run() {
  want=$1
  text=$2
  shift 2
  n=$((n + 1))
  timeout 20 "$LCTX" "$@" >"$tmp/out$n" 2>&1 </dev/null
  got=$?
  [ "$got" = 124 ] && fail "run $n (lctx $*): hangs"
  [ "$got" = "$want" ] || fail "run $n (lctx $*): exit $got, want $want"
  grep -qF -- "$text" "$tmp/out$n" ||
    fail "run $n (lctx $*): no '$text' in: $(cat "$tmp/out$n")"
}

mkfifo "$tmp/fifo"
mkdir "$tmp/empty" "$tmp/folder.case"
case_file=$(ls "$SRC"/conformance/cases/*.case | head -1)
fifo="$tmp/fifo: not a regular file (a fifo)"

# --- Only regular files --------------------------------------------------
run 2 "$fifo" eval "$tmp/fifo"
run 2 "$fifo" explain "$tmp/fifo"
run 2 "$fifo" lint "$tmp/fifo"
run 2 "$fifo" encode "$tmp/fifo"
run 2 "$fifo" decode "$tmp/fifo"
run 2 "$fifo" check-spec --spec "$tmp/fifo"
run 2 "$fifo" eval --spec "$tmp/fifo" "$case_file"
run 2 "$fifo" explain --spec "$tmp/fifo" "$case_file"
run 2 "$tmp/folder.case: not a regular file (a folder)" \
  check-spec --spec "$tmp/folder.case"
run 2 "$tmp/folder.case: not a regular file (a folder)" \
  explain "$tmp/folder.case"
run 2 "/dev/zero: not a regular file (a device)" eval /dev/zero
run 2 "/dev/null: not a regular file (a device)" lint /dev/null
# a folder's FIFO named *.case is not listed, so it cannot hang eval
mkfifo "$tmp/empty/stuck.case"
run 1 "nothing was judged" eval "$tmp/empty"

# --- Exits of eval --------------------------------------------------------
run 1 "nothing was judged" eval "$tmp/empty"
run 1 "$tmp/empty: no .case files" eval "$tmp/empty"
printf 'lctx-case 1\n' >"$tmp/none.case"
run 1 "nothing was judged" eval "$tmp/none.case"
run 0 "1 cases passed, 0 failed" eval "$case_file"
printf 'lctx-case 1\nop backends\nexpect string "x"\n' >"$tmp/fails.case"
run 1 "1 failed" eval "$tmp/fails.case"
printf 'lctx-case 1\nop frobnicate\n' >"$tmp/bad.case"
run 2 "$tmp/bad.case:2:" eval "$tmp/bad.case" "$case_file"
# `-` is standard input, as before
n=$((n + 1))
"$LCTX" eval - <"$case_file" >"$tmp/out$n" 2>&1
[ $? = 0 ] || fail "eval - (stdin): $(cat "$tmp/out$n")"

# --- Strict numbers -------------------------------------------------------
run 2 "lctx conform: --seed: ' -1' is not a number" \
  conform --cmd true --seed " -1"
run 2 "lctx conform: --seed: '99999999999999999999999' is not a number" \
  conform --cmd true --seed 99999999999999999999999
run 2 "lctx conform: --random needs a value" conform --cmd true --random ""
run 2 "lctx conform: --random: '+5' is not a count" \
  conform --cmd true --random +5
run 2 "lctx conform: --batch: '0x10' is not a count from 1 to 256" \
  conform --cmd true --batch 0x10
run 2 "lctx conform: --timeout: '1e3' is not a number of seconds" \
  conform --cmd true --timeout 1e3
run 2 "lctx enumerate: --limit: '-1' is not a count" enumerate --limit -1
run 2 "lctx enumerate: --limit: '1 ' is not a count" enumerate --limit "1 "
run 2 "lctx fuzz: --jobs: '1 ' is not a whole number from 1 to 16" \
  fuzz --engine libfuzzer --target fuzz_model --time 1 --jobs "1 "
run 2 "lctx fuzz: --time: ' 5' is not a number of seconds" \
  fuzz --engine libfuzzer --target fuzz_model --time " 5"
run 2 "lctx run: --fuzz-seconds: '1e3' is not a number of seconds" \
  run --fuzz-seconds 1e3
run 2 "lctx run: --fuzz-seconds: '-0' is not a number of seconds" \
  run --fuzz-seconds -0
run 2 "lctx mutants: --limit: '-1' is not a number of seconds" \
  mutants --limit -1
run 2 "lctx mutants: --fuzz-min: 'nan' is not a percentage" \
  mutants --fuzz-min nan

finish_failures "test_input_rules.sh: "
echo "test_input_rules.sh: $n runs as required"
