#!/bin/sh
# test_help.sh - pins the help of every `lctx` command and subcommand, all
# taken from the tool itself (no list of them is copied here):
#   - the commands are those `lctx --help` lists; for each, `-h`, `--help`
#     and `lctx help COMMAND` print the same text to stdout, exit 0, start
#     with `usage: lctx COMMAND` and show an example;
#   - a command's subcommands are those its help names (`lctx COMMAND SUB`
#     at the start of a usage line, or a `subcommands:` section); for each,
#     `lctx help COMMAND SUB`, `lctx COMMAND SUB --help` and `-h` print the
#     same text, exit 0, start with `usage: lctx COMMAND SUB` (its own
#     usage, not its command's) and show an example; and `lctx --help`'s
#     line for COMMAND names every one of them; COMMAND without a
#     subcommand exits 2 saying "missing subcommand";
#   - every default stated in help agrees wherever it is stated: an option
#     of the same name and meaning (the text before "(default") has one
#     default in every command (a default "as lctx CMD finds it" defers to
#     CMD, which must be a command); a default a command's own text states
#     ("(default: X)" outside the option rows) is one of its options'; a
#     default README's command list states for a command is one of that
#     command's;
#   - `lctx help` alone is `lctx --help`; `lctx help NOPE` exits 2 naming
#     NOPE;
#   - README's command list (the block under "The `lctx` command") names
#     exactly the commands of the table, and exactly their subcommands.
#
# Usage: test_help.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"

# subcommands FILE COMMAND: the subcommands a command's help names.
subcommands() {
  awk -v c="$2" '
    /^(usage:|      ) +lctx / {
      sub(/^usage:/, ""); n = split($0, w, " ")
      if (w[1] == "lctx" && w[2] == c && w[3] ~ /^[a-z][a-z-]*$/ && w[3] != "help")
        print w[3]
    }
    /^subcommands:/ { on = 1; next }
    on && /^  [a-z]/ { print $1; next }
    on { on = 0 }' "$1" | awk '!seen[$0]++'
}

# rows FILE WHO: one line `WHO|--NAME|HELP` per option row of a help (its
# continuation lines joined).
rows() {
  awk -v who="$2" '
    function flush() { if (name != "") print who "|" name "|" text; name = "" }
    /^options:/ { on = 1; next }
    /^[^ ]/ { flush(); on = 0 }
    on && /^  --/ {
      flush(); name = $1; text = $0
      sub(/^  --[^ ]+( [^ ]+)? +/, "", text); next
    }
    on && /^    / { t = $0; sub(/^ +/, "", t); text = text " " t }
    END { flush() }' "$1"
}

# defaults: the default each line of stdin states, one a line ("-" when
# none): the text after "default" (and ":") up to ";" or ")".
defaults() {
  sed -n 's/.*[( ]default:\{0,1\} \([^;)]*\).*/\1/p'
}

"$LCTX" --help >"$tmp/global" 2>&1 || fail "lctx --help exits $?"
sed -n '/^commands:/,/^$/p' "$tmp/global" | awk 'NF >= 2 {print $1}' \
  | grep -v '^commands:' >"$tmp/commands"
n=$(wc -l <"$tmp/commands")
[ "$n" -ge 10 ] || fail "lctx --help lists $n commands"

"$LCTX" help >"$tmp/help-alone" 2>&1 || fail "lctx help exits $?"
cmp -s "$tmp/global" "$tmp/help-alone" || fail "lctx help is not lctx --help"

# check_help WORDS...: `lctx WORDS -h`, `--help` and `lctx help WORDS` agree,
# exit 0, name `lctx WORDS` on the first line and show an example; the
# help is left in $tmp/h.
check_help() {
  w=$*
  "$LCTX" "$@" -h >"$tmp/h" 2>"$tmp/h.err" || fail "lctx $w -h exits $?"
  "$LCTX" "$@" --help >"$tmp/h.long" 2>&1 || fail "lctx $w --help exits $?"
  "$LCTX" help "$@" >"$tmp/h.cmd" 2>&1 || fail "lctx help $w exits $?"
  [ -s "$tmp/h.err" ] && fail "lctx $w -h writes to stderr: $(head -n 2 "$tmp/h.err")"
  cmp -s "$tmp/h" "$tmp/h.long" || fail "lctx $w: -h and --help differ"
  cmp -s "$tmp/h" "$tmp/h.cmd" ||
    fail "lctx help $w is not lctx $w --help: $(head -n 1 "$tmp/h.cmd")"
  head -n 1 "$tmp/h" | grep -Eq "^usage: lctx $w( |\$)" ||
    fail "lctx $w -h does not start with its own usage: $(head -n 1 "$tmp/h")"
  grep -A1 '^example:' "$tmp/h" | grep -q "^  lctx $w " ||
    fail "lctx $w -h: no example of lctx $w"
}

: >"$tmp/subs"
: >"$tmp/rows"
for c in $(cat "$tmp/commands"); do
  check_help "$c"
  cmp -s "$tmp/h" "$tmp/global" && fail "lctx $c -h prints the global help"
  cp "$tmp/h" "$tmp/$c.h"
  rows "$tmp/$c.h" "$c" >>"$tmp/rows"
  line=$(grep "^  $c " "$tmp/global")
  for s in $(subcommands "$tmp/$c.h" "$c"); do
    echo "$c $s" >>"$tmp/subs"
    check_help "$c" "$s"
    cp "$tmp/h" "$tmp/$c.$s.h"
    rows "$tmp/$c.$s.h" "$c $s" >>"$tmp/rows"
    echo "$line" | grep -qw -- "$s" ||
      fail "lctx --help's line for $c does not name its subcommand $s: $line"
  done
