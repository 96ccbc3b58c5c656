#!/bin/sh
# test_conform_progress.sh - pins the live progress line of `lctx conform`:
# on a terminal's stderr (a pseudo-terminal from script(1)) a run shows
# "N of TOTAL cases (P%), R cases/s, about S left", TOTAL being the cases
# offered in all (random cases plus the .case files); never when stderr is
# not a terminal, never with --quiet, never in the reports.
# Usage: test_conform_progress.sh LCTX EXAMPLE_PLUGIN
set -u
. "$(dirname -- "$0")/lib.sh"
take_args LCTX EXAMPLE -- "$@"
need_command script "script(1) (util-linux)"
cases=$(ls "$(dirname -- "$0")/../conformance/cases"/*.case | wc -l)
total=$((3000 + cases))
# on_tty DIR ARGS...: lctx conform with stdout and stderr on a terminal.
on_tty() {
  dir=$1
  shift
  script -qec "'$LCTX' conform --report-dir '$tmp/$dir' --no-domain \
    --impl '$EXAMPLE' --random 3000 $*" /dev/null >"$tmp/$dir.out" 2>&1
}
on_tty tty
grep -Eq "lctx conform: [0-9]+ of $total cases \([0-9]+%\), [0-9]+ cases/s, about" \
  "$tmp/tty.out" || fail "no progress line of $total cases on a terminal: $(tail -c 300 "$tmp/tty.out")"
on_tty quiet --quiet
grep -q 'cases/s' "$tmp/quiet.out" && fail "a progress line with --quiet"
"$LCTX" conform --report-dir "$tmp/pipe" --no-domain --impl "$EXAMPLE" \
  --random 3000 >"$tmp/pipe.out" 2>"$tmp/pipe.err"
grep -q 'cases/s' "$tmp/pipe.out" "$tmp/pipe.err" &&
  fail "a progress line when stderr is not a terminal"
grep -rq 'cases/s' "$tmp/tty" && fail "the progress line is in the reports"
finish_failures "test_conform_progress: "
echo "test_conform_progress: ok"
