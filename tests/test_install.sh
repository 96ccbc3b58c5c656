#!/bin/sh
# test_install.sh - pins what `cmake --install` gives a user and a plugin
# author, with nothing of the source tree:
#   - the build installs into a temporary prefix: bin/lctx, the headers, the
#     reference library, lib/cmake/lctx (lctxConfig.cmake, its version file,
#     the targets), lib/pkgconfig (lctx.pc, lctx-impl-abi.pc), the spec table
#     and the conformance cases under share/lctx, the LICENSE;
#   - one version: `lctx --version`, the .pc files, the package's version
#     file and LCTX_VERSION_STRING of the installed header are project()'s;
#   - the example C plugin (a copy of its one source file) builds against the
#     installed package with find_package(lctx) and lctx::impl_abi, and with
#     `cc $(pkg-config --cflags lctx)`;
#   - the installed lctx, run from another folder, judges both builds with
#     the installed spec table and cases: exit 0, every conformance case run,
#     nothing failed;
#   - the installed lctx without its share/lctx says that no spec table was
#     found (and where it looked) and fails; LCTX_DATA_DIR names another
#     folder, and a wrong one is named;
#   - no path of the source tree is compiled into lctx (the strings of its
#     .rodata, source file names of diagnostics aside), and the installed
#     lctx, moved to another prefix and run from another folder, fuzzes
#     (`lctx fuzz --time 3` with the build's fuzz_model_mutant as the
#     fuzz_model build of $LCTX_FUZZ_BUILD, seeds and dictionary from
#     share/lctx) and promotes (into share/lctx/corpus/regressions) without
#     opening anything of the source tree (under strace); with no fuzz
#     build it says where it looked and fails; the build's
#     fuzz_model_mutant and strace missing are failures (make deps
#     installs what they need), never a check left out;
#   - the example plugin's folder alone, copied elsewhere, builds and is
#     judged as its README.md says: the README's ```sh blocks are run as
#     written (its /opt/lctx is the temporary prefix; `cc` is C_COMPILER,
#     CMake's generator Ninja; its whole `lctx conform` run is given
#     --no-domain: the exhaustive domain of this plugin's source, judged by
#     the same lctx, is lctx_conform's, test_conform.sh, and here would
#     double this test's time), standalone CMake with find_package(lctx)
#     then the installed `lctx conform` (result: PASS), pkg-config, then
#     `lctx case export` of a case, explained and judged alone; the
#     installed lctx (no example plugin) replays fuzz_differential with
#     LCTX_DIFF_PLUGIN naming that build, and without it says to set it.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR VERSION C_COMPILER
set -u
BUILD=$1
SRC=$2
VERSION=$3
CC=$4
. "$(dirname -- "$0")/lib.sh"
unset LCTX_SPEC LCTX_CASES LCTX_DATA_DIR
prefix=$tmp/prefix

# 1. The install and what it holds.
cmake --install "$BUILD" --prefix "$prefix" >"$tmp/install.out" 2>&1 ||
  { cat "$tmp/install.out"; fail "cmake --install failed"; finish_failures "test_install: "; }
for f in bin/lctx include/lctx/impl_abi.h include/lctx/lctx.h \
  include/lctx/version.h lib/liblctx_reference.a \
  lib/cmake/lctx/lctxConfig.cmake lib/cmake/lctx/lctxConfigVersion.cmake \
  lib/cmake/lctx/lctxTargets.cmake lib/pkgconfig/lctx.pc \
  lib/pkgconfig/lctx-impl-abi.pc \
  share/lctx/conformance/spec/backend-selection.lspec \
  share/lctx/fuzzers/dict/fuzz_model.dict \
  share/lctx/corpus/regressions/fuzz_model/README.md \
  share/lctx/conformance/adapters/jax_export.py \
  share/lctx/conformance/adapters/lctx_jax/lint.py \
  share/lctx/conformance/examples/python/lctx_example.py \
  share/doc/lctx/LICENSE; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
[ ! -e "$prefix/include/lctx/mlir_emit.h" ] ||
  fail "mlir_emit.h (it needs MLIR) is installed"
src_cases=$(ls "$SRC/conformance/cases" | grep -c '\.case$')
inst_cases=$(ls "$prefix/share/lctx/conformance/cases" | grep -c '\.case$')
[ "$src_cases" -gt 0 ] && [ "$inst_cases" = "$src_cases" ] ||
  fail "share/lctx holds $inst_cases cases, the source tree $src_cases"
