#!/bin/sh
# tools/setup-jax.sh VERSION [PYTHON]
#
# Installs jax==VERSION and jaxlib==VERSION, pinned and hashed, into a virtual
# environment build/jax/venv-VERSION (relative to the repository root), for
# conformance/adapters/jax_adapter.py. The packages come from
# conformance/adapters/requirements/jax-VERSION.txt, installed with
#   python -m pip install --no-compile --require-hashes --only-binary=:all: --no-deps -r FILE
# so pip installs exactly the listed wheels, checks every hash, builds nothing
# and upgrades nothing else (not even pip).
#
# The interpreter: CPython 3.11 for JAX 0.10.x and older, CPython 3.12 for
# 0.11.x (jax 0.11 needs Python >= 3.12). It is looked for on PATH, then in
# pyenv's versions directory; PYTHON (second argument) overrides the search.
# When it is missing the script exits with status 3.
#
# Then pytest (conformance/adapters/requirements/pytest.txt: pytest, its
# dependencies and wheel, pinned and hashed, installed the same way) for
# lctx_jax's pytest plugin and its tests; it has a stamp of its own
# (lctx-pytest.sha256), so a venv made before it gets it on the next run
# without JAX being installed again.
#
# A stamp file in the venv holds the sha256 of the requirements file: a second
# run with the same file does nothing. A venv without a matching stamp (an
# older requirements file, or an install that was killed) is recreated.
#
# LCTX_JAX=off in the environment: install nothing, say so loudly, exit 0.
#
# Exit status: 0 installed (or already installed, or LCTX_JAX=off), 1 the
# install or the final check failed, 2 bad usage or no requirements file,
# 3 the interpreter this JAX version needs is not on this machine.
set -eu

say() { echo "lctx: $*"; }
die() {
  code=$1
  shift
  echo "lctx: error: $*" >&2
  exit "$code"
}

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ] || [ -z "$1" ]; then
  echo "usage: sh tools/setup-jax.sh VERSION [PYTHON]" >&2
  exit 2
fi
VERSION=$1
PYTHON_ARG=${2:-}

if [ "${LCTX_JAX:-}" = "off" ]; then
  echo "lctx: LCTX_JAX=off: JAX $VERSION is NOT installed and the real-JAX tests are SKIPPED"
  exit 0
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

REQ=conformance/adapters/requirements/jax-$VERSION.txt
VENV=build/jax/venv-$VERSION
STAMP=$VENV/lctx-requirements.sha256

[ -f "$REQ" ] || die 2 "no requirements file $REQ (the versions with one: $(ls conformance/adapters/requirements 2>/dev/null | sed -n 's/^jax-\(.*\)\.txt$/\1/p' | tr '\n' ' ' | sed 's/ $//'))"

case "$VERSION" in
  0.[0-9].* | 0.10.*) PYVER=3.11 ;;
  0.11.* | 0.1[2-9].*) PYVER=3.12 ;;
  *) die 2 "do not know which Python JAX $VERSION needs (3.11 for <= 0.10.x, 3.12 for 0.11.x)" ;;
esac

# The requirements file's hash; also what the stamp holds.
if command -v sha256sum >/dev/null 2>&1; then
  WANT=$(sha256sum "$REQ" | cut -d' ' -f1)
else
  WANT=$(openssl dgst -sha256 -r "$REQ" | cut -d' ' -f1)
fi

# pytest.txt into the venv, unless its stamp says it is there.
PYTEST_REQ=conformance/adapters/requirements/pytest.txt
PYTEST_STAMP=$VENV/lctx-pytest.sha256
install_pytest() {
  if command -v sha256sum >/dev/null 2>&1; then
    want=$(sha256sum "$PYTEST_REQ" | cut -d' ' -f1)
  else
    want=$(openssl dgst -sha256 -r "$PYTEST_REQ" | cut -d' ' -f1)
  fi
  if [ -f "$PYTEST_STAMP" ] && [ "$(cat "$PYTEST_STAMP")" = "$want" ]; then
    return 0
  fi
  say "installing pytest (pinned and hashed, from $PYTEST_REQ) into $VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --require-hashes --only-binary=:all: --no-deps -r "$PYTEST_REQ" ||
    die 1 "pip could not install $PYTEST_REQ into $VENV"
  echo "$want" >"$PYTEST_STAMP"
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$VENV/bin/python" ]; then
  say "JAX $VERSION already installed in $VENV"
  install_pytest
  exit 0
fi

# Does "$1" run and is it CPython $PYVER? Sets FOUND to its real executable
# (not a pyenv shim).
is_python() {
  [ -n "$1" ] || return 1
  v=$("$1" -c 'import sys, platform; print("%s %d.%d %s" % (platform.python_implementation(), sys.version_info[0], sys.version_info[1], sys.executable))' 2>/dev/null) || return 1
  case "$v" in
    "CPython $PYVER /"*) FOUND=${v#"CPython $PYVER "} ;;
    *) return 1 ;;
  esac
}

