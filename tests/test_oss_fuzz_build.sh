#!/bin/sh
# test_oss_fuzz_build.sh - the OSS-Fuzz / ClusterFuzzLite build, simulated
# without Docker. Usage: sh tests/test_oss_fuzz_build.sh [PROJECT_ROOT]
#
# Checks the .clusterfuzzlite/ files (project.yaml says C; the Dockerfile
# copies the tree to $SRC/lctx and build.sh to $SRC/), then does what the
# Dockerfile and OSS-Fuzz's `compile` do: $SRC is a temporary folder holding
# `lctx` (a symlink to the project) and build.sh, run with bash -eu from
# $SRC/lctx with OSS-Fuzz's libFuzzer + ASan/UBSan settings (clang-19) and
# LCTX_WERROR=1. Then, for every target in harness/core/checks/fuzzcheck.c's
# lctx_fuzz_targets[] table that needs no MLIR (those that do must be absent
# from $OUT): $OUT holds the binary, a non-empty flat seed zip
# (every seed and regression file, no README.md, no folders), the .dict and
# the .options; the binary runs its unzipped seed corpus (-runs=0), then 2000
# mutations with the dictionary and the [libfuzzer] options, and exits 0 with
# no LCTX-FINDING line. Exits 1 naming everything that failed; all temporary
# files are removed.
set -u

started=$(date +%s)
me=test_oss_fuzz_build
failures=""
fail() {
  printf '%s: FAIL: %s\n' "$me" "$*" >&2
  failures="$failures
  $*"
}
ok() {
  printf '%s: ok: %s\n' "$me" "$*"
}
die() {
  printf '%s: FAIL: %s\n' "$me" "$*" >&2
  exit 1
}

root=${1:-$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)}
root=$(CDPATH='' cd -- "$root" && pwd) || die "no project at $1"
[ -f "$root/fuzzers/oss-fuzz-build.sh" ] ||
  die "$root/fuzzers/oss-fuzz-build.sh is missing"

# --- Tools ---------------------------------------------------------------
for tool in clang-19 clang++-19; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool is missing (apt-get install clang-19 libclang-rt-19-dev," \
      "or run tools/install-deps.sh)"
done
if command -v unzip >/dev/null 2>&1; then
  zip_list() { unzip -Z1 "$1"; }
  zip_extract() { unzip -q -o "$1" -d "$2"; }
elif command -v python3 >/dev/null 2>&1; then
  zip_list() {
    python3 -c 'import sys, zipfile
for n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)' "$1"
  }
  zip_extract() {
    python3 -c 'import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
  }
else
  die "neither unzip nor python3 is available to read the seed zips"
fi
if command -v bash >/dev/null 2>&1; then shell="bash"; else shell="sh"; fi

# --- The ClusterFuzzLite files ---------------------------------------------
cfl="$root/.clusterfuzzlite"
grep -qx 'language: c' "$cfl/project.yaml" 2>/dev/null ||
  fail ".clusterfuzzlite/project.yaml is missing or does not say 'language: c'"
# shellcheck disable=SC2016 # the lines hold a literal $SRC
for line in 'FROM gcr.io/oss-fuzz-base/base-builder:v1' 'COPY . $SRC/lctx' \
  'WORKDIR $SRC/lctx' 'COPY .clusterfuzzlite/build.sh $SRC/'; do
  grep -qxF "$line" "$cfl/Dockerfile" 2>/dev/null ||
    fail ".clusterfuzzlite/Dockerfile lacks the line: $line"
done
grep -q 'fuzzers/oss-fuzz-build.sh' "$cfl/build.sh" 2>/dev/null ||
  fail ".clusterfuzzlite/build.sh is missing or does not call" \
    "fuzzers/oss-fuzz-build.sh"
[ -z "$failures" ] && ok ".clusterfuzzlite/ project.yaml, Dockerfile, build.sh"
[ -f "$cfl/build.sh" ] || die "cannot simulate the build without build.sh"

