#!/bin/sh
# Installs the Debian packages lctx needs, if any are missing, and says what
# it does. Used by `make run` and `make test`; safe to run again (it only
# installs what dpkg reports missing). Needs root (or sudo) only when
# something is missing.
set -eu

# python3-yaml: tests/test_ci_config.sh reads the workflow files with it;
# strace: tests/test_install.sh checks with it which files the installed lctx
# opens.
PACKAGES="clang-19 libclang-rt-19-dev llvm-19 libmlir-19-dev afl++ lld-14 llvm-14 \
libcmocka-dev lcov cmake ninja-build libjansson-dev clang-format pkg-config make zip \
python3 python3-yaml perl chromium strace"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "lctx: all required packages are installed"
  exit 0
fi

echo "lctx: installing missing packages:$missing"
. "$(dirname -- "$0")/apt.sh"
if ! apt_can_install; then
  echo "lctx: error: packages missing and not running as root; as root run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
# shellcheck disable=SC2086
apt_install $missing
echo "lctx: packages installed"
