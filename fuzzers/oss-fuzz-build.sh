#!/bin/sh
# oss-fuzz-build.sh - builds lctx's fuzz targets the way OSS-Fuzz and
# ClusterFuzzLite expect, with no CMake project and no jansson.
#
# Honours $CC $CXX $CFLAGS $CXXFLAGS $LIB_FUZZING_ENGINE $OUT $SRC (all
# required; CFLAGS and CXXFLAGS may be empty) and $WORK (optional: the folder
# for objects; a temporary folder, removed at the end, when unset).
# LCTX_WERROR=1 adds -Werror (the simulated test sets it; real OSS-Fuzz builds
# do not, so that a new compiler's warning cannot stop fuzzing).
# LCTX_EMBED_WITH=od embeds the spec with od even when cmake is present.
#
# Compiles reference/src/*.c, harness/core/*/*.c (the core layer: libc and the
# reference only; its folder is its source list, as in harness/CMakeLists.txt) and the
# embedded spec table (conformance/spec/backend-selection.lspec, turned into C
# by cmake/LctxEmbedRun.cmake, or by od when cmake is absent) with $CC $CFLAGS,
# and links each target of the one table, lctx_fuzz_targets[] in
# harness/core/checks/fuzzcheck.c, but those whose row needs MLIR (the core
# layer links none), from its glue fuzzers/<target>.c and the row's extra
# source, if any (compiled as one more object for that target alone:
# fuzz_differential's example plugin), with $CXX $CXXFLAGS
# $LIB_FUZZING_ENGINE. It puts into $OUT for each target built:
#   <target>                  the fuzzer
#   <target>_seed_corpus.zip  flat zip: regular files at the top of
#                             corpus/seeds/<target>/ and corpus/regressions/
#                             <target>/ (README.md and subfolders left out)
#   <target>.dict             from fuzzers/dict/<target>.dict
#   <target>.options          from fuzzers/<target>.options
# The project root is found relative to this script, so $SRC/lctx/fuzzers/
# oss-fuzz-build.sh and a checkout run in place both work.
set -eu

me=oss-fuzz-build.sh
die() {
  printf '%s: error: %s\n' "$me" "$*" >&2
  exit 1
}
say() {
  printf '%s: %s\n' "$me" "$*"
}

# --- Environment -----------------------------------------------------------
for var in CC CXX LIB_FUZZING_ENGINE OUT SRC; do
  eval "val=\${$var:-}"
  [ -n "$val" ] || die "\$$var is not set (OSS-Fuzz sets CC CXX CFLAGS" \
    "CXXFLAGS LIB_FUZZING_ENGINE OUT SRC; set them to run this script by hand)"
done
for var in CFLAGS CXXFLAGS; do
  isset=""
  eval "isset=\${$var+yes}"
  [ "$isset" = yes ] || die "\$$var is not set (it may be empty, but must be set)"
done
[ -d "$SRC" ] || die "\$SRC=$SRC is not a folder"

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd) ||
  die "cannot find the project root from $0"
for f in reference/include/lctx/lctx.h harness/core/checks/fuzzcheck.h \
  conformance/spec/backend-selection.lspec cmake/LctxEmbedRun.cmake; do
  [ -f "$root/$f" ] || die "$root does not look like lctx: $f is missing"
done

mkdir -p -- "$OUT" || die "cannot create \$OUT=$OUT"
out=$(CDPATH='' cd -- "$OUT" && pwd) || die "cannot enter \$OUT=$OUT"

if [ -n "${WORK:-}" ]; then
  mkdir -p -- "$WORK" || die "cannot create \$WORK=$WORK"
  build="$(CDPATH='' cd -- "$WORK" && pwd)/lctx-oss-fuzz" ||
    die "cannot enter \$WORK=$WORK"
  rm -rf -- "$build"
  mkdir -p -- "$build" || die "cannot create $build"
else
  build=$(mktemp -d "${TMPDIR:-/tmp}/lctx-oss-fuzz.XXXXXX") ||
    die "cannot create a temporary folder"
  trap 'rm -rf -- "$build"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi

# The zip tool: zip, else python3's zipfile.
if command -v zip >/dev/null 2>&1; then
  zipper=zip
elif command -v python3 >/dev/null 2>&1 &&
  python3 -c 'import zipfile' >/dev/null 2>&1; then
  zipper=python3
else
  die "neither zip nor python3 (with zipfile) is available to pack the seeds"
fi

