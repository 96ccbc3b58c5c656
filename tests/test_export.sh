#!/bin/sh
# test_export.sh - `lctx export spec` and `lctx export rules` print what
# lctx's own parsers read, as JSON, checked against the files' text (read
# here line by line, not through lctx):
#   1. the spec table: one row per `[ID]` header, at its line, with its
#      `op` list (`*`: every protocol operation; `check = ir`:
#      lower_per_platform; `check = sweep`: export), and every `was` line of
#      a row at its line with its release, commit and outcome as written;
#      the releases line; the sweep table too;
#   2. the rule corpus: one file per *.rule, sorted, with its stem, its
#      `primitive`/`subprimitive` names in order, every `rule` at its line,
#      and every action of an indented line at that line, in order, spelled
#      as written; no operand means the data folder's corpus/rules;
#   3. bad input exits 2 with nothing on stdout and a message naming the
#      file (and FILE:LINE:COL for a malformed rule or row): a malformed
#      rule file, a missing one, a folder without rule files, a malformed
#      spec table, a string that is not UTF-8.
#
# Usage: test_export.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname "$0")/lib.sh"

SPEC=$SRC/conformance/spec/backend-selection.lspec
SWEEP=$SRC/conformance/spec/jax-sweep.lspec

# 1. The spec tables.
for t in "$SPEC" "$SWEEP"; do
  name=$(basename "$t")
  "$LCTX" export spec --spec "$t" >"$tmp/$name.json" 2>"$tmp/err" ||
    fail "export spec $name exits $?: $(cat "$tmp/err")"
  "$PY" - "$t" "$tmp/$name.json" >"$tmp/check" 2>&1 <<'EOF' ||
import json, re, sys
path, exported = sys.argv[1], json.load(open(sys.argv[2]))
ALL = ["backends", "canonicalize", "get_backend", "module_get_backend",
       "register_lowering", "lower_per_platform"]
rows, row = [], None
releases = None
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    text = line.strip()
    m = re.match(r"^\[([A-Z]+-\d+)\]$", text)
    if m:
        row = {"id": m.group(1), "line": n, "ops": None, "was": []}
        rows.append(row)
        continue
    if text.startswith("["):
        row = None
    if text.startswith("releases = "):
        releases = text[len("releases = "):].split()
    if row is None:
        continue
    if text.startswith("op = "):
        v = text[5:]
        row["ops"] = ALL if v == "*" else v.split("|")
    elif text == "check = ir":
        row["ops"] = ["lower_per_platform"]
    elif text == "check = sweep":
        row["ops"] = ["export"]
    w = re.match(r"^was = (\S+) (\S+) (.*)$", text)
    if w:
        row["was"].append((w.group(1), w.group(2), n, w.group(3)))
problems = []
if exported["spec"] != path:
    problems.append("spec is %r" % exported["spec"])
if releases and exported["releases"] != releases + (
        [] if "modelled" in releases else ["modelled"]):
    problems.append("releases %r, the file says %r"
                    % (exported["releases"], releases))
got = exported["rows"]
if [(r["id"], r["line"]) for r in got] != [(r["id"], r["line"])
                                           for r in rows]:
    problems.append("rows %r, the file has %r" % (
        [(r["id"], r["line"]) for r in got][:5],
        [(r["id"], r["line"]) for r in rows][:5]))
was_lines = 0
for want, have in zip(rows, got):
    if sorted(want["ops"] or []) != sorted(have["ops"]):
        problems.append("%s: ops %r, the file says %r"
                        % (want["id"], have["ops"], want["ops"]))
    # A second `was` line of one release and commit adds an outcome.
    merged = []
    for rel, commit, n, text in want["was"]:
        if merged and merged[-1][:2] == (rel, commit):
            merged[-1] = (rel, commit, merged[-1][2],
                          merged[-1][3] + "; " + text)
        else:
            merged.append((rel, commit, n, text))
    mine = [(w["release"], w["commit"], w["line"], w["outcome"])
            for w in have["was"]]
    if mine != merged:
        problems.append("%s: was %r, the file says %r"
                        % (want["id"], mine, merged))
    was_lines += len(want["was"])
    for w in have["was"]:
        if w["absent"] != w["outcome"].startswith("absent "):
            problems.append("%s: absent %r for %r"
                            % (want["id"], w["absent"], w["outcome"]))
if not rows:
    problems.append("the file has no rows")
print("%d rows, %d was lines" % (len(rows), was_lines))
if problems:
    print("\n".join(problems[:10]))
    sys.exit(1)
EOF
    fail "export spec $name: $(cat "$tmp/check")"
done
# The main table has was lines (the check above compared them).
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if sum(len(r["was"]) for r in d["rows"]) >= 5 else 1)' \
    "$tmp/backend-selection.lspec.json" ||
  fail "export spec: fewer than 5 was lines in the main table"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if all(r["check"] == "sweep" for r in d["rows"]) and d["rows"] else 1)' \
  "$tmp/jax-sweep.lspec.json" || fail "export spec: the sweep table's rows are not check=sweep"