grep -q "Apache License" "$prefix/share/doc/lctx/LICENSE" ||
  fail "the LICENSE is not the Apache License"

# 1b. The installed lctx lints Python lowering code with its own lctx_jax
# (share/lctx/conformance/adapters), from any folder.
mkdir -p "$tmp/lintdir"
cp "$SRC/tests/user/user_rules.py" "$tmp/lintdir/"
(cd "$tmp/lintdir" && "$prefix/bin/lctx" lint user_rules.py) \
  >"$tmp/lint.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "installed lctx lint user_rules.py: exit $rc, not 1: $(tail -3 "$tmp/lint.out")"
grep -q "^user_rules.py:[0-9]*:[0-9]*: get-backend: " "$tmp/lint.out" ||
  fail "installed lctx lint found no get-backend: $(tail -3 "$tmp/lint.out")"

# 2. One version, project()'s.
lctx=$prefix/bin/lctx
"$lctx" --version | grep -q "^lctx $VERSION " ||
  fail "lctx --version is not $VERSION: $("$lctx" --version)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for pc in lctx lctx-impl-abi; do
  v=$(pkg-config --modversion "$pc" 2>&1)
  [ "$v" = "$VERSION" ] || fail "pkg-config --modversion $pc: '$v', not $VERSION"
done
grep -q "PACKAGE_VERSION \"$VERSION\"" "$prefix/lib/cmake/lctx/lctxConfigVersion.cmake" ||
  fail "lctxConfigVersion.cmake is not $VERSION"

