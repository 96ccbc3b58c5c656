#!/bin/sh
# test_mutants.sh - pins the mutant machinery on bad input:
#   - a mutant file whose snippet does not occur in the plugin's sources,
#     occurs twice (in one file or in two), lacks a marker, or has stray
#     text stops cmake/LctxMutantApply.cmake with a message naming the file
#     and what is wrong; a good one copies every source, one line changed;
#   - bad `lctx mutants` command lines and lists exit 2 with a message
#     (FILE:LINE:COL for a bad list line);
#   - a mutant that conform kills, but not within --limit, fails (exit 1),
#     and --only picks mutants, writing mutants.json and mutants.md;
#   - a fuzz run from the seeds (a stand-in fuzzer, a data folder
#     $LCTX_DATA_DIR with its own seeds) starts from every seed, one of
#     100 KiB included (seeds.h: the campaign's rule; the kill matrix
#     dropped seeds over 64 KiB), README.md left out, with the libFuzzer
#     command line of libfuzzer.h and the inputs run read from its log.
# Usage: test_mutants.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"
plugin=$SRC/conformance/examples/c_plugin

# 1. Bad mutant files: the build step fails and names the file.
# apply NAME FIND REPLACE [HEAD [END]]: writes $tmp/NAME.mutant, which
# replaces the line FIND by REPLACE, after the comment lines HEAD and closed
# by the line END ('@@ end' unless given; none when empty), and applies it to
# the example plugin's folder: the mutated copy in $tmp/NAME/, output in
# $tmp/NAME.out, exit status in $tmp/NAME.rc.
apply() {
  {
    [ -z "${4:-}" ] || printf '%s\n' "$4"
    printf '@@ find\n%s\n@@ replace\n%s\n' "$2" "$3"
    [ -z "${5-@@ end}" ] || printf '%s\n' "${5-@@ end}"
  } >"$tmp/$1.mutant"
  cmake -DMUTANT="$tmp/$1.mutant" \
    -DSOURCE_DIR="$plugin" \
    -DOUT="$tmp/$1" -P "$SRC/cmake/LctxMutantApply.cmake" >"$tmp/$1.out" 2>&1
  echo $? >"$tmp/$1.rc"
}
# bad_mutant NAME PATTERN FIND REPLACE [HEAD [END]]: applying the mutant
# (as apply) fails, writes no source and says PATTERN about the file.
bad_mutant() {
  name=$1
  pattern=$2
  shift 2
  apply "$name" "$@"
  [ "$(cat "$tmp/$name.rc")" != 0 ] || fail "$name: applying did not fail"
  [ ! -e "$tmp/$name" ] || fail "$name: a mutated source was written"
  tr '\n' ' ' <"$tmp/$name.out" | tr -s ' ' | grep -q "mutant $tmp/$name.mutant: $pattern" ||
    fail "$name: no message '$pattern': $(cat "$tmp/$name.out")"
}
gt1='  if (platform_count > 1) {'
gt0='  if (platform_count > 0) {'
bad_mutant nomatch "the text after '@@ find' does not occur in any source of c_plugin" \
  '  if (platform_count > 11) {' "$gt0" '# a typo'
bad_mutant twice "the text after '@@ find' occurs more than once" \
  '    if (i > 0)' '    if (i > 1)'
# ... once in each of two files (outcome.c, register_lowering.c) is twice too.
bad_mutant twofiles "the text after '@@ find' occurs more than once in the sources of c_plugin (outcome.c at offset [0-9]*, register_lowering.c at offset [0-9]*)" \
  '      append(out, ", ");' '      append(out, ",");'
bad_mutant noend "no line '@@ end'" "$gt1" "$gt0" '' ''
bad_mutant stray "before '@@ find' only comment lines" "$gt1" "$gt0" 'B1 off by one'
bad_mutant same "the replacement equals the text it replaces" "$gt1" "$gt1"
# ... and a good one applies, changing exactly that text.
apply good "$gt1" "$gt0" '# B1 off by one'
[ "$(cat "$tmp/good.rc")" = 0 ] || fail "good mutant: $(cat "$tmp/good.out")"
[ "$(ls "$tmp/good")" = "$(cd "$plugin" && ls -- *.c *.h)" ] ||
  fail "good mutant: the copy is not every source: $(ls "$tmp/good")"