# 2. The rule corpus: named, and the default (the data folder's).
"$LCTX" export rules "$SRC/corpus/rules" >"$tmp/rules.json" 2>"$tmp/err" ||
  fail "export rules exits $?: $(cat "$tmp/err")"
"$LCTX" export rules >"$tmp/default.json" 2>"$tmp/err" ||
  fail "export rules (default folder) exits $?: $(cat "$tmp/err")"
"$PY" - "$SRC/corpus/rules" "$tmp/rules.json" "$tmp/default.json" \
  >"$tmp/check" 2>&1 <<'EOF' ||
import json, os, re, sys
folder, exported = sys.argv[1], json.load(open(sys.argv[2]))
default = json.load(open(sys.argv[3]))
names = sorted(f for f in os.listdir(folder) if f.endswith(".rule"))
problems = []
files = exported["rules"]
if [f["stem"] + ".rule" for f in files] != names:
    problems.append("files %r, the folder has %r"
                    % ([f["stem"] for f in files], names))
if [f["stem"] for f in default["rules"]] != [f["stem"] for f in files]:
    problems.append("the default folder gives other files")
actions = 0
for f, name in zip(files, names):
    prims, rules, acts = [], [], []
    for n, line in enumerate(open(os.path.join(folder, name)), 1):
        text = re.sub(r'\s*#[^"]*$', "", line.rstrip("\n"))
        m = re.match(r'^(primitive|subprimitive) "([^"]*)"', text)
        if m:
            prims.append(m.group(2))
        m = re.match(r'^rule "([^"]*)"', text)
        if m:
            rules.append((m.group(1), n))
        if text[:1] in (" ", "\t") and text.strip():
            for part in text.split(","):
                acts.append((part.split()[0], n))
    if f["primitives"] != prims:
        problems.append("%s: primitives %r, the file has %r"
                        % (name, f["primitives"], prims))
    if [(r["name"], r["line"]) for r in f["rules"]] != rules:
        problems.append("%s: rules %r, the file has %r"
                        % (name, [(r["name"], r["line"])
                                  for r in f["rules"]], rules))
    mine = [(a["kind"], a["line"]) for r in f["rules"] for a in r["actions"]]
    if mine != acts:
        problems.append("%s: actions %r, the file has %r"
                        % (name, mine, acts))
    actions += len(acts)
    for r in f["rules"]:
        if r["primitive"] not in prims:
            problems.append("%s: rule %s of %r" % (name, r["name"],
                                                   r["primitive"]))
        for a in r["actions"]:
            if a["kind"] == "lower_fun" and a["primitive"] not in prims:
                problems.append("%s: lower_fun of %r" % (name,
                                                         a["primitive"]))
if len(files) < 10 or actions < 20:
    problems.append("only %d files, %d actions" % (len(files), actions))
print("%d files, %d actions" % (len(files), actions))
if problems:
    print("\n".join(problems[:10]))
    sys.exit(1)
EOF
  fail "export rules: $(cat "$tmp/check")"

# 3. Bad input: exit 2, nothing on stdout, the place named.
# bad WHAT WANT ARGS...: `lctx export ARGS` exits 2, prints nothing on
# stdout and says WANT (an extended regex) on stderr.
bad() {
  what=$1
  want=$2
  shift 2
  "$LCTX" export "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, not 2"
  [ -s "$tmp/bad.out" ] && fail "$what: printed on stdout: $(head -c 200 "$tmp/bad.out")"
  grep -Eq "$want" "$tmp/bad.err" ||
    fail "$what: stderr does not say '$want': $(cat "$tmp/bad.err")"
}
mkdir "$tmp/r" "$tmp/empty"
cp "$SRC/corpus/rules/naive_custom.rule" "$tmp/r/a.rule"
printf 'rule-file 1\nprimitive "p"\nrule "r" default\n  get_backend optional=maybe\n' \
  >"$tmp/r/b.rule"
bad "a malformed rule file" "b\\.rule:4:[0-9]+: " rules "$tmp/r"
bad "a missing rule file" "nope\\.rule" rules "$tmp/nope.rule"
bad "a folder without rule files" "empty: no \\.rule files" rules "$tmp/empty"
printf 'rule-file 1\nprimitive "p"\nrule "r" default\n  raise_if_multi "\377"\n' \
  >"$tmp/utf.rule"
bad "a message that is not UTF-8" "utf\\.rule:3: .*UTF-8" rules "$tmp/utf.rule"
sed 's/^op = backends$/op = backendz/' "$SPEC" >"$tmp/bad.lspec"
cmp -s "$SPEC" "$tmp/bad.lspec" && fail "the spec table has no 'op = backends' line to break"
bad "a malformed spec row" "bad\\.lspec:[0-9]+:[0-9]+: " spec --spec "$tmp/bad.lspec"
bad "a missing spec table" "nope\\.lspec" spec --spec "$tmp/nope.lspec"
bad "no subcommand" "missing subcommand" 

finish_failures "test_export: "
echo "test_export: ok"