PYTHON=""
if [ -n "$PYTHON_ARG" ]; then
  is_python "$PYTHON_ARG" || die 3 "$PYTHON_ARG is not a working CPython $PYVER, which JAX $VERSION needs"
  PYTHON=$FOUND
else
  # PATH first (pyenv's shims fail when that version is not selected, which
  # is_python sees), then pyenv's versions directory.
  for c in "python$PYVER" python3; do
    if p=$(command -v "$c" 2>/dev/null) && is_python "$p"; then
      PYTHON=$FOUND
      break
    fi
  done
  if [ -z "$PYTHON" ]; then
    PYENV_ROOT_DIR=${PYENV_ROOT:-}
    if [ -z "$PYENV_ROOT_DIR" ] && command -v pyenv >/dev/null 2>&1; then
      PYENV_ROOT_DIR=$(pyenv root 2>/dev/null || true)
    fi
    [ -n "$PYENV_ROOT_DIR" ] || PYENV_ROOT_DIR=${HOME:-/nonexistent}/.pyenv
    for p in "$PYENV_ROOT_DIR"/versions/"$PYVER"*/bin/python"$PYVER"; do
      if [ -x "$p" ] && is_python "$p"; then
        PYTHON=$FOUND
      fi
    done
  fi
  [ -n "$PYTHON" ] || die 3 "JAX $VERSION needs Python $PYVER and there is none here (looked for python$PYVER and python3 on PATH and in pyenv's versions); install one, or pass it: sh tools/setup-jax.sh $VERSION /path/to/python$PYVER"
fi

# venv and ensurepip: Debian's python3 has them only with python3-venv (or
# python3.X-venv).
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  case "$PYTHON" in
    /usr/bin/*)
      # python3-venv is the default Python's; other versions have their own.
      if [ "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)" = "$PYVER" ]; then
        pkgs=python3-venv
      else
        pkgs=python$PYVER-venv
      fi
      say "$PYTHON has no venv/ensurepip; installing$(printf ' %s' $pkgs) with apt"
      . "$ROOT/tools/apt.sh"
      apt_can_install ||
        die 1 "$PYTHON lacks venv/ensurepip and this is not root; as root run: apt-get update && apt-get install -y --no-install-recommends $pkgs"
      # shellcheck disable=SC2086
      apt_install $pkgs
      "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 ||
        die 1 "$PYTHON still lacks venv/ensurepip after installing $pkgs"
      ;;
    *)
      die 1 "$PYTHON lacks the venv or ensurepip module; use a Python $PYVER that has them (sh tools/setup-jax.sh $VERSION PYTHON)"
      ;;
  esac
fi

if [ -e "$VENV" ]; then
  if [ -f "$STAMP" ]; then
    say "$VENV was made from another requirements file; recreating it"
  else
    say "$VENV has no stamp (an interrupted install?); recreating it"
  fi
  rm -rf "$VENV"
fi

say "creating $VENV with $PYTHON ($("$PYTHON" -c 'import sys; print(sys.version.split()[0])'))"
mkdir -p build/jax
"$PYTHON" -m venv "$VENV"

N=$(grep -c '^[A-Za-z0-9]' "$REQ")
say "installing jax==$VERSION ($N packages, pinned and hashed, from $REQ)"
# --no-compile: a module is compiled when it is first imported (the venv is
# writable to the tests and to lctx's peers), not every module of every
# wheel at install time: most of jaxlib's and scipy's are never imported.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  --no-compile --require-hashes --only-binary=:all: --no-deps -r "$REQ" ||
  die 1 "pip could not install $REQ into $VENV (left without a stamp; the next run starts afresh)"

GOT=$("$VENV/bin/python" -c 'import jax, jaxlib; print(jax.__version__)') ||
  die 1 "import jax, jaxlib fails in $VENV"
[ "$GOT" = "$VERSION" ] || die 1 "$VENV has jax $GOT, not $VERSION"
echo "$WANT" >"$STAMP"
say "JAX $GOT installed in $VENV"
install_pytest
