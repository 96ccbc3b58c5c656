#!/bin/sh
# test_doc_figures.sh - the figures of the READMEs come from the tool: every
# quantity with a unit of time, size, rate or share (`5 s`, `1 MiB`, `2x`,
# `66%`, `cases/s`) in README.md and every README.md under the tree is
# either gone or a setting of the tool that the table below ties to the
# tool's own help text, a source definition or the Makefile. A measured
# figure (a timing, a coverage share, a download size) is not kept in a
# README at all: the command that measures it prints it; except in a block
# a tool writes from its record and a ctest test checks against it (the
# table BLOCKS below: `make test`'s figures, tools/test_figures.py). An
# entry of the tables that no longer matches its README, or whose evidence
# is gone, fails too, and so does the checker itself on a made-up README.
# Usage: test_doc_figures.sh LCTX SOURCE_DIR
set -u
LCTX=$1
SRC=$2
. "$(dirname -- "$0")/lib.sh"

cat >"$tmp/check.py" <<'EOF'
import glob, os, re, subprocess, sys

LCTX, SRC = sys.argv[1], sys.argv[2]
ROOT = sys.argv[3] if len(sys.argv) > 3 else SRC
FIGURE = re.compile(
    r"\b\d[\d,.]*(?:[ \n-])?(?:%|(?:ms|s|sec|seconds?|minutes?|min|hours?|"
    r"[KMG]i?B|exec/s|cases/s|ops/s|x)\b)")

# (README, a phrase around the figure (a regular expression over the text
# with its line breaks as spaces), the evidence: ("help", ARGS, TEXT) - the
# output of `lctx ARGS` holds TEXT; ("source", GLOB, REGEX) - a file of the
# tree matching GLOB holds REGEX; ("make", REGEX) - the Makefile holds it).
SETTINGS = [
    ("README.md", r"a 30-second `fuzz_model`", ("help", "run --help", "(default 30;")),
    ("README.md", r"every 10 s to an hour, every minute after",
     ("source", "harness/commands/campaign*.c", r"elapsed < 60 \? 1 : elapsed < 3600 \? 10 : 60")),
    ("README.md", r"line over 1 MiB and a JSON file over 16 MiB",
     ("source", "harness/report/report_html_data.h",
      r"LCTX_HTML_MAX_JSON_FILE \(16 << 20\)[\s\S]*LCTX_HTML_MAX_LINE \(1 << 20\)")),
    ("README.md", r"200,000 lines of at most 64 KiB each",
     ("source", "harness/report/report_html_sweep_sum.h", r"LCTX_HTML_SWEEP_MAX_LINE 65536")),
    ("README.md", r"needs more than 1 s for one",
     ("help", "mutants --help", "within this (default 1)")),
    ("README.md", r"the fuzz part \(60 s per run\)", ("make", r"mutants --fuzz 60 ")),
    ("conformance/README.md", r"a module 1 MiB, an answer line 4 MiB",
     ("source", "harness/process/impl.h", r"LCTX_IMPL_MAX_LINE \(4u << 20\)")),
    ("conformance/README.md", r"a module 1 MiB",
     ("source", "harness/core/case/case.h", r"LCTX_CASE_IMPL_MLIR_CAPACITY \(1u << 20\)")),
    ("conformance/mutants/README.md", r"--fuzz 60 +# and fuzz_differential, 60 s per run",
     ("make", r"mutants --fuzz 60 ")),
    ("conformance/mutants/README.md", r"at its first finding or after 60 s",
     ("make", r"mutants --fuzz 60 ")),
    ("conformance/mutants/README.md", r"needs more than 1 s",
     ("help", "mutants --help", "within this (default 1)")),
    ("corpus/rules/README.md", r"8 KiB of strings, 64 KiB per file",
     ("source", "harness/core/case/rulefile.h",
      r"LCTX_RULEFILE_POOL 8192[\s\S]*LCTX_RULEFILE_MAX_BYTES \(64 \* 1024\)")),
    ("fuzzers/README.md", r"waits 0.25 s, doubled up to 8 s, after each run in a row that ended within 2 s",
     ("source", "harness/process/libfuzzer.c", r"wait < 8[\s\S]*: 0\.25")),
    ("fuzzers/README.md", r"waits 0.25 s, doubled up to 8 s, after each run in a row that ended within 2 s",
     ("source", "harness/process/libfuzzer.h", r"LCTX_LIBFUZZER_QUICK_SECONDS 2\.0")),
    ("fuzzers/README.md", r"`OUT/corpus` every 5 s", ("help", "fuzz --help", "OUT/corpus every 5 s")),
    ("fuzzers/README.md", r"within 60 s of libFuzzer",
     ("source", "fuzzers/CMakeLists.txt", r"-DMAX_TIME=60\b")),
]


