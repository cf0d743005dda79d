#!/usr/bin/env bash
# Installs packages from the distribution (make test, make demo, make
# release and make cluster-test call this for the tools they need when
# missing). Never asks: CI runs it without a terminal.
# usage: scripts/install-pkg.sh [--no-install-recommends] NAME...
# --no-install-recommends leaves out what the packages only recommend
# (Ceph's monitor, OSD and gateway: 73 packages, 258 MB, instead of
# several hundred more).
set -euo pipefail
norec=""
if [ "${1:-}" = "--no-install-recommends" ]; then
  norec=1
  shift
fi
[ $# -gt 0 ] || { echo "usage: scripts/install-pkg.sh [--no-install-recommends] NAME..." >&2; exit 2; }
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "$* missing and this user cannot install packages: install $*, then run again" >&2; exit 1; }
  sudo="sudo -n"
fi
echo "installing $* from the distribution's packages" >&2
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # Another apt (a parallel job) may hold the lock: wait for it.
  $sudo apt-get update -qq -o DPkg::Lock::Timeout=600
  $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 ${norec:+--no-install-recommends} "$@" >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  $sudo dnf install -y -q ${norec:+--setopt=install_weak_deps=False} "$@"
elif command -v yum >/dev/null 2>&1; then
  $sudo yum install -y -q "$@"
elif command -v zypper >/dev/null 2>&1; then
  $sudo zypper --non-interactive install ${norec:+--no-recommends} "$@"
else
  echo "no known package manager: install $* by hand" >&2; exit 1
fi
