#!/usr/bin/env sh
# `bun run image [-- OPTIONS]`: the container image of Containerfile. An image FROM
# scratch runs no command while it is built, so its files are prepared here, in
# dist/image/: rootfs/ holds the executable, the loader and the shared libraries ldd
# names (copied, not linked, to the paths the executable asks for), Debian's CA
# certificates, /etc/passwd, /etc/group and /etc/nsswitch.conf naming the user kurz
# (10001), and an empty /tmp of mode 1777; user/ holds the empty /data (mode 700) that
# the Containerfile gives to that user. Then podman or docker, whichever is installed
# (podman first), builds the image. Every file takes the time of the last commit
# (SOURCE_DATE_EPOCH when set), and podman the image too, so that one commit and one
# executable make the same layer, byte for byte.
#
# Options:
#   --binary FILE     the kurz executable to put in (default dist/kurz, built when
#                     missing), e.g. one unpacked from a release archive
#   --tag NAME        the image's name, more than once for several (default
#                     kurz:VERSION and kurz:latest, VERSION as kurz --version says)
#   --revision REV    the commit of org.opencontainers.image.revision (default: the
#                     commit kurz --version names, else the checkout's HEAD)
#   --builder podman|docker|none
#                     what builds it (default: podman, else docker); none only fills
#                     dist/image/
# KURZ_SOURCE_URL is org.opencontainers.image.source (default: the checkout's origin
# remote, without credentials; the Containerfile's "unknown" when there is none).
set -eu

binary=""
tags=""
revision=""
builder=""
while [ $# -gt 0 ]; do
  case $1 in
    --binary | --tag | --revision | --builder)
      if [ $# -lt 2 ]; then
        echo "kurz image: $1 needs a value" >&2
        exit 2
      fi
      case $1 in
        --binary) binary=$2 ;;
        --tag) tags="$tags $2" ;;
        --revision) revision=$2 ;;
        --builder) builder=$2 ;;
      esac
      shift 2
      ;;
    *)
      echo "kurz image: unknown option $1 (see the head of scripts/image.sh)" >&2
      exit 2
      ;;
  esac
done
# A --binary given relative to where the script was started from.
case $binary in
  "" | /*) ;;
  *) binary=$PWD/$binary ;;
esac
cd "$(dirname "$0")/.."
case $builder in
  "")
    if command -v podman >/dev/null 2>&1; then
      builder=podman
    elif command -v docker >/dev/null 2>&1; then
      builder=docker
    else
      echo "kurz image: neither podman nor docker is installed: dist/image/ is filled, nothing is built" >&2
      builder=none
    fi
    ;;
  podman | docker | none) ;;
  *)
    echo "kurz image: --builder must be podman, docker or none (got \"$builder\")" >&2
    exit 2
    ;;
esac

if [ -z "$binary" ]; then
  binary=dist/kurz
  if [ ! -e dist/kurz ]; then
    . scripts/bootstrap.sh
    bun run build
  fi
fi
if ! version_line=$("$binary" --version); then
  echo "kurz image: $binary does not run here (the image is built from a linux-x64 executable)" >&2
  exit 1
fi
version=$(echo "$version_line" | sed -n 's/^kurz \([^ ]*\).*/\1/p')
if [ -z "$version" ]; then
  echo "kurz image: $binary --version printed \"$version_line\", not kurz VERSION" >&2
  exit 1
fi
if [ -z "$revision" ]; then
  revision=$(echo "$version_line" | grep -oE '\b[0-9a-f]{7,40}\b' | head -n 1 || true)
  # A short commit, in full when this checkout has it.
  if [ -n "$revision" ]; then
    revision=$(git rev-parse --verify --quiet "$revision^{commit}" 2>/dev/null || echo "$revision")
  fi
fi
if [ -z "$revision" ]; then
  revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
