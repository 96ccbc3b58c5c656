#!/bin/sh
# test_house.sh - the house rules of the source tree, checked on every run:
#   - no C function is longer than 100 lines (from the line that starts its
#     definition to its closing brace at column 0);
#   - no .c file is longer than 800 lines, and no Python file of the tree
#     (tracked, or new and not ignored) is longer than 800 lines;
#   - no file under harness/cli/ (one command each) is longer than 400 lines;
#   - harness/core/ and harness/ir/ hold no mutable state: no non-const
#     static or _Thread_local object, at file scope or in a function;
#   - a layer includes no header of a layer above it (core < ir < process <
#     report < commands < cli), whatever the include paths;
#   - the default output folders (build/, lctx-conform/, lctx-fuzz/) are
#     ignored by git;
#   - every test named in tests/COVERAGE.md exists, and every source file a
#     document or source comment names under harness/ exists;
#   - only the process layer (harness/process/) starts, signals or reaps a
#     process: no other C file of the tree (harness/, reference/, fuzzers/,
#     bench/, conformance/) calls fork, vfork, posix_spawn, an exec
#     function, kill, killpg, wait, waitpid, wait3, wait4, waitid, prctl,
#     setsid, setpgid or close_range (main.c's prctl(PR_SET_DUMPABLE, 0) for
#     lctx itself aside);
#   - no file under harness/ is longer than 1,000 lines;
#   - no include cycle between the modules of harness/ (a module is a
#     header and its .c; module A uses B when A.c or A.h includes B.h);
#   - one reader of report.json: report_read.c reads it back and checks
#     it (report_write.c writes it); no other file of harness/ names the
#     keys of its stamp and counts, nor does a file of report/ or
#     commands/ hold its bound on counts (2^40);
#   - an lctx_case is at most 16 KB: case.h asserts it at compile time
#     (the build is the real check; this one keeps the assertion there).
# Each breach is printed as FILE:LINE: what. Usage: test_house.sh SOURCE_DIR
set -u
root=$1
cd "$root" || exit 2
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Function length: a definition starts at a column-0 line that is not a
# comment, preprocessor line or brace and ends at the next `}` in column 0.
long=$(find reference harness fuzzers bench conformance tests -name '*.c' | sort |
  xargs awk '
    FNR == 1 { start = 0; prev = "" }
    /^[A-Za-z_]/ && !start && !/;[ \t]*$/ {
      paren = index($0, "("); eq = index($0, "=")
      if (paren && (!eq || paren < eq)) {
        start = FNR; name = $0
        # A return type on a line of its own belongs to the definition.
        if (prev ~ /^[A-Za-z_][A-Za-z_0-9 \t\*]*$/) start = FNR - 1
      }
    }
    { prev = $0 }
    /^}/ {
      if (start && FNR - start + 1 > 100)
        printf "%s:%d: %d lines: %s\n", FILENAME, start, FNR - start + 1, name
      start = 0
    }')
[ -z "$long" ] || fail "functions longer than 100 lines:
$long"

# File length: every .c file, and every Python file of the tree (what git
# tracks or would add; without git, every one outside build/).
big_c=$(find reference harness fuzzers bench conformance tests -name '*.c' |
  sort | xargs wc -l |
  awk '$2 != "total" && $1 > 800 { printf "%s: %d lines\n", $2, $1 }')
[ -z "$big_c" ] || fail ".c files over 800 lines:
$big_c"
if git rev-parse --git-dir >/dev/null 2>&1; then
  py_files=$(git ls-files --cached --others --exclude-standard '*.py')
else
  py_files=$(find . -path ./build -prune -o -name '*.py' -print)
fi
big_py=$(for f in $py_files; do [ -f "$f" ] && echo "$f"; done | sort |
  xargs -r wc -l |
  awk '$2 != "total" && $1 > 800 { printf "%s: %d lines\n", $2, $1 }')
[ -z "$big_py" ] || fail "Python files over 800 lines:
$big_py"

big=$(find harness/cli -name '*.[ch]' | sort | xargs wc -l |
  awk '$2 != "total" && $1 > 400 { printf "%s: %d lines\n", $2, $1 }')
[ -z "$big" ] || fail "command modules over 400 lines:
$big"

