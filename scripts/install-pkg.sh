#!/usr/bin/env bash
# Installs a package from the distribution (make test and make demo call this
# for fio and chromium when they are missing).
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
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "$pkg" >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  $sudo dnf install -y -q "$pkg"
elif command -v yum >/dev/null 2>&1; then
  $sudo yum install -y -q "$pkg"
elif command -v zypper >/dev/null 2>&1; then
  $sudo zypper --non-interactive install "$pkg"
else
  echo "no known package manager: install $pkg by hand" >&2; exit 1
fi
