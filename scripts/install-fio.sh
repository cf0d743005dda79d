#!/usr/bin/env bash
# Installs fio from the distribution's packages (make test and make demo call
# this when fio is missing).
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "fio is missing and this user cannot install packages: install fio, then run again" >&2; exit 1; }
  sudo="sudo -n"
fi
echo "installing fio from the distribution's packages" >&2
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq fio >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  $sudo dnf install -y -q fio
elif command -v yum >/dev/null 2>&1; then
  $sudo yum install -y -q fio
elif command -v zypper >/dev/null 2>&1; then
  $sudo zypper --non-interactive install fio
else
  echo "no known package manager: install fio by hand" >&2; exit 1
fi
fio --version