# --- The simulated build -------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lctx-oss-fuzz-test.XXXXXX") ||
  die "cannot create a temporary folder"
trap 'rm -rf -- "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$tmp/src" "$tmp/out" "$tmp/work" "$tmp/corpus" "$tmp/artifacts"
ln -s "$root" "$tmp/src/lctx"
cp "$cfl/build.sh" "$tmp/src/build.sh"

flags="-O1 -fno-omit-frame-pointer -gline-tables-only"
flags="$flags -fsanitize=address,undefined -fsanitize=fuzzer-no-link"
if (cd "$tmp/src/lctx" &&
  env CC=clang-19 CXX=clang++-19 CFLAGS="$flags" CXXFLAGS="$flags" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC="$tmp/src" OUT="$tmp/out" \
    WORK="$tmp/work" SANITIZER=address FUZZING_ENGINE=libfuzzer \
    FUZZING_LANGUAGE=c ARCHITECTURE=x86_64 LCTX_WERROR=1 LCTX_EMBED_WITH= \
    "$shell" -eu "$tmp/src/build.sh") >"$tmp/build.log" 2>&1; then
  sed 's/^/  | /' "$tmp/build.log"
  if grep -qi 'warning:' "$tmp/build.log"; then
    fail "the build printed warnings"
  else
    ok "build.sh with clang-19, ASan+UBSan, -fsanitize=fuzzer, -Werror"
  fi
else
  sed 's/^/  | /' "$tmp/build.log" >&2
  die "build.sh failed (log above)"
fi

# --- What landed in $OUT, and does it run ----------------------------------
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# libfuzzer_flags OPTIONS: the [libfuzzer] section as -key=value flags
# (dict left out: the test passes -dict itself, after checking the name).
libfuzzer_flags() {
  section="" options_name=$(basename "$1")
  while IFS= read -r line || [ -n "$line" ]; do
    line=$(printf '%s' "$line" | sed 's/^[[:space:]]*//;s/[[:space:]]*$//')
    case $line in
    '' | '#'* | ';'*) continue ;;
    '['*']') section=$line ;;
    *=*)
      [ "$section" = '[libfuzzer]' ] || continue
      key=$(printf '%s' "${line%%=*}" | sed 's/[[:space:]]*$//')
      value=$(printf '%s' "${line#*=}" | sed 's/^[[:space:]]*//')
      if [ "$key" = dict ]; then
        [ -f "$tmp/out/$value" ] ||
          fail "$options_name: dict = $value, not a file in \$OUT"
      else
        printf ' -%s=%s' "$key" "$value"
      fi
      ;;
    *) fail "$options_name: a line is neither [section] nor key = value:" \
      "$line" ;;
    esac
  done <"$1"
}

# run_fuzzer NAME LOG ARGS...: runs, fails on a non-zero exit or a finding.
run_fuzzer() {
  name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then
    if grep -q '^LCTX-FINDING ' "$log"; then
      fail "$name: LCTX-FINDING without a crash: $(grep '^LCTX-FINDING ' "$log")"
      return 1
    fi
    return 0
  fi
  tail -n 40 "$log" | sed 's/^/  | /' >&2
  finding=$(grep '^LCTX-FINDING ' "$log" | head -n 1)
  fail "$name: exited non-zero${finding:+ with $finding} (log tail above)"
  return 1
}

# The targets: the rows of harness/core/checks/fuzzcheck.c's
# lctx_fuzz_targets[] ({"NAME", NEEDS_MLIR, ...}), those that need no MLIR;
# the others must not be built.
rows=$(sed -n '/lctx_fuzz_targets\[\][[:space:]]*=/,/^};/p' \
  "$root/harness/core/checks/fuzzcheck.c" |
  sed -n 's/^[[:space:]]*{[[:space:]]*"\(fuzz_[A-Za-z0-9_]*\)",[[:space:]]*\([a-z]*\),.*/\1 \2/p')