done
[ -s "$tmp/subs" ] || fail "no command has subcommands"

# A command with subcommands, run without one: exit 2, "missing subcommand"
# (not an unknown subcommand '').
for c in $(cut -d' ' -f1 "$tmp/subs" | sort -u); do
  "$LCTX" "$c" >"$tmp/bare.out" 2>"$tmp/bare.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "lctx $c without a subcommand: exit $rc, want 2"
  grep -q "^lctx $c: missing subcommand" "$tmp/bare.err" ||
    fail "lctx $c without a subcommand: $(head -n 1 "$tmp/bare.err")"
done

# Defaults: one per option of the same name and meaning.
awk -F'|' '{
    d = $3; m = $3; sub(/ *\(?default.*/, "", m)
    if (!match(d, /[( ]default:? [^;)]*/)) next
    d = substr(d, RSTART, RLENGTH); sub(/^[( ]default:? /, "", d)
    k = $2 "|" m
    if (d ~ /^as lctx /) { split(d, w, " "); print w[3] >refs; next }
    if (k in seen && seen[k] != d)
      printf "%s: %s (lctx %s) and %s (lctx %s)\n", $2, seen[k], who[k], d, $1
    else if (!(k in seen)) { seen[k] = d; who[k] = $1 }
  }' refs="$tmp/refs" "$tmp/rows" >"$tmp/disagree"
[ -s "$tmp/disagree" ] &&
  fail "defaults stated two ways in help: $(cat "$tmp/disagree")"
for r in $(sort -u "$tmp/refs" 2>/dev/null); do
  grep -qx "$r" "$tmp/commands" || fail "a default defers to 'lctx $r', no command"
done

# A default a command's text states outside its rows is one of its rows'.
for h in "$tmp"/*.h; do
  who=$(head -n 1 "$h" | sed 's/^usage: lctx //; s/ [-[(A-Z].*//')
  sed '/^options:/,$d' "$h" | tr '\n' ' ' | sed 's/(default/\n(default/g' |
    tail -n +2 | defaults | while IFS= read -r d; do
    grep -F "|$who" "$tmp/rows" | cut -d'|' -f3 | defaults | grep -qxF -- "$d" ||
      echo "lctx $who's text: default '$d' is no option's"
  done
done >"$tmp/text-defaults"
[ -s "$tmp/text-defaults" ] && fail "$(cat "$tmp/text-defaults")"

"$LCTX" help nope >"$tmp/nope.out" 2>"$tmp/nope.err"
rc=$?
[ "$rc" -eq 2 ] || fail "lctx help nope exits $rc, not 2"
grep -q "unknown command 'nope'" "$tmp/nope.err" || fail "lctx help nope: $(cat "$tmp/nope.err")"

# README: the block after "## The `lctx` command"; its entries start with
# `lctx COMMAND`, each running to the next.
awk '/^## The `lctx` command/ {on = 1; next}
     on && /^```$/ {fence++; if (fence == 2) exit; next}
     on && fence == 1' "$SRC/README.md" >"$tmp/readme-block"
awk '/^lctx [a-z]/ {print $2}' "$tmp/readme-block" |
  grep -v -e '^--' -e '^help$' | sort -u >"$tmp/readme"
sort -u "$tmp/commands" >"$tmp/table"
diff "$tmp/table" "$tmp/readme" >"$tmp/diff" ||
  fail "README's command list and the command table differ (< table, > README): $(cat "$tmp/diff")"
awk '/^lctx [a-z]/ && $3 ~ /^[a-z][a-z|-]*$/ {
       n = split($3, s, "|"); for (i = 1; i <= n; i++) print $2, s[i]
     }' "$tmp/readme-block" | grep -v '^help ' | sort -u >"$tmp/readme-subs"
sort -u "$tmp/subs" >"$tmp/table-subs"
diff "$tmp/table-subs" "$tmp/readme-subs" >"$tmp/diff" ||
  fail "README's subcommands and the tool's differ (< tool, > README): $(cat "$tmp/diff")"
# README's defaults for a command are the command's.
awk '/^lctx [a-z]/ {c = $2} c {print c "\t" $0}' "$tmp/readme-block" |
  awk -F'\t' '{t[$1] = t[$1] " " $2} END {for (c in t) print c "\t" t[c]}' |
  while IFS="$(printf '\t')" read -r c text; do
    echo "$text" | tr -s ' ' | sed 's/ default/\ndefault/g' | tail -n +2 |
      sed 's/^/ /' | defaults | while IFS= read -r d; do
      grep "^$c[ |]" "$tmp/rows" | cut -d'|' -f3 | defaults | tr -s ' ' |
        grep -qxF -- "$d" || echo "README's lctx $c: default '$d' is not in its help"
    done
  done >"$tmp/readme-defaults"
[ -s "$tmp/readme-defaults" ] && fail "$(cat "$tmp/readme-defaults")"

finish_failures "test_help: "
echo "test_help: $n commands, $(wc -l <"$tmp/subs") subcommands: their help, defaults and README agree"
