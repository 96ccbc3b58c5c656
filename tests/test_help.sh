#!/bin/sh
# test_help.sh - pins the help of every `lctx` command: for each command of
# the command table (as `lctx --help` lists it), `-h`, `--help` and `lctx
# help COMMAND` print the same text, naming the command and an example, and
# exit 0; `lctx help COMMAND SUB` prints what `lctx COMMAND SUB --help`
# does (`lctx help report html`); `lctx help` alone prints the command
# list; `lctx help NOPE` exits 2 naming NOPE; README's command list (the
# block under "The `lctx` command") names exactly the commands of the
# table.
#
# Usage: test_help.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"

"$LCTX" --help >"$tmp/global" 2>&1 || fail "lctx --help exits $?"
sed -n '/^commands:/,/^$/p' "$tmp/global" | awk 'NF >= 2 {print $1}' \
  | grep -v '^commands:' >"$tmp/commands"
n=$(wc -l <"$tmp/commands")
[ "$n" -ge 10 ] || fail "lctx --help lists $n commands"

"$LCTX" help >"$tmp/help-alone" 2>&1 || fail "lctx help exits $?"
cmp -s "$tmp/global" "$tmp/help-alone" || fail "lctx help is not lctx --help"

for c in $(cat "$tmp/commands"); do
  "$LCTX" "$c" -h >"$tmp/$c.h" 2>"$tmp/$c.h.err" || fail "lctx $c -h exits $?"
  "$LCTX" "$c" --help >"$tmp/$c.help" 2>&1 || fail "lctx $c --help exits $?"
  "$LCTX" help "$c" >"$tmp/$c.cmd" 2>&1 || fail "lctx help $c exits $?"
  [ -s "$tmp/$c.h.err" ] && fail "lctx $c -h writes to stderr"
  cmp -s "$tmp/$c.h" "$tmp/$c.help" || fail "lctx $c: -h and --help differ"
  cmp -s "$tmp/$c.h" "$tmp/$c.cmd" || fail "lctx $c: -h and lctx help $c differ"
  grep -q "^usage: lctx $c\b" "$tmp/$c.h" || fail "lctx $c -h: no 'usage: lctx $c'"
  cmp -s "$tmp/$c.h" "$tmp/global" && fail "lctx $c -h prints the global help"
  # report's help lists its subcommands, each with its own example.
  if [ "$c" != report ]; then
    grep -A1 '^example:' "$tmp/$c.h" | grep -q "^  lctx $c " ||
      fail "lctx $c -h: no example"
  fi
done
"$LCTX" report merge --help >"$tmp/merge" 2>&1 || fail "report merge --help"
grep -A1 '^example:' "$tmp/merge" | grep -q '^  lctx report merge ' ||
  fail "lctx report merge --help: no example"

# `lctx help COMMAND ARGS` is `lctx COMMAND ARGS --help`: a subcommand's
# own help, not its command's.
for sub in "report html" "report merge" "corpus rows"; do
  # shellcheck disable=SC2086 # the words of $sub are the arguments
  "$LCTX" help $sub >"$tmp/sub.help" 2>&1 || fail "lctx help $sub exits $?"
  # shellcheck disable=SC2086
  "$LCTX" $sub --help >"$tmp/sub.own" 2>&1 || fail "lctx $sub --help exits $?"
  cmp -s "$tmp/sub.help" "$tmp/sub.own" ||
    fail "lctx help $sub is not lctx $sub --help: $(head -n 2 "$tmp/sub.help")"
done

"$LCTX" help nope >"$tmp/nope.out" 2>"$tmp/nope.err"
rc=$?
[ "$rc" -eq 2 ] || fail "lctx help nope exits $rc, not 2"
grep -q "unknown command 'nope'" "$tmp/nope.err" || fail "lctx help nope: $(cat "$tmp/nope.err")"

# README: the commands of the block after "## The `lctx` command".
awk '/^## The `lctx` command/ {on = 1; next}
     on && /^```$/ {fence++; if (fence == 2) exit; next}
     on && fence == 1 && /^lctx [a-z]/ {print $2}' "$SRC/README.md" \
  | grep -v -e '^--' -e '^help$' | sort -u >"$tmp/readme"
sort -u "$tmp/commands" >"$tmp/table"
diff "$tmp/table" "$tmp/readme" >"$tmp/diff" ||
  fail "README's command list and the command table differ (< table, > README): $(cat "$tmp/diff")"

finish_failures "test_help: "
echo "test_help: $n commands: -h, --help and lctx help agree"
