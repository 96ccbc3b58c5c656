# tools/apt.sh - sourced by the install scripts: installs Debian packages
# with apt-get, as root directly or through sudo.

# apt_can_install: sets SUDO to "" as root or to "sudo" when sudo exists;
# returns 1 (and sets nothing) when neither.
apt_can_install() {
  if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
  elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    return 1
  fi
}

# apt_install PACKAGE...: apt-get update, then installs the packages without
# their recommendations, non-interactively, with $SUDO (see apt_can_install).
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "$@"
}