say "project root: $root"
say "CC=$CC CXX=$CXX"
say "CFLAGS=$CFLAGS"
say "LIB_FUZZING_ENGINE=$LIB_FUZZING_ENGINE"
say "objects in $build, results in $out"

# --- Flags -----------------------------------------------------------------
# The project's own warnings (cmake/LctxWarnings.cmake), minus -Werror unless
# LCTX_WERROR=1. $CFLAGS comes first: -std and the includes must win.
warnings="-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
warnings="$warnings -Wformat=2 -Wvla"
if [ "${LCTX_WERROR:-0}" = 1 ]; then
  warnings="$warnings -Werror"
fi
lctx_cflags="-std=c17 -D_POSIX_C_SOURCE=200809L $warnings"

# The core layer's folders, each an include directory.
core_includes=""
for d in "$root"/harness/core/*/; do
  core_includes="$core_includes -I ${d%/}"
done

# compile SOURCE OBJECT
compile() {
  # shellcheck disable=SC2086 # flags are word lists by design
  $CC $CFLAGS $lctx_cflags -I "$root/reference/include" $core_includes \
    -c "$1" -o "$2" || die "compiling $1 failed"
}

# --- The embedded spec table -----------------------------------------------
spec="$root/conformance/spec/backend-selection.lspec"
spec_c="$build/spec_embedded.c"
if [ "${LCTX_EMBED_WITH:-}" != od ] && command -v cmake >/dev/null 2>&1; then
  cmake -DIN="$spec" -DOUT="$spec_c" -DSYMBOL=lctx_embedded_spec \
    -P "$root/cmake/LctxEmbedRun.cmake" || die "embedding $spec with cmake failed"
  say "embedded the spec table with cmake"
else
  # The same C file as cmake/LctxEmbedRun.cmake writes, made with od.
  command -v od >/dev/null 2>&1 || die "neither cmake nor od is available" \
    "to embed the spec table"
  size=$(wc -c <"$spec" | tr -d ' ')
  {
    printf '/* Generated from %s; do not edit. */\n' "$spec"
    printf 'const char lctx_embedded_spec[] = {\n'
    od -An -v -tx1 "$spec" | awk '{
      for (i = 1; i <= NF; i++) {
        printf "0x%s,", $i
        if (++n % 12 == 0) printf "\n"
      }
    }'
    printf '0x00};\nconst unsigned long lctx_embedded_spec_size = %s;\n' "$size"
  } >"$spec_c" || die "embedding $spec with od failed"
  say "embedded the spec table with od"
fi

# --- The library objects ---------------------------------------------------
# Everything a fuzz check needs is the core layer, harness/core/*/*.c; the
# layers above it (ir/, process/, report/, commands/, cli/) bring MLIR, POSIX and jansson.
objects=""
mkdir -p "$build/reference" "$build/harness" "$build/fuzzers"
for src in "$root"/reference/src/*.c; do
  [ -f "$src" ] || die "no sources in $root/reference/src"
  obj="$build/reference/$(basename "$src" .c).o"
  compile "$src" "$obj"
  objects="$objects $obj"
done
for src in "$root"/harness/core/*/*.c; do
  [ -f "$src" ] || die "no sources in $root/harness/core"
  obj="$build/harness/$(basename "$(dirname "$src")")-$(basename "$src" .c).o"
  compile "$src" "$obj"
  objects="$objects $obj"
done
compile "$spec_c" "$build/spec_embedded.o"
objects="$objects $build/spec_embedded.o"
say "compiled the reference model, the harness and the spec table"