# (README, the block's name: figures between <!-- NAME:begin --> and
# <!-- NAME:end -->, the test of tests/CMakeLists.txt that checks the block
# against its record (a regular expression over that file)).
BLOCKS = [
    ("README.md", "lctx-test-figures",
     r"NAME lctx_test_figures\s+COMMAND python3 \S*tools/test_figures\.py\s+--check"),
    ("README.md", "lctx-sweep-figures",
     r"lctx_shell_test\(lctx_sweep_figures test_sweep_figures\.sh"),
]


def block_spans(name, text):
    """The spans of the checked blocks of README name; their failures."""
    spans, bad = [], []
    tests = open(os.path.join(SRC, "tests", "CMakeLists.txt")).read()
    for file, block, test in BLOCKS:
        if file != name:
            continue
        b = text.find("<!-- %s:begin -->" % block)
        e = text.find("<!-- %s:end -->" % block)
        if b < 0 or e < b:
            bad.append("%s: the block %s is no longer there" % (name, block))
        elif not re.search(test, tests):
            bad.append("%s: no test checks the block %s (/%s/)" % (name, block, test))
        else:
            spans.append((b, e))
    return spans, bad


def pattern(phrase):
    """The phrase, a space in it matching any run of blanks and line breaks."""
    return phrase.replace(" ", r"\s+")


def evidence_holds(ev):
    if ev[0] == "help":
        out = subprocess.run([LCTX] + ev[1].split(), capture_output=True,
                             text=True).stdout
        return " ".join(ev[2].split()) in " ".join(out.split())
    if ev[0] == "source":
        return any(re.search(ev[2], open(p, errors="replace").read())
                   for p in glob.glob(os.path.join(SRC, ev[1])))
    if ev[0] == "make":
        return re.search(ev[1], open(os.path.join(SRC, "Makefile")).read())
    return False


bad = []
readmes = sorted(
    os.path.relpath(p, ROOT)
    for p in glob.glob(os.path.join(ROOT, "**", "README.md"), recursive=True)
    if not os.path.relpath(p, ROOT).startswith(("build/", ".git/")))
for name in readmes:
    text = open(os.path.join(ROOT, name), errors="replace").read()
    spans, blocks_bad = block_spans(name, text)
    bad += blocks_bad
    for file, phrase, ev in SETTINGS:
        if file != name:
            continue
        found = [m.span() for m in re.finditer(pattern(phrase), text)]
        if not found:
            bad.append("%s: the setting /%s/ is no longer there" % (name, phrase))
        elif not evidence_holds(ev):
            bad.append("%s: /%s/: the tool no longer says so (%s)" % (name, phrase, ev))
        spans += found
    for m in FIGURE.finditer(text):
        if not any(a <= m.start() and m.end() <= b for a, b in spans):
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: '%s' is a figure no command of the tool gives: "
                       "remove it, or tie it to the tool in "
                       "tests/test_doc_figures.sh" % (name, line, m.group(0)))
for b in bad:
    print("FAIL: " + b)
print("%d READMEs checked" % len(readmes))
sys.exit(1 if bad else 0)
EOF

$PY "$tmp/check.py" "$LCTX" "$SRC" >"$tmp/out.txt" 2>&1 ||
  fail "$(grep -v 'READMEs checked' "$tmp/out.txt")"
n=$(sed -n 's/^\([0-9]*\) READMEs checked$/\1/p' "$tmp/out.txt")
[ "${n:-0}" -ge 10 ] || fail "too few READMEs found: ${n:-none}"

# The checker finds a timing, a share and a speed-up in a made-up README.
mkdir -p "$tmp/fake/docs"
printf 'It takes about 12 s, covers 66.0%% of lines\nand is 2-3x faster.\n' \
  >"$tmp/fake/docs/README.md"
$PY "$tmp/check.py" "$LCTX" "$SRC" "$tmp/fake" >"$tmp/fake.txt" 2>&1 &&
  fail "the checker accepted a README with measured figures"
for f in "docs/README.md:1: '12 s'" "docs/README.md:1: '66.0%'" "docs/README.md:2: '3x'"; do
  grep -qF "$f" "$tmp/fake.txt" || fail "the checker did not name $f: $(cat "$tmp/fake.txt")"
done

finish_failures "test_doc_figures: "
echo "test_doc_figures: PASS"