# 3. The example plugin against the installed package: find_package.
mkdir -p "$tmp/fp" "$tmp/pc" "$tmp/elsewhere"
cp "$SRC"/conformance/examples/c_plugin/*.[ch] "$tmp/fp/"
cp "$SRC"/conformance/examples/c_plugin/*.[ch] "$tmp/pc/"
cat >"$tmp/fp/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(plugin_from_package LANGUAGES C)
find_package(lctx $VERSION EXACT REQUIRED)
if(NOT TARGET lctx::reference OR NOT IS_DIRECTORY "\${LCTX_DATA_DIR}")
  message(FATAL_ERROR "lctx::reference or LCTX_DATA_DIR missing")
endif()
file(GLOB plugin_sources "\${CMAKE_CURRENT_SOURCE_DIR}/*.c")
list(REMOVE_ITEM plugin_sources "\${CMAKE_CURRENT_SOURCE_DIR}/show_version.c")
add_library(plugin MODULE \${plugin_sources})
target_link_libraries(plugin PRIVATE lctx::impl_abi)
set_target_properties(plugin PROPERTIES PREFIX "lib" SUFFIX ".so"
                      C_VISIBILITY_PRESET hidden)
add_executable(show_version show_version.c)
target_link_libraries(show_version PRIVATE lctx::impl_abi)
EOF
cat >"$tmp/fp/show_version.c" <<'EOF'
#include <lctx/lctx.h>
#include <stdio.h>
int main(void) {
  puts(LCTX_VERSION_STRING);
  return 0;
}
EOF
if ! cmake -S "$tmp/fp" -B "$tmp/fp/build" -G Ninja -DCMAKE_C_COMPILER="$CC" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/fp.out" 2>&1 ||
  ! cmake --build "$tmp/fp/build" >>"$tmp/fp.out" 2>&1; then
  cat "$tmp/fp.out"
  fail "the plugin does not build with find_package(lctx)"
fi
v=$("$tmp/fp/build/show_version" 2>&1)
[ "$v" = "$VERSION" ] || fail "LCTX_VERSION_STRING of the installed header: '$v'"

# 4. The same with pkg-config.
cflags=$(pkg-config --cflags lctx) || fail "pkg-config --cflags lctx failed"
case "$cflags" in
*"$prefix"* | *"/lib/pkgconfig/../../include"*) ;;
*) fail "pkg-config --cflags lctx does not point into the prefix: $cflags" ;;
esac
# shellcheck disable=SC2086 # cflags is a word list
"$CC" -shared -fPIC -fvisibility=hidden $cflags -o "$tmp/pc/liblctx_example_plugin.so" \
  "$tmp"/pc/*.c >"$tmp/pc.out" 2>&1 ||
  { cat "$tmp/pc.out"; fail "the plugin does not build with pkg-config"; }

# 5. The installed lctx, from another folder, judges both builds.
for build in fp/build/libplugin.so pc/liblctx_example_plugin.so; do
  name=$(dirname "$build" | tr / _)
  (cd "$tmp/elsewhere" &&
    "$lctx" conform --impl "$tmp/$build" --no-domain --random 500 --quiet \
      --report-dir "$tmp/elsewhere/$name" >"$tmp/$name.out" 2>&1)
  rc=$?
  [ "$rc" = 0 ] || fail "installed lctx conform on $build: exit $rc: $(tail -5 "$tmp/$name.out")"
  grep -q "spec $prefix/bin/../share/lctx/conformance/spec/" "$tmp/$name.out" ||
    fail "$build: not judged by the installed spec: $(head -1 "$tmp/$name.out")"
  grep -q "($src_cases conformance, 0 domain, 500 random" "$tmp/$name.out" ||
    fail "$build: not every installed case was run: $(grep '^conform:' "$tmp/$name.out")"
  [ "$(report_field "$tmp/elsewhere/$name" '*' fail)" = 0 ] || fail "$build: failures"
  [ "$(report_field "$tmp/elsewhere/$name" '*' pass)" -gt 1000 ] ||
    fail "$build: too few operations judged"
done

# 6. Without share/lctx: said, and a failure; LCTX_DATA_DIR.
mkdir -p "$tmp/lone/bin"
cp "$lctx" "$tmp/lone/bin/lctx"
(cd "$tmp/elsewhere" && "$tmp/lone/bin/lctx" conform --impl "$tmp/pc/liblctx_example_plugin.so" \
  --no-domain --random 10 --report-dir "$tmp/elsewhere/lone") >"$tmp/lone.out" 2>&1
rc=$?
[ "$rc" != 0 ] || fail "lctx without share/lctx passed"
grep -q "no spec table found: .*$tmp/lone/bin/../share/lctx" "$tmp/lone.out" ||
  fail "lctx without share/lctx does not say where it looked: $(head -3 "$tmp/lone.out")"
(cd "$tmp/elsewhere" && LCTX_DATA_DIR="$prefix/share/lctx" "$tmp/lone/bin/lctx" conform \
  --impl "$tmp/pc/liblctx_example_plugin.so" --no-domain --random 10 \
  --report-dir "$tmp/elsewhere/datadir") >"$tmp/datadir.out" 2>&1 ||
  fail "LCTX_DATA_DIR=PREFIX/share/lctx: exit $?: $(tail -3 "$tmp/datadir.out")"
LCTX_DATA_DIR="$tmp/nowhere" "$lctx" check-spec --spec "$SRC/conformance/spec/backend-selection.lspec" \
  --help >/dev/null 2>"$tmp/nowhere.out"
grep -q "LCTX_DATA_DIR=$tmp/nowhere has no conformance/spec/" "$tmp/nowhere.out" ||
  fail "a wrong LCTX_DATA_DIR is not named: $(cat "$tmp/nowhere.out")"

# 7. Nothing of the source tree compiled in: no string of .rodata names a
#    folder or data file of it (UBSan's and clang's source file names of
#    diagnostics aside).
objcopy -O binary --only-section=.rodata "$lctx" "$tmp/rodata" ||
  fail "objcopy cannot read the .rodata of $lctx"
compiled=$(strings -a "$tmp/rodata" | grep -F "$SRC" |
  grep -Ev '\.[ch]$|unnamed struct at' | head -5)
[ -z "$compiled" ] || fail "lctx holds paths of the source tree: $compiled"
[ -d "$prefix/share/lctx/corpus/seeds/fuzz_model" ] ||
  fail "not installed: share/lctx/corpus/seeds/fuzz_model"

# 8. The installed lctx, moved, fuzzes and promotes with its own data only.
moved=$tmp/moved
cp -R "$prefix" "$moved"
mkdir -p "$tmp/away" "$tmp/fuzzbuild"
(cd "$tmp/away" && "$moved/bin/lctx" fuzz --engine libfuzzer \
  --target fuzz_model --time 3 --out "$tmp/away/none") >"$tmp/nobuild.out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "lctx fuzz without a fuzz build: exit $rc, want 2"
grep -q "no libfuzzer build of fuzz_model: $moved/bin/../libexec/lctx/fuzz_model is not an executable file (looked in the installation's libexec/lctx)" \
  "$tmp/nobuild.out" || fail "lctx fuzz without a fuzz build: $(cat "$tmp/nobuild.out")"
# What the checks of 8 need, each a failure when missing: the build's
# libFuzzer fuzz_model_mutant (the default build makes it where clang's
# libFuzzer links: libclang-rt-19-dev) and strace (Debian's strace); both
# come with `make deps` (tools/install-deps.sh).
mutant=$BUILD/fuzzers/fuzz_model_mutant
ready=yes
[ -x "$mutant" ] || {
  fail "no $mutant: build it (cmake --build $BUILD --target fuzz_model_mutant; it needs clang's libFuzzer, libclang-rt-19-dev: make deps); lctx fuzz and promote cannot be checked"
  ready=
}
command -v strace >/dev/null 2>&1 || {
  fail "no strace: install it (Debian's strace: make deps, tools/install-deps.sh); the files the installed lctx opens cannot be checked"
  ready=
}
if [ -n "$ready" ]; then
  cp "$mutant" "$tmp/fuzzbuild/fuzz_model"
  # Under strace: every file a process opens or looks at, in strace-*.txt
  # (LeakSanitizer does not run under ptrace). With --seccomp-bpf (strace
  # 5.3 and later) only those calls stop a process, not every call of
  # libFuzzer's: the same trace at a fraction of the time.
  trace="strace -f -qq -e trace=%file -o"
  strace -f -qq --seccomp-bpf -e trace=%file -o /dev/null true 2>/dev/null &&
    trace="strace -f -qq --seccomp-bpf -e trace=%file -o"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  # shellcheck disable=SC2086 # trace is a word list
  (cd "$tmp/away" && LCTX_FUZZ_BUILD="$tmp/fuzzbuild" $trace "$tmp/strace-fuzz.txt" "$moved/bin/lctx" \
    fuzz --engine libfuzzer --target fuzz_model --time 3 --out "$tmp/away/camp") \
    >"$tmp/fuzz.out" 2>&1
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 1 ] ||
    fail "installed lctx fuzz: exit $rc: $(tail -5 "$tmp/fuzz.out")"
  [ -s "$tmp/strace-fuzz.txt" ] || fail "strace wrote no trace of lctx fuzz"
  # Every seed of share/lctx is in the campaign's copy, or was dropped from
  # it because it stopped a run (the mutant crashes on some): then it is a
  # crash input in OUT/artifacts.
  missing=
  for seed in "$SRC"/corpus/seeds/fuzz_model/*; do
    [ -f "$seed" ] && [ "${seed##*/}" != README.md ] || continue
    [ -f "$tmp/away/camp/seeds/${seed##*/}" ] && continue
    found=
    for a in "$tmp/away/camp/artifacts"/*; do
      [ -f "$a" ] && cmp -s "$a" "$seed" && found=yes
    done
    [ -n "$found" ] || missing="$missing ${seed##*/}"
  done
  [ -z "$missing" ] ||
    fail "seeds of share/lctx neither in the campaign nor a stopping input:$missing: $(tail -3 "$tmp/fuzz.out")"
  grep -qF "\"$moved/bin/../share/lctx/fuzzers/dict/fuzz_model.dict\"" "$tmp/strace-fuzz.txt" ||
    fail "the campaign did not read the installed dictionary"
  grep -rq "^Dictionary: [1-9]" "$tmp/away/camp/logs" ||
    fail "libFuzzer ran without a dictionary: $(ls "$tmp/away/camp/logs")"
  finding=$(ls -d "$tmp"/away/camp/findings/*/ 2>/dev/null | head -n 1)
  [ -n "$finding" ] || finding=$(ls -d "$tmp"/away/camp/seeds/* | head -n 1)
  # shellcheck disable=SC2086 # trace is a word list
  (cd "$tmp/away" && $trace "$tmp/strace-promote.txt" "$moved/bin/lctx" promote --target fuzz_model \
    "$finding") >"$tmp/promote.out" 2>&1 ||
    fail "installed lctx promote: exit $?: $(cat "$tmp/promote.out")"
  grep -q "^promoted .* -> $moved/bin/../share/lctx/corpus/regressions/fuzz_model/" "$tmp/promote.out" ||
    fail "not promoted into the installed regressions: $(cat "$tmp/promote.out")"
  opened=$(cat "$tmp"/strace-*.txt | grep -F "\"$SRC" | head -3)
  [ -z "$opened" ] || fail "the installed lctx looked into the source tree: $opened"
fi

# 9. The example plugin's folder alone, as its README says: its ```sh blocks
#    run as written, in a copy of the folder, against the prefix.
readme=$SRC/conformance/examples/c_plugin/README.md
mkdir -p "$tmp/alone" "$tmp/bin"
cp -R "$SRC/conformance/examples/c_plugin" "$tmp/alone/"
rm -rf "$tmp/alone/c_plugin/build"
ln -s "$(command -v "$CC")" "$tmp/bin/cc"
awk -v dir="$tmp" -v prefix="$prefix" '
  /^```sh$/ { on = 1; n++; next }
  /^```$/ { on = 0; next }
  on { gsub("/opt/lctx", prefix)
       if (n == 1 && $0 ~ /\/bin\/lctx conform --impl [^ ]+$/) $0 = $0 " --no-domain"
       print > (dir "/readme-block-" n ".sh") }' "$readme"
grep -q '/bin/lctx conform --impl [^ ]* --no-domain$' "$tmp/readme-block-1.sh" ||
  fail "the example plugin's README.md: block 1 has no 'lctx conform --impl LIB' line"
for b in 1 2 3; do
  [ -s "$tmp/readme-block-$b.sh" ] ||
    fail "the example plugin's README.md has no command block $b (build, pkg-config, case export)"
done
# run_block N: the README's block N in the copy, installed lctx first on PATH.
run_block() {
  (cd "$tmp/alone/c_plugin" && PATH="$tmp/bin:$prefix/bin:$PATH" CMAKE_GENERATOR=Ninja \
    sh -e "$tmp/readme-block-$1.sh") >"$tmp/readme-block-$1.out" 2>&1
}
if [ -s "$tmp/readme-block-1.sh" ]; then
  run_block 1 || fail "the README's standalone build: exit $?: $(tail -5 "$tmp/readme-block-1.out")"
  grep -q "^result: PASS$" "$tmp/readme-block-1.out" ||
    fail "the README's standalone build is not judged PASS: $(tail -3 "$tmp/readme-block-1.out")"
  grep -q "find_package\|lctx::impl_abi" "$tmp/alone/c_plugin/CMakeLists.txt" ||
    fail "the plugin's CMakeLists.txt does not use the installed package"
  # The installed lctx has no example plugin: replay of fuzz_differential
  # says to set LCTX_DIFF_PLUGIN (as its help does), and runs with it.
  seeds=$prefix/share/lctx/corpus/seeds/fuzz_differential
  (cd "$tmp/elsewhere" && "$lctx" replay --target fuzz_differential "$seeds") \
    >"$tmp/replay-none.out" 2>&1
  rc=$?
  [ "$rc" = 2 ] && grep -q "set LCTX_DIFF_PLUGIN" "$tmp/replay-none.out" ||
    fail "installed lctx replay of fuzz_differential without LCTX_DIFF_PLUGIN: exit $rc: $(cat "$tmp/replay-none.out")"
  (cd "$tmp/elsewhere" && LCTX_DIFF_PLUGIN="$tmp/alone/c_plugin/build/liblctx_example_plugin.so" \
    "$lctx" replay --target fuzz_differential "$seeds") >"$tmp/replay-plugin.out" 2>&1 ||
    fail "installed lctx replay of fuzz_differential with LCTX_DIFF_PLUGIN: exit $?: $(tail -3 "$tmp/replay-plugin.out")"
fi
if [ -s "$tmp/readme-block-2.sh" ]; then
  run_block 2 || fail "the README's pkg-config build: exit $?: $(tail -5 "$tmp/readme-block-2.out")"
  (cd "$tmp/elsewhere" && "$lctx" conform --impl "$tmp/alone/c_plugin/liblctx_example_plugin.so" \
    --no-domain --random 500 --quiet --report-dir "$tmp/elsewhere/alone-pc") \
    >"$tmp/alone-pc.out" 2>&1 || fail "the README's pkg-config build: conform exit $?"
fi
if [ -s "$tmp/readme-block-3.sh" ]; then
  run_block 3 || fail "the README's case export: exit $?: $(tail -5 "$tmp/readme-block-3.out")"
  grep -q "lctx case export" "$tmp/readme-block-3.sh" ||
    fail "the README's failure block does not use lctx case export"
  grep -q "^result: PASS$" "$tmp/readme-block-3.out" ||
    fail "the README's exported case is not judged PASS: $(tail -3 "$tmp/readme-block-3.out")"
fi

finish_failures "test_install: "
echo "test_install: PASS"
