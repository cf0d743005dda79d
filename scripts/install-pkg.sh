#!/usr/bin/env bash
# Installs a package from the distribution (make test, make demo and make
# release call this for the tools they need when missing). Never asks:
# CI runs it without a terminal.
# usage: scripts/install-pkg.sh NAME
set -euo pipefail
pkg=$1
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "$pkg is missing and this user cannot install packages: install $pkg, then run again" >&2; exit 1; }
  sudo="sudo -n"
fi
echo "installing $pkg from the distribution's packages" >&2
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # Another apt (a parallel job) may hold the lock: wait for it.
  $sudo apt-get update -qq -o DPkg::Lock::Timeout=600
  $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 "$pkg" >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  $sudo dnf install -y -q "$pkg"
elif command -v yum >/dev/null 2>&1; then
  $sudo yum install -y -q "$pkg"
elif command -v zypper >/dev/null 2>&1; then
  $sudo zypper --non-interactive install "$pkg"
else
  echo "no known package manager: install $pkg by hand" >&2; exit 1
fi