# --- The seed corpus -------------------------------------------------------
# pack_seeds TARGET ZIP: flat zip of the regular files at the top of
# corpus/seeds/TARGET/ and corpus/regressions/TARGET/ (not README.md, not
# hidden files, not subfolders such as text/). A regression whose name is
# already taken by a different seed is packed as regression-NAME.
pack_seeds() {
  stage="$build/seeds/$1"
  rm -rf -- "$stage"
  mkdir -p -- "$stage"
  count=0
  for dir in "$root/corpus/seeds/$1" "$root/corpus/regressions/$1"; do
    [ -d "$dir" ] || continue
    for f in "$dir"/*; do
      [ -f "$f" ] || continue
      name=$(basename -- "$f")
      [ "$name" != README.md ] || continue
      if [ -e "$stage/$name" ]; then
        cmp -s -- "$f" "$stage/$name" && continue
        name="regression-$name"
      fi
      cp -- "$f" "$stage/$name"
      count=$((count + 1))
    done
  done
  [ "$count" -gt 0 ] ||
    die "no seeds for $1: corpus/seeds/$1/ has no files at its top level"
  rm -f -- "$2"
  if [ "$zipper" = zip ]; then
    (cd -- "$stage" && zip -q -X -j "$2" ./*) || die "zip failed for $2"
  else
    python3 - "$stage" "$2" <<'EOF' || die "python3 zipfile failed for $2"
import os, sys, zipfile
stage, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(stage)):
        z.write(os.path.join(stage, name), name)
EOF
  fi
  say "$1: $count seed files in $(basename -- "$2") (with $zipper)"
}

# --- The targets -----------------------------------------------------------
# The rows of harness/core/checks/fuzzcheck.c's lctx_fuzz_targets[] table,
# one a line: {"NAME", NEEDS_MLIR, "EXTRA_SOURCE" or NULL, CHECK or NULL},
# (so helpers such as a benchmark's empty target are not shipped). Read as
# lines "NAME NEEDS_MLIR EXTRA_SOURCE"; each target needs its glue file
# fuzzers/<target>.c.
table="$root/harness/core/checks/fuzzcheck.c"
rows=$(sed -n '/lctx_fuzz_targets\[\][[:space:]]*=/,/^};/p' "$table" |
  sed -n 's/^[[:space:]]*{[[:space:]]*"\(fuzz_[A-Za-z0-9_]*\)",[[:space:]]*\([a-z]*\),[[:space:]]*\([^,]*\),.*/\1 \2 \3/p' |
  tr -d '"')
[ -n "$rows" ] ||
  die "no fuzz targets: no {\"fuzz_...\", ...} row in harness/core/checks/fuzzcheck.c's" \
    "lctx_fuzz_targets[] table"
targets=$(printf '%s\n' "$rows" | awk '$2 == "false" { print $1 }' |
  tr '\n' ' ' | sed 's/ $//')
skipped=$(printf '%s\n' "$rows" | awk '$2 != "false" { print $1 }' |
  tr '\n' ' ' | sed 's/ $//')
[ -n "$targets" ] ||
  die "no fuzz targets without MLIR in harness/core/checks/fuzzcheck.c's" \
    "lctx_fuzz_targets[] table"
say "targets (from harness/core/checks/fuzzcheck.c): $targets"
[ -z "$skipped" ] ||
  say "skipped (they need MLIR, which this build does not link): $skipped"

for t in $targets; do
  dict="$root/fuzzers/dict/$t.dict"
  options="$root/fuzzers/$t.options"
  [ -f "$root/fuzzers/$t.c" ] ||
    die "$t: in harness/core/checks/fuzzcheck.c's table, but fuzzers/$t.c is missing"
  grep -q 'LLVMFuzzerTestOneInput\|LCTX_FUZZ_TARGET(' "$root/fuzzers/$t.c" ||
    die "$t: fuzzers/$t.c defines no LLVMFuzzerTestOneInput (nor LCTX_FUZZ_TARGET)"
  [ -f "$dict" ] || die "$t: the dictionary fuzzers/dict/$t.dict is missing"
  [ -f "$options" ] || die "$t: the options file fuzzers/$t.options is missing"
  compile "$root/fuzzers/$t.c" "$build/fuzzers/$t.o"
  target_objects="$build/fuzzers/$t.o"
  extra=$(printf '%s\n' "$rows" | awk -v t="$t" '$1 == t { print $3 }')
  if [ "$extra" != NULL ]; then
    # A C file, or a folder: every .c in it.
    if [ -d "$root/$extra" ]; then
      extra_files=$(find "$root/$extra" -maxdepth 1 -name '*.c' | sort)
    else
      extra_files=$root/$extra
    fi
    [ -n "$extra_files" ] && [ -e "$root/$extra" ] ||
      die "$t: its extra source $extra (harness/core/checks/fuzzcheck.c) is missing"
    for f in $extra_files; do
      [ -f "$f" ] || die "$t: its extra source $f is missing"
      compile "$f" "$build/fuzzers/$t-$(basename "$f" .c).o"
      target_objects="$target_objects $build/fuzzers/$t-$(basename "$f" .c).o"
    done
    say "$t: with the extra source $extra"
  fi
  # shellcheck disable=SC2086 # flag and object lists are word lists
  $CXX $CXXFLAGS $target_objects $objects $LIB_FUZZING_ENGINE \
    -o "$out/$t" || die "linking $t failed"
  cp -- "$dict" "$out/$t.dict"
  cp -- "$options" "$out/$t.options"
  pack_seeds "$t" "$out/${t}_seed_corpus.zip"
  say "$t: built $out/$t"
done
say "done: $targets"
