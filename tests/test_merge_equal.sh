#!/bin/sh
# test_merge_equal.sh - `lctx report merge` of a run's shards is the
# unsharded run: report.json field by field, results.jsonl line by line,
# report.tap and report.junit.xml, but for the fields that describe one
# process or one run's files (tests/merge_equal.py's EXCEPTIONS: run_id,
# seconds, peak memory, the seal), compared by tests/merge_equal.py:
#   1. the example plugin judged as JAX 0.4.30, which it does not match
#      (failures in many rows, some rows' earliest in a later shard, more
#      than --keep-failures 3 per row, rows absent at that release), three
#      shards;
#   2. the same judged as 0.12.1 (cases not judged, failures traced to
#      drift), --keep-failures 1, two shards;
#   3. a sweep of tests/sweep_fake.py's bad programs, two shards.
# Each merge exits as the unsharded run does.
# Usage: test_merge_equal.sh LCTX EXAMPLE_PLUGIN SRC
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX EXAMPLE SRC -- "$@"
for arg in LCTX EXAMPLE SRC; do # absolute: the runs are made in $tmp
  eval "case \$$arg in /*) ;; *) $arg=\$PWD/\$$arg ;; esac"
done
cd "$tmp" || exit 1 # every run from one folder: their rerun lines alike

# equal NAME RC [--conform]: $tmp/NAME-merged (merged from
# $tmp/NAME-part*) is $tmp/NAME-whole, and the merge exited RC.
equal() {
  name=$1
  want=$2
  shift 2
  "$LCTX" report merge --out "$name-merged" "$name"-part* \
    >"$name-merge.out" 2>&1
  rc=$?
  [ "$rc" = "$want" ] ||
    fail "$name: report merge exit $rc, want $want: $(tail -n 3 "$name-merge.out")"
  "$PY" "$SRC/tests/merge_equal.py" "$@" "$name-whole" \
    "$name-merged" "$name"-part* >"$name.diff" 2>&1 ||
    fail "$name: the merge is not the unsharded run:
$(head -n 20 "$name.diff")"
}

# conform_shards NAME N ARGS...: the example plugin's run of ARGS into
# NAME-whole, then as N shards into NAME-part1 .. NAME-partN.
conform_shards() {
  name=$1
  n=$2
  shift 2
  "$LCTX" conform --impl "$EXAMPLE" --no-domain --quiet \
    --report-dir "$name-whole" "$@" >"$name-whole.out" 2>&1
  echo $? >"$name-whole.rc"
  k=1
  while [ "$k" -le "$n" ]; do
    "$LCTX" conform --impl "$EXAMPLE" --no-domain --quiet --shard "$k/$n" \
      --report-dir "$name-part$k" "$@" >"log-$name-part$k" 2>&1
    k=$((k + 1))
  done
}

conform_shards old 3 --jax 0.4.30 --random 400 --keep-failures 3
[ "$(cat old-whole.rc)" = 1 ] ||
  fail "as 0.4.30: exit $(cat old-whole.rc), want 1: $(tail -n 3 old-whole.out)"
equal old 1 --conform

conform_shards new 2 --jax 0.12.1 --random 400 --keep-failures 1
[ "$(report_field "$tmp/new-whole" - cases_not_judged)" -gt 0 ] ||
  fail "as 0.12.1: no case not judged"
equal new "$(cat new-whole.rc)"

none=$tmp/no-known # no known defects: every finding is new
mkdir "$none"
sweep() { # sweep OUT ARGS...
  out=$1
  shift
  "$LCTX" sweep --cmd "$PY $SRC/tests/sweep_fake.py --only-kind bad" \
    --known "$none" --lists 3 --no-minimize --quiet --out "$out" "$@" \
    >"log-$out" 2>&1
}
sweep sw-whole
sweep sw-part1 --shard 1/2
sweep sw-part2 --shard 2/2
equal sw 1

finish_failures "test_merge_equal: "
echo "test_merge_equal: merges of conform (as 0.4.30 and 0.12.1) and sweep shards are their unsharded runs"
