#!/usr/bin/env bash
# Assembles the root file system of storbench's image for one architecture,
# offline but for the distribution's package archive (no base image: no
# container registry is needed): fio from the distribution's package and the
# libraries it really needs, found by following the ELF NEEDED entries from
# fio down (not the packages' Depends, which pull in perl, python and more),
# the dynamic loader, a passwd entry for the non-root user and /tmp.
# usage: scripts/image-rootfs.sh ARCH DIR
#   ARCH  amd64 or arm64 (Go's names, as scripts/release.sh ARCHES)
#   DIR   created: DIR/usr/bin/fio, DIR/usr/lib/TRIPLET/..., the loader at
#         fio's PT_INTERP path, DIR/etc/passwd, DIR/etc/group, DIR/tmp
# The binary and the CA certificates are the caller's to add.
# fio for the machine's own architecture is the installed one (/usr/bin/fio,
# its libraries from /); for another architecture fio:ARCH is downloaded with
# apt-get download (after dpkg --add-architecture ARCH and apt-get update, as
# root), and each library's package is the one that holds the same library
# for the machine's architecture (dpkg -S), so the machine needs fio
# installed either way. Environment:
#   SYSROOT  reuse (or keep) the extracted packages of a foreign ARCH here
set -euo pipefail

die() { echo "image-rootfs: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: scripts/image-rootfs.sh ARCH DIR"
arch=$1
out=$2
case $arch in
  amd64) triplet=x86_64-linux-gnu ;;
  arm64) triplet=aarch64-linux-gnu ;;
  *) die "ARCH $arch: want amd64 or arm64" ;;
esac
command -v readelf >/dev/null || die "readelf is missing: install binutils"
[ -x /usr/bin/fio ] || die "/usr/bin/fio is missing: install the fio package (apt-get install fio)"
hostarch=$(dpkg --print-architecture)

# needed FILE: the sonames FILE names in its NEEDED entries.
needed() { readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
# runpath FILE: the directories of its RUNPATH or RPATH ($ORIGIN is not
# used by these libraries and is refused rather than guessed).
runpath() {
  local p
  p=$(readelf -dW "$1" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
  case $p in *'$'*) die "$1: RUNPATH $p: \$ORIGIN is not handled" ;; esac
  echo "$p" | tr ':' '\n' | grep . || true
}
interp() { readelf -lW "$1" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p'; }

# find SONAME FILE: the directory (in the image's terms) holding SONAME for
# FILE: its RUNPATH, then the loader's default directories.
find_lib() {
  local d
  for d in $(runpath "$2") /lib/$triplet /usr/lib/$triplet /lib /usr/lib; do
    if [ -e "$root$d/$1" ]; then echo "$d"; return; fi
  done
  return 1
}

mkdir -p "$out"
list=$(mktemp)
root=/
cleanup=
trap 'rm -f "$list"; [ -z "$cleanup" ] || rm -rf "$cleanup"' EXIT
if [ "$arch" != "$hostarch" ]; then
  root=${SYSROOT:-}
  if [ -z "$root" ]; then root=$(mktemp -d); cleanup=$root; fi
  mkdir -p "$root/debs"
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    dpkg --add-architecture "$arch" || die "dpkg --add-architecture $arch failed (run as root)"
    apt-get update -q >&2 || die "apt-get update failed"
  fi
fi

# fetch PACKAGE...: download PACKAGE:ARCH (those not yet there, in one
# apt-get call) and unpack them into the root.
fetch() {
  local want=() p
  for p; do [ -e "$root/debs/$p.done" ] || want+=("$p:$arch"); done
  [ ${#want[@]} -gt 0 ] || return 0
  if ! (cd "$root/debs" && apt-get download -q "${want[@]}" >/dev/null 2>&1); then
    # The package lists may be stale (a newer version replaced the one
    # they name) or absent.
    apt-get update -q >&2 || true
    (cd "$root/debs" && apt-get download -q "${want[@]}" >&2) || die "apt-get download ${want[*]} failed"
  fi
  for p in "${want[@]}"; do
    p=${p%:*}
    dpkg-deb -x "$(ls "$root/debs/$p"_*_"$arch".deb | head -1)" "$root"
    touch "$root/debs/$p.done"
  done
}
[ "$root" = / ] || fetch fio libc6

fio=$root/usr/bin/fio
[ -x "$fio" ] || die "$fio is missing"
loader=$(interp "$fio")
[ -n "$loader" ] || die "$fio names no program interpreter"

# closure: breadth first from fio, every NEEDED soname found as the loader
# finds it, printed as "DIR SONAME"; the sonames found nowhere in the root
# are left in the array missing. The loader's own soname is the loader.
closure() {
  local -A seen=(["$(basename "$loader")"]=1)
  local queue=("$fio") file so dir
  missing=()
  while [ ${#queue[@]} -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    for so in $(needed "$file"); do
      [ -n "${seen[$so]:-}" ] && continue
      seen[$so]=1
      if dir=$(find_lib "$so" "$file"); then
        echo "$dir $so"
        queue+=("$root$dir/$so")
      else
        missing+=("$so")
      fi
    done
  done
}

# A foreign root grows by the packages of what is missing, level by level.
while :; do
  closure >"$list"
  [ ${#missing[@]} -gt 0 ] || break
  [ "$root" != / ] || die "${missing[*]}: needed by fio but not installed"
  pkgs=()
  for so in "${missing[@]}"; do
    pkg=$(dpkg -S "*/$so" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] || die "$so (needed by fio): no installed package holds it for $hostarch, so the $arch package is unknown"
    [ -e "$root/debs/$pkg.done" ] && die "$so (needed by fio) is not in $pkg:$arch"
    pkgs+=("$pkg")
  done
  fetch $(printf '%s\n' "${pkgs[@]}" | sort -u)
done

mkdir -p "$out/usr/bin" "$out/etc" "$out$(dirname "$loader")"
cp -L "$fio" "$out/usr/bin/fio"
cp -L "$root$loader" "$out$loader"
while read -r dir so; do
  # Default directories collapse into /usr/lib/TRIPLET; a RUNPATH
  # directory is kept, as the library that names it looks there.
  case $dir in /lib/$triplet | /lib | /usr/lib) dest=/usr/lib/$triplet ;; *) dest=$dir ;; esac
  mkdir -p "$out$dest"
  cp -L "$root$dir/$so" "$out$dest/$so"
done <"$list"

# A user for running as non-root (the chart's default, uid 65532) and /tmp
# for fio's and storbench's scratch files.
printf 'root:x:0:0:root:/root:/sbin/nologin\nstorbench:x:65532:65532:storbench:/tmp:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nstorbench:x:65532:\n' >"$out/etc/group"
mkdir -p "$out/tmp"
chmod 1777 "$out/tmp"