[ "$(for f in "$plugin"/*.c "$plugin"/*.h; do diff "$f" "$tmp/good/${f##*/}"; done |
  grep -c '^[<>]')" = 3 ] || fail "good mutant: not exactly one line changed (plus the header)"

# 2. Bad command lines and lists: exit 2 with a message.
mutants() {
  name=$1
  shift
  "$LCTX" mutants --out "$tmp/out-$name" "$@" >"$tmp/$name.out" 2>&1
  echo $? >"$tmp/$name.rc"
}
expect_usage() {
  name=$1
  pattern=$2
  [ "$(cat "$tmp/$name.rc")" = 2 ] || fail "$name: exit $(cat "$tmp/$name.rc"), want 2"
  grep -q -- "$pattern" "$tmp/$name.out" ||
    fail "$name: no message '$pattern': $(head -3 "$tmp/$name.out")"
}
mutants unknown --frobnicate
expect_usage unknown "lctx mutants: unknown option '--frobnicate'"
mutants novalue --fuzz
expect_usage novalue "lctx mutants: --fuzz needs a value"
mutants badfuzz --fuzz soon
expect_usage badfuzz "lctx mutants: --fuzz: 'soon' is not a number of seconds"
mutants badlimit --limit 0
expect_usage badlimit "lctx mutants: --limit: '0' is not a number of seconds"
mutants badlimit2 --limit=0.0001
expect_usage badlimit2 "lctx mutants: --limit: '0.0001' is not a number of seconds (0.001 to 3600)"
mutants badstart --fuzz-start middle
expect_usage badstart "lctx mutants: --fuzz-start: 'middle' is not seeds, empty or both"
mutants badmin --fuzz-min 101
expect_usage badmin "lctx mutants: --fuzz-min: '101' is not a percentage"
mutants badonly --only mg-b1-gt0,no-such-mutant
expect_usage badonly "lctx mutants: --only: no mutant 'no-such-mutant'"
mutants nolist --list "$tmp/none/MUTANTS"
expect_usage nolist "lctx mutants: --list: $tmp/none/MUTANTS: cannot open: No such file or directory"
mutants nolib --dir "$tmp" --only mg-b1-gt0
expect_usage nolib "lctx mutants: $tmp/mg-b1-gt0.so: no such library"
mutants nofuzzer --only mg-b1-gt0 --fuzz 5 --fuzzer "$tmp/no-fuzzer"
expect_usage nofuzzer "lctx mutants: --fuzzer: $tmp/no-fuzzer: no libFuzzer build"

mkdir "$tmp/list"
printf '%s\n' '# comment' 'one | a defect | MG-001' >"$tmp/list/MUTANTS"
: >"$tmp/list/one.mutant"
: >"$tmp/list/two.mutant"
mutants unlisted --list "$tmp/list/MUTANTS"
expect_usage unlisted "two.mutant is not listed in $tmp/list/MUTANTS"
rm "$tmp/list/two.mutant"
printf '%s\n' 'one | a defect | MG-001' '' 'two | no rows' >"$tmp/list/MUTANTS"
mutants fields --list "$tmp/list/MUTANTS"
expect_usage fields "$tmp/list/MUTANTS:3:14: expected NAME | description | rows, found 2 fields"
printf '%s\n' 'one | a defect | MG-001, MG-999' >"$tmp/list/MUTANTS"
mutants badrow --list "$tmp/list/MUTANTS"
expect_usage badrow "$tmp/list/MUTANTS:1:26: unknown spec row 'MG-999'"
printf '%s\n' 'One | a defect | MG-001' >"$tmp/list/MUTANTS"
mutants badname --list "$tmp/list/MUTANTS"
expect_usage badname "$tmp/list/MUTANTS:1:1: 'One' is not a mutant name"
printf '%s\n' 'one | a defect | MG-001' 'one | again | MG-002' >"$tmp/list/MUTANTS"
mutants twice --list "$tmp/list/MUTANTS"
expect_usage twice "$tmp/list/MUTANTS:2:1: one is listed twice (line 1)"
printf '%s\n' 'one | a defect | MG-001' 'three | missing file | MG-002' >"$tmp/list/MUTANTS"
mutants nofile --list "$tmp/list/MUTANTS"
expect_usage nofile "$tmp/list/MUTANTS:2: three is listed, but $tmp/list/three.mutant is missing"

# 3. A kill slower than --limit fails (exit 1) and is named; --only runs
#    just the mutants named and writes both reports.
mutants slow --only mg-b1-gt0,fmt-list-no-space --no-control --limit 0.001
[ "$(cat "$tmp/slow.rc")" = 1 ] || fail "slow: exit $(cat "$tmp/slow.rc"), want 1"
grep -q "mg-b1-gt0 killed only after" "$tmp/slow.out" || fail "slow: the slow kill is not named"
grep -q "conform: killed 2 of 2" "$tmp/slow.out" || fail "slow: not 2 of 2 killed: $(tail -5 "$tmp/slow.out")"
grep -q '"name": "fmt-list-no-space"' "$tmp/out-slow/mutants.json" || fail "slow: mutants.json lacks the mutant"
grep -q '^| `mg-b1-gt0` |' "$tmp/out-slow/mutants.md" || fail "slow: mutants.md lacks the mutant"
[ "$(grep -c '"name"' "$tmp/out-slow/mutants.json")" = 2 ] || fail "slow: --only did not select 2 mutants"

# 4. A fuzz run from the seeds gets every seed, a large one included.
mkdir -p "$tmp/data/corpus/seeds/fuzz_differential"
for d in conformance fuzzers; do ln -s "$SRC/$d" "$tmp/data/$d"; done
ln -s "$SRC/corpus/regressions" "$tmp/data/corpus/regressions"
seeds=$tmp/data/corpus/seeds/fuzz_differential
echo 'seeds' >"$seeds/README.md"
printf 'small' >"$seeds/small"
head -c 102400 /dev/zero >"$seeds/large"
# The stand-in fuzzer: records its arguments and the corpus (its last
# argument) as NAME SIZE lines, says it ran 7 inputs, finds nothing.
cat >"$tmp/fuzzer" <<EOF
#!/bin/sh
echo " \$*" >"$tmp/fuzzer-args"
for a in "\$@"; do corpus=\$a; done
for f in "\$corpus"/*; do echo "\$(basename "\$f") \$(wc -c <"\$f")"; done >"$tmp/fuzzer-corpus"
echo "stat::number_of_executed_units: 7"
exit 0
EOF
chmod +x "$tmp/fuzzer"
LCTX_DATA_DIR=$tmp/data mutants seeds --only rg-tie-later --no-control \
  --dir "$(dirname "$(dirname "$LCTX")")/conformance/mutants" \
  --fuzz 1 --fuzz-start seeds --fuzzer "$tmp/fuzzer"
grep -qx "large 102400" "$tmp/fuzzer-corpus" ||
  fail "seeds: the 100 KiB seed is not in the corpus: $(cat "$tmp/fuzzer-corpus" 2>/dev/null) $(tail -n 5 "$tmp/seeds.out")"
grep -qx "small 5" "$tmp/fuzzer-corpus" || fail "seeds: the small seed is missing"
grep -q "README" "$tmp/fuzzer-corpus" && fail "seeds: README.md was copied"
for a in -seed=1 -max_total_time=1 -timeout=10 -print_final_stats=1 \
  "-artifact_prefix=$tmp/out-seeds/"; do
  grep -q -- " $a" "$tmp/fuzzer-args" || fail "seeds: no $a in: $(cat "$tmp/fuzzer-args")"
done
grep -q '"inputs_run": 7' "$tmp/out-seeds/mutants.json" ||
  fail "seeds: the 7 inputs run are not in mutants.json: $(grep -m 3 inputs_run "$tmp/out-seeds/mutants.json")"

finish_failures "test_mutants.sh: "
echo "test_mutants.sh: all passed"
