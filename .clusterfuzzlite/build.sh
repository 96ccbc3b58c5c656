#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz entry point, copied to $SRC/build.sh by the
# Dockerfile and run by `compile` in $SRC/lctx: builds every fuzz target,
# its seed corpus zip, dictionary and options into $OUT with
# fuzzers/oss-fuzz-build.sh (POSIX sh; see the comment at its top).
set -eu
exec sh "$SRC/lctx/fuzzers/oss-fuzz-build.sh"
