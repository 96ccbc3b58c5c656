#!/bin/sh
# make-seeds.sh - regenerates the fuzz_model seeds from their text twins.
#
# corpus/seeds/fuzz_model/X.bin is `lctx encode` of the readable twin
# corpus/seeds/fuzz_model/text/X.case (the byte form has no expectations; the
# twin keeps them, and its comments). The replay driver reads only the files
# directly in the folder, so the twins in text/ are not replayed as bytes.
# ctest seeds_up_to_date fails when a .bin and its twin disagree.
#
# Usage: fuzzers/make-seeds.sh [--all] [CASE...]
#   --all    add every conformance/cases/*.case first
#   CASE...  .case files to add as twins first (copied into text/)
# Then every twin is encoded again and .bin files without a twin are removed.
# Uses $LCTX, else build/release/harness/lctx (`make build` makes it).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
seeds="$top/corpus/seeds/fuzz_model"
lctx=${LCTX:-$top/build/release/harness/lctx}

if [ ! -x "$lctx" ]; then
  echo "make-seeds.sh: error: no lctx at $lctx (run \`make build\`, or set LCTX)" >&2
  exit 2
fi

mkdir -p "$seeds/text"
if [ "${1:-}" = --all ]; then
  shift
  set -- "$top"/conformance/cases/*.case "$@"
fi
for case_file in "$@"; do
  case "$case_file" in
  *.case) cp "$case_file" "$seeds/text/" ;;
  *)
    echo "make-seeds.sh: error: $case_file is not a .case file" >&2
    exit 2
    ;;
  esac
done

count=0
for twin in "$seeds"/text/*.case; do
  [ -e "$twin" ] || continue
  name=$(basename "$twin" .case)
  "$lctx" encode "$twin" >"$seeds/$name.bin.tmp"
  mv "$seeds/$name.bin.tmp" "$seeds/$name.bin"
  count=$((count + 1))
done
for bin in "$seeds"/*.bin; do
  [ -e "$bin" ] || continue
  name=$(basename "$bin" .bin)
  if [ ! -e "$seeds/text/$name.case" ]; then
    echo "make-seeds.sh: removing $bin (no text twin)"
    rm "$bin"
  fi
done
echo "make-seeds.sh: $count fuzz_model seeds in $seeds"