# Mutable statics: a `static` or `_Thread_local` declaration without `const`
# that is not a function (a `(` before any `=`).
statics=$(find harness/core harness/ir -name '*.[ch]' | sort |
  xargs awk '
    /^[ \t]*(static|_Thread_local)[ \t]/ && !/const/ {
      line = $0
      eq = index(line, "="); paren = index(line, "(")
      if (paren && (!eq || paren < eq)) next
      printf "%s:%d: %s\n", FILENAME, FNR, line
    }')
[ -z "$statics" ] || fail "mutable statics in harness/core or harness/ir:
$statics"

# Layers: the headers each layer owns, and who may include them.
headers_of() {
  find "harness/$1" -name '*.h' -exec basename {} \; | sort
}
check_layer() { # LAYER ABOVE...
  layer=$1
  shift
  for above in "$@"; do
    for h in $(headers_of "$above"); do
      hits=$(grep -rn "#include \"$h\"" "harness/$layer" || true)
      [ -z "$hits" ] || fail "harness/$layer includes $above's $h:
$hits"
    done
  done
}
check_layer core ir process report commands cli
check_layer ir process report commands cli
check_layer process report commands cli
check_layer report commands cli
check_layer commands cli

# One process layer: the calls that start, signal or reap a process, or
# change what it is, outside harness/process/ (comments aside, as far as a
# grep can); main.c makes lctx itself not dumpable before anything else.
spawners=$(find reference harness fuzzers bench conformance -name '*.[ch]' |
  grep -v '^harness/process/' | sort |
  xargs grep -nE '(^|[^A-Za-z0-9_.>])(fork|vfork|posix_spawnp?|execvp?e?|execl[pe]?|kill|killpg|wait|waitpid|wait3|wait4|waitid|prctl|setsid|setpgid|close_range)[ \t]*\(' |
  grep -vE '^[^:]+:[0-9]+:[ \t]*(/?\*|//)' |
  grep -vE '^harness/cli/main\.c:[0-9]+:[ \t]*\(void\)prctl\(PR_SET_DUMPABLE, 0,' ||
  true)
[ -z "$spawners" ] || fail "processes started, signalled or reaped outside harness/process/:
$spawners"

huge=$(find harness -name '*.[ch]' | sort | xargs wc -l |
  awk '$2 != "total" && $1 > 1000 { printf "%s: %d lines\n", $2, $1 }')
[ -z "$huge" ] || fail "files under harness/ over 1,000 lines:
$huge"

cycles=$(python3 - <<'PY'
import os, re, sys
mods, uses = {}, {}
for d, _, files in os.walk("harness"):
    for f in files:
        if f.endswith((".c", ".h")):
            mods.setdefault(re.sub(r"_private$", "", f[:-2]), []).append(os.path.join(d, f))
for m, paths in mods.items():
    uses[m] = set()
    for p in paths:
        for inc in re.findall(r'^#include "([^"]+)\.h"', open(p).read(), re.M):
            name = re.sub(r"_private$", "", os.path.basename(inc))
            if name in mods and name != m:
                uses[m].add(name)
seen, stack, found = {}, [], []
def visit(m):
    seen[m] = 1
    stack.append(m)
    for n in sorted(uses[m]):
        if seen.get(n) == 1:
            found.append(" -> ".join(stack[stack.index(n):] + [n]))
        elif n not in seen:
            visit(n)
    stack.pop()
    seen[m] = 2
for m in sorted(uses):
    if m not in seen:
        visit(m)
print("\n".join(found))
PY
)
[ -z "$cycles" ] || fail "include cycles between modules of harness/:
$cycles"

# COVERAGE.md: every `test_...` name it cites exists in a test source.
missing=""
for t in $(grep -o '`test_[A-Za-z0-9_]*`' tests/COVERAGE.md | tr -d '`' | sort -u); do
  grep -q "\b$t\b" tests/*.c tests/*.h tests/*.sh tests/*/*.c 2>/dev/null || missing="$missing $t"
done
[ -z "$missing" ] || fail "tests/COVERAGE.md names tests that do not exist:$missing"

# Paths: harness/....c or .h named in a document or a comment must exist.
stale=""
for p in $(git ls-files 2>/dev/null | xargs grep -Ioh 'harness/[A-Za-z0-9_/]*\.[ch]\b' 2>/dev/null | sort -u); do
  [ -f "$p" ] || stale="$stale $p"
done
[ -z "$stale" ] || fail "documents or comments name files that do not exist:$stale"

# The folders lctx writes by default (conform's and fuzz's reports) and the
# build are never committed by accident.
for d in build lctx-conform lctx-fuzz; do
  if git rev-parse --git-dir >/dev/null 2>&1; then
    git check-ignore -q "$d/x" || fail ".gitignore does not ignore $d/"
  else
    grep -q "^/*$d/\$" .gitignore || fail ".gitignore does not ignore $d/"
  fi
done

# One reader of report.json (report/report_read.c; report_write.c writes
# it): no other file of harness/ reads its stamp or counts by their keys,
# or holds the bound it checks them against.
readers=$(find harness -name '*.[ch]' |
  grep -vE '^harness/report/report_(read|write)\.[ch]$' | sort |
  xargs grep -nE '"(implementation_kind|cases_run|cases_skipped|cases_unsupported|cases_by_source|results_kept|results_not_kept|modules_unjudged)"' ||
  true)
readers="$readers$(find harness/report harness/commands -name '*.[ch]' |
  grep -vE '^harness/report/report_read\.[ch]$' | sort |
  xargs grep -nE '1(U?LL)? *<< *40' || true)"
[ -n "$(grep -l 'json_loadf' harness/report/report_read.c 2>/dev/null)" ] ||
  fail "harness/report/report_read.c does not read report.json (json_loadf)"
[ -z "$readers" ] || fail "report.json read outside harness/report/report_read.c:
$readers"

# The case stays small (copied and zeroed often): the build asserts it.
grep -q '^_Static_assert(sizeof(lctx_case) <= 16384,' \
  harness/core/case/case.h ||
  fail "harness/core/case/case.h: no _Static_assert(sizeof(lctx_case) <= 16384, ...)"

if [ "$failures" -ne 0 ]; then
  echo "test_house.sh: $failures failure(s)"
  exit 1
fi
echo "test_house.sh: all house rules hold"
