#!/usr/bin/env bash
# Builds storbench's release artefacts into OUT (default dist/), offline but
# for the Go module proxy:
#   storbench-VERSION-linux-ARCH          static binaries (CGO_ENABLED=0)
#   storbench_VERSION_ARCH.deb, storbench-VERSION.ARCH.rpm
#                                         the binary, the agent's systemd unit,
#                                         bash/zsh/fish completions, man
#                                         pages, the licence
#   storbench-VERSION-linux-ARCH.oci.tar  the OCI image FROM scratch
#                                         (podman load -i, or skopeo copy
#                                         oci-archive:FILE docker://REGISTRY/...)
#   SHA256SUMS                            over every artefact
# usage: scripts/release.sh [OUT]
# Environment:
#   VERSION   default: git describe (vX.Y.Z[-N-gHASH][-dirty]), or
#             v0.0.0-git.HASH when no tag exists
#   COMMIT    default: git rev-parse HEAD
#   ARCHES    default: "amd64 arm64"
#   NFPM      nfpm binary (default: .tools/nfpm)
#   IMAGE     image name (default: ghcr.io/storbench/storbench)
#   NO_IMAGE  set to 1 to build no image (when podman cannot run here)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
go=${GO:-go}
arches=${ARCHES:-amd64 arm64}
nfpm=${NFPM:-$root/.tools/nfpm}
image=${IMAGE:-ghcr.io/storbench/storbench}

die() { echo "release: $*" >&2; exit 1; }

if [ -z "${VERSION:-}" ]; then
  VERSION=$(git -C "$root" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null) ||
    VERSION=v0.0.0-git.$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null) ||
    die "not a git checkout: set VERSION (e.g. VERSION=v1.2.0)"
  case $VERSION in v0.0.0-git.*) git -C "$root" diff --quiet HEAD 2>/dev/null || VERSION=$VERSION.dirty ;; esac
fi
case $VERSION in
  v[0-9]*) ;;
  *) die "VERSION=$VERSION: want v followed by a number (v1.2.0)" ;;
esac
COMMIT=${COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || true)}
[ -x "$nfpm" ] || die "nfpm is missing at $nfpm: make release installs it (go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2)"
if [ "${NO_IMAGE:-}" != 1 ]; then
  command -v podman >/dev/null 2>&1 || die "podman is missing: make release installs it from the distribution, or set NO_IMAGE=1"
  cacerts=/etc/ssl/certs/ca-certificates.crt
  [ -r "$cacerts" ] || die "$cacerts is missing: install the ca-certificates package (the image needs it for S3 over TLS)"
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
# podman works in a storage of its own under the staging directory (vfs: no
# mounts needed), so the build neither sees nor leaves images in the
# machine's storage: the archive is the artefact.
podman="podman --root $stage/containers/storage --runroot $stage/containers/run --storage-driver vfs"

cleanup() {
  # Images in the private storage are podman's to remove (rootless, their
  # files belong to mapped users).
  if [ -d "$stage/containers" ]; then $podman rmi --all --force >/dev/null 2>&1 || true; fi
  rm -rf "$stage"
}
trap cleanup EXIT
pkg="github.com/storbench/storbench/internal/cli"
ldflags="-s -w -X $pkg.Version=$VERSION -X $pkg.Commit=$COMMIT"
# The commit's time stamps the image, so the same commit builds the same image.
epoch=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)

artefacts=()
for arch in $arches; do
  bin=storbench-$VERSION-linux-$arch
  echo "release: $bin" >&2
  (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch $go build -trimpath -ldflags "$ldflags" -o "$out/$bin" ./cmd/storbench)
  artefacts+=("$bin")
done

# Completions come from a binary that runs here (they are the same for every
# architecture).
host=$out/storbench-$VERSION-linux-$($go env GOARCH)
if [ "$($go env GOOS)" != linux ] || [ ! -x "$host" ]; then
  host=$stage/host-storbench
  (cd "$root" && CGO_ENABLED=0 $go build -trimpath -ldflags "$ldflags" -o "$host" ./cmd/storbench)
fi
mkdir -p "$stage/common/completions"
"$host" completion bash >"$stage/common/completions/storbench.bash"
"$host" completion zsh >"$stage/common/completions/_storbench"
"$host" completion fish >"$stage/common/completions/storbench.fish"
SOURCE_DATE_EPOCH=$epoch "$host" docs man "$stage/common/man"
gzip -9n "$stage/common/man"/*.1
cp "$root/deploy/systemd/storbench-agent.service" "$root/deploy/package/postinstall.sh" "$root/deploy/package/postremove.sh" \
  "$root/deploy/package/copyright" "$root/LICENSE" "$stage/common/"

for arch in $arches; do
  dir=$stage/$arch
  cp -r "$stage/common" "$dir"
  cp "$out/storbench-$VERSION-linux-$arch" "$dir/storbench"
  for format in deb rpm; do
    # nfpm writes into an empty folder of its own, so what it made is what
    # is there, also when a package of the same name is in OUT from an
    # earlier release.
    pkgdir=$stage/pkg-$arch-$format
    mkdir -p "$pkgdir"
    (cd "$dir" && STORBENCH_ARCH=$arch STORBENCH_VERSION=$VERSION "$nfpm" package -f "$root/deploy/package/nfpm.yaml" -p $format -t "$pkgdir/" >&2)
    made=$(ls "$pkgdir")
    [ "$(echo "$made" | grep -c .)" = 1 ] || die "nfpm made no single $format for $arch: ${made:-nothing}"
    mv -f "$pkgdir/$made" "$out/"
    artefacts+=("$made")
  done

  if [ "${NO_IMAGE:-}" != 1 ]; then
    cp "$cacerts" "$dir/ca-certificates.crt"
    tag=$image:$VERSION-$arch
    archive=storbench-$VERSION-linux-$arch.oci.tar
    echo "release: $archive" >&2
    $podman build --quiet --pull=never --arch "$arch" --os linux --timestamp "$epoch" \
      --label org.opencontainers.image.version="$VERSION" --label org.opencontainers.image.revision="$COMMIT" \
      --label org.opencontainers.image.source=https://github.com/storbench/storbench \
      -f "$root/deploy/image/Containerfile" -t "$tag" "$dir" >/dev/null
    rm -f "$out/$archive"
    $podman image save --format oci-archive -o "$out/$archive" "$tag"
    artefacts+=("$archive")
  fi
done

(cd "$out" && sha256sum "${artefacts[@]}" >SHA256SUMS)
echo "release: $VERSION ($COMMIT) in $out:" >&2
(cd "$out" && ls -l "${artefacts[@]}" SHA256SUMS >&2)