fi
# A remote URL may carry a user and a token (https://user:token@host/…): never in a label.
source_url=${KURZ_SOURCE_URL:-$(git remote get-url origin 2>/dev/null | sed 's|://[^/@]*@|://|' || true)}
# A tag takes letters, digits, _ . and -: a version such as 1.0.0+abc is 1.0.0-abc there.
if [ -z "${tags# }" ]; then tags="kurz:$(echo "$version" | tr -c 'A-Za-z0-9_.\n-' '-') kurz:latest"; fi
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

certificates=/etc/ssl/certs/ca-certificates.crt
if [ ! -f "$certificates" ]; then
  sh scripts/apt-install.sh "the container image" ca-certificates
fi

rm -rf dist/image
rootfs=dist/image/rootfs
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp" dist/image/user/data
cp "$binary" "$rootfs/usr/local/bin/kurz"
chmod 755 "$rootfs/usr/local/bin/kurz"

# The loader (the line of ldd that starts with its path) and each library (after =>),
# the files themselves rather than their symbolic links. A static executable needs none.
if ldd_out=$(ldd "$binary" 2>&1); then
  if echo "$ldd_out" | grep -q 'not found'; then
    echo "kurz image: $binary needs libraries this machine lacks:" >&2
    echo "$ldd_out" | grep 'not found' >&2
    exit 1
  fi
  for lib in $(echo "$ldd_out" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
    chmod 755 "$rootfs$lib"
  done
elif ! echo "$ldd_out" | grep -q 'not a dynamic executable'; then
  echo "kurz image: ldd cannot read $binary: $ldd_out" >&2
  exit 1
fi

cp -L "$certificates" "$rootfs/etc/ssl/certs/ca-certificates.crt"
# Who 10001 is, for whatever asks in the container (getpwuid, podman exec --user kurz):
# no home, no shell; root owns the other files.
printf 'root:x:0:0:root:/root:/sbin/nologin\nkurz:x:10001:10001:kurz:/nonexistent:/sbin/nologin\n' \
  >"$rootfs/etc/passwd"
printf 'root:x:0:\nkurz:x:10001:\n' >"$rootfs/etc/group"
# Host names from /etc/hosts first (compose and podman write the other services there), then DNS.
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
chmod 644 "$rootfs/etc/ssl/certs/ca-certificates.crt" "$rootfs/etc/passwd" "$rootfs/etc/group" \
  "$rootfs/etc/nsswitch.conf"
# SQLite puts its temporary files (large sorts, VACUUM) in /tmp, as a program expects.
chmod 1777 "$rootfs/tmp"
chmod 700 dist/image/user/data
# The files' times are in the image's layers: the commit's, not the moment of the build.
find dist/image -exec touch -h -d "@$epoch" {} +

size=$(wc -c <"$binary" | tr -d ' ')
echo "kurz image: dist/image/ holds kurz $version ($revision), $(du -sk dist/image | cut -f1) KiB; the executable is $size bytes" >&2
if [ "$builder" = none ]; then exit 0; fi

set -- --file Containerfile --build-arg "VERSION=$version" --build-arg "REVISION=$revision"
if [ -n "$source_url" ]; then set -- "$@" --build-arg "SOURCE=$source_url"; fi
for tag in $tags; do set -- "$@" --tag "$tag"; done
id_file=$(mktemp)
if [ "$builder" = podman ]; then
  # The docker format keeps HEALTHCHECK, which the OCI format has no field for. One
  # layer, committed once: intermediate images of a FROM scratch build save nothing.
  podman build --format docker --layers=false --timestamp "$epoch" --iidfile "$id_file" "$@" .
else
  docker build --build-arg "SOURCE_DATE_EPOCH=$epoch" --iidfile "$id_file" "$@" .
fi
image_size=$("$builder" image inspect --format '{{.Size}}' "$(cat "$id_file")")
rm -f "$id_file"
# shellcheck disable=SC2086 # one tag per word
echo "kurz image: built$(printf ' %s' $tags) with $builder: $image_size bytes; the executable is $size" >&2