targets=$(printf '%s\n' "$rows" | awk '$2 == "false" { print $1 }' |
  tr '\n' ' ' | sed 's/ $//')
mlir_targets=$(printf '%s\n' "$rows" | awk 'NF && $2 != "false" { print $1 }' |
  tr '\n' ' ' | sed 's/ $//')
[ -n "$targets" ] || fail "no target in harness/core/checks/fuzzcheck.c's lctx_fuzz_targets[]"
for t in $mlir_targets; do
  if [ -e "$tmp/out/$t" ]; then
    fail "$t: needs MLIR, yet built into \$OUT"
  else
    ok "$t: needs MLIR, left out of \$OUT"
  fi
done

for t in $targets; do
  bin="$tmp/out/$t" zip="$tmp/out/${t}_seed_corpus.zip"
  missing=""
  [ -x "$bin" ] || missing="$missing $t"
  [ -s "$zip" ] || missing="$missing ${t}_seed_corpus.zip"
  [ -s "$tmp/out/$t.dict" ] || missing="$missing $t.dict"
  [ -s "$tmp/out/$t.options" ] || missing="$missing $t.options"
  if [ -n "$missing" ]; then
    fail "$t: missing or empty in \$OUT:$missing"
    continue
  fi

  # The zip: flat, every seed and regression there, no README.md.
  if ! zip_list "$zip" >"$tmp/$t.names" 2>"$tmp/$t.ziperr"; then
    fail "$t: cannot list ${t}_seed_corpus.zip: $(cat "$tmp/$t.ziperr")"
    continue
  fi
  entries=$(grep -c . "$tmp/$t.names")
  [ "$entries" -gt 0 ] || fail "$t: ${t}_seed_corpus.zip lists no entry"
  grep -q / "$tmp/$t.names" && fail "$t: the seed zip is not flat:" \
    "$(grep / "$tmp/$t.names" | head -n 3 | tr '\n' ' ')"
  grep -qx README.md "$tmp/$t.names" && fail "$t: the seed zip holds README.md"
  for f in "$root/corpus/seeds/$t"/* "$root/corpus/regressions/$t"/*; do
    seed=$(basename -- "$f")
    if [ -f "$f" ] && [ "$seed" != README.md ]; then
      grep -qxF -e "$seed" -e "regression-$seed" "$tmp/$t.names" ||
        fail "$t: $(basename -- "$(dirname -- "$f")")/$seed is not in the zip"
    fi
  done
  ok "$t: binary, ${t}_seed_corpus.zip ($entries entries, flat), $t.dict," \
    "$t.options in \$OUT"

  corpus="$tmp/corpus/$t"
  mkdir -p "$corpus"
  zip_extract "$zip" "$corpus" || {
    fail "$t: cannot unzip its seed corpus"
    continue
  }
  if run_fuzzer "$t -runs=0" "$tmp/$t.run0.log" "$bin" -runs=0 \
    -artifact_prefix="$tmp/artifacts/$t-" "$corpus"; then
    ok "$t: executed its $entries seeds (-runs=0), exit 0, no finding"
  fi
  libfuzzer_flags "$tmp/out/$t.options" >"$tmp/$t.flags"
  options=$(cat "$tmp/$t.flags")
  # shellcheck disable=SC2086 # the options are a word list
  if run_fuzzer "$t -runs=2000" "$tmp/$t.fuzz.log" "$bin" -runs=2000 -seed=1 \
    -dict="$tmp/out/$t.dict" $options \
    -artifact_prefix="$tmp/artifacts/$t-" "$corpus"; then
    ok "$t: -runs=2000 with $t.dict and${options:- no options}," \
      "exit 0, no finding"
  fi
done

elapsed=$(($(date +%s) - started))
if [ -n "$failures" ]; then
  printf '%s: FAILED after %ss:%s\n' "$me" "$elapsed" "$failures" >&2
  exit 1
fi
printf '%s: all checks passed for %s in %ss\n' "$me" "$targets" "$elapsed"
