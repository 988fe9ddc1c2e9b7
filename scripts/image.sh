#!/usr/bin/env sh
# `bun run image [-- OPTIONS]`: the container images of Containerfile, one per platform
# (linux/amd64 and linux/arm64), and a manifest list naming them. An image FROM scratch
# runs no command while it is built, so no emulation is needed: its files are prepared
# here, in dist/image/: ARCH/rootfs/ holds the executable of that architecture, its
# loader and the shared libraries it links (copied, not linked, to the paths the
# executable asks for: for this machine's architecture those ldd names; for arm64 on
# another machine those of Debian's libc6-arm64-cross, installed when missing, named by
# readelf), Debian's CA certificates, /etc/passwd, /etc/group and /etc/nsswitch.conf
# naming the user kurz (10001), and an empty /tmp of mode 1777; user/ holds the empty
# /data (mode 700) that the Containerfile gives to that user. Then podman or docker,
# whichever is installed (podman first), builds each image. Every file takes the time of
# the last commit (SOURCE_DATE_EPOCH when set), and podman the image too, so that one
# commit and one executable make the same layer, byte for byte.
#
# With one platform, the tags name its image, as they always did. With several, each tag
# names a manifest list of them (what `podman run` and a registry pick the machine's
# image from) and TAG-ARCH each platform's image (kurz:0.1.0-arm64). podman makes the
# list; docker builds the images only (docker manifest needs them in a registry first).
#
# Options:
#   --platform LIST   linux/amd64, linux/arm64 or both, comma-separated (default both)
#   --binary FILE     a kurz executable to put in, more than once for several platforms,
#                     e.g. one unpacked from a release archive; its ELF header says which
#                     platform it is for. Without one for a platform: dist/kurz when it is
#                     of that architecture (built when missing), else
#                     dist/kurz-linux-x64 or dist/kurz-linux-arm64, cross-compiled each
#                     time as the release does (bun scripts/build.ts --target NAME)
#   --tag NAME        the image's (or the manifest list's) name, more than once for
#                     several (default kurz:VERSION and kurz:latest, VERSION as kurz
#                     --version says)
#   --revision REV    the commit of org.opencontainers.image.revision (default: the
#                     commit kurz --version names, else the checkout's HEAD)
#   --builder podman|docker|none
#                     what builds it (default: podman, else docker); none only fills
#                     dist/image/
# KURZ_SOURCE_URL is org.opencontainers.image.source (default: the checkout's origin
# remote, without credentials; the Containerfile's "unknown" when there is none).
set -eu

binaries=""
binary_amd64=""
binary_arm64=""
platforms="linux/amd64,linux/arm64"
tags=""
revision=""
builder=""
while [ $# -gt 0 ]; do
  case $1 in
    --binary | --platform | --tag | --revision | --builder)
      if [ $# -lt 2 ]; then
        echo "kurz image: $1 needs a value" >&2
        exit 2
      fi
      case $1 in
        # A --binary given relative to where the script was started from.
        --binary) case $2 in /*) binaries="$binaries $2" ;; *) binaries="$binaries $PWD/$2" ;; esac ;;
        --platform) platforms=$2 ;;
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

# The architectures, in the order given: amd64, arm64.
arches=""
for platform in $(echo "$platforms" | tr ',' ' '); do
  case $platform in
    linux/amd64 | linux/arm64) arches="$arches ${platform#linux/}" ;;
    *)
      echo "kurz image: --platform takes linux/amd64 and linux/arm64 (got \"$platform\")" >&2
      exit 2
      ;;
  esac
done
if [ -z "$arches" ]; then
  echo "kurz image: --platform names no platform" >&2
  exit 2
fi

# An executable's architecture, from its ELF header's machine field (62 x86-64, 183 AArch64).
arch_of() {
  case $(od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' ') in
    62) echo amd64 ;;
    183) echo arm64 ;;
    *) echo unknown ;;
  esac
}
host_arch=$(case $(uname -m) in x86_64) echo amd64 ;; aarch64 | arm64) echo arm64 ;; *) uname -m ;; esac)
# The release target that builds an architecture's executable.
target_of() { if [ "$1" = amd64 ]; then echo linux-x64; else echo linux-arm64; fi; }

for file in $binaries; do
  if [ ! -f "$file" ]; then
    echo "kurz image: --binary $file: no such file" >&2
    exit 1
  fi
  arch=$(arch_of "$file")
  if [ "$arch" = unknown ]; then
    echo "kurz image: --binary $file is not a Linux executable for x86-64 or AArch64" >&2
    exit 1
  fi
  case " $arches " in
    *" $arch "*) ;;
    *)
      echo "kurz image: --binary $file is a Linux executable for $arch, not for one of --platform $platforms" >&2
      exit 1
      ;;
  esac
  eval "binary_$arch=\$file"
done
for arch in $arches; do
  if [ -n "$(eval "echo \"\$binary_$arch\"")" ]; then continue; fi
  if [ ! -e dist/kurz ]; then
    . scripts/bootstrap.sh
    bun run build
  fi
  if [ "$(arch_of dist/kurz)" = "$arch" ]; then
    eval "binary_$arch=\$PWD/dist/kurz"
  else
    # Cross-compiled with the release's target (Bun fetches that runtime once, from the
    # npm registry): of this checkout each time, as it takes a few seconds.
    command -v bun >/dev/null 2>&1 || . scripts/bootstrap.sh
    bun scripts/build.ts --target "$(target_of "$arch")" >&2
    eval "binary_$arch=\$PWD/dist/kurz-$(target_of "$arch")"
  fi
done

# The C library of arm64 where this machine is not: its loader and libraries are
# Debian's libc6-arm64-cross, under /usr/aarch64-linux-gnu, read with readelf.
cross_libc=/usr/aarch64-linux-gnu/lib
for arch in $arches; do
  if [ "$arch" = "$host_arch" ]; then continue; fi
  if [ "$arch" != arm64 ]; then
    echo "kurz image: a $arch image is built on a $arch machine (this one is $host_arch)" >&2
    exit 1
  fi
  missing=""
  if [ ! -e "$cross_libc/ld-linux-aarch64.so.1" ]; then missing="libc6-arm64-cross"; fi
  if ! command -v readelf >/dev/null 2>&1; then missing="$missing binutils"; fi
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # one package per word
    sh scripts/apt-install.sh "the arm64 container image" $missing
  fi
done

# Runs an executable of one of the platforms with its --version: natively, or an arm64
# one through qemu where binfmt_misc or qemu-user has it (QEMU_LD_PREFIX and -L name the
# arm64 C library). Nothing is printed where it cannot run here.
version_of() {
  if QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$1" --version 2>/dev/null; then return 0; fi
  if [ "$2" = arm64 ] && command -v qemu-aarch64 >/dev/null 2>&1; then
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$1" --version 2>/dev/null && return 0
  fi
  return 1
}
# Every executable that runs here must be of the same version, and should be of the same
# commit (the labels name the first's); one must run.
version_line=""
for arch in $arches; do
  file=$(eval "echo \"\$binary_$arch\"")
  if line=$(version_of "$file" "$arch"); then
    if [ -z "$version_line" ]; then
      version_line=$line
    elif [ "${line%% (*}" != "${version_line%% (*}" ]; then
      echo "kurz image: $file says \"$line\", the other executable \"$version_line\": the images are of one version" >&2
      exit 1
    elif [ "$line" != "$version_line" ]; then
      echo "kurz image: warning: $file says \"$line\", the other executable \"$version_line\" (for a new dist/kurz: bun run build)" >&2
    fi
  fi
done
if [ -z "$version_line" ]; then
  echo "kurz image: none of the executables runs here, so none says its version (for arm64 alone, install qemu-user)" >&2
  exit 1
fi
version=$(echo "$version_line" | sed -n 's/^kurz \([^ ]*\).*/\1/p')
if [ -z "$version" ]; then
  echo "kurz image: kurz --version printed \"$version_line\", not kurz VERSION" >&2
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

# Copies a library to the image's path for it: the file itself, not a symbolic link.
put_library() {
  mkdir -p "$rootfs$(dirname "$2")"
  cp -L "$1" "$rootfs$2"
  chmod 755 "$rootfs$2"
}

rm -rf dist/image
mkdir -p dist/image/user/data
for arch in $arches; do
  binary=$(eval "echo \"\$binary_$arch\"")
  rootfs=dist/image/$arch/rootfs
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp"
  cp "$binary" "$rootfs/usr/local/bin/kurz"
  chmod 755 "$rootfs/usr/local/bin/kurz"

  if [ "$arch" = "$host_arch" ]; then
    # The loader (the line of ldd that starts with its path) and each library (after =>).
    # A static executable needs none.
    if ldd_out=$(ldd "$binary" 2>&1); then
      if echo "$ldd_out" | grep -q 'not found'; then
        echo "kurz image: $binary needs libraries this machine lacks:" >&2
        echo "$ldd_out" | grep 'not found' >&2
        exit 1
      fi
      for lib in $(echo "$ldd_out" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
        put_library "$lib" "$lib"
      done
    elif ! echo "$ldd_out" | grep -q 'not a dynamic executable'; then
      echo "kurz image: ldd cannot read $binary: $ldd_out" >&2
      exit 1
    fi
  else
    # The loader where the executable asks for it (/lib/ld-linux-aarch64.so.1), and the
    # libraries it needs, and those they need, where Debian's arm64 loader looks first.
    loader=$(readelf -l "$binary" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    if [ -n "$loader" ]; then
      put_library "$cross_libc/$(basename "$loader")" "$loader"
      queue=$binary
      done_libs=" $(basename "$loader") "
      while [ -n "$queue" ]; do
        # shellcheck disable=SC2086 # one file per word
        set -- $queue
        next=$1
        shift
        queue=$*
        for lib in $(readelf -d "$next" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
          case $done_libs in *" $lib "*) continue ;; esac
          if [ ! -e "$cross_libc/$lib" ]; then
            echo "kurz image: $binary needs $lib, which libc6-arm64-cross does not have" >&2
            exit 1
          fi
          put_library "$cross_libc/$lib" "/lib/aarch64-linux-gnu/$lib"
          done_libs="$done_libs$lib "
          queue="$queue $cross_libc/$lib"
        done
      done
    fi
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
done
chmod 700 dist/image/user/data
# The files' times are in the image's layers: the commit's, not the moment of the build.
find dist/image -exec touch -h -d "@$epoch" {} +

for arch in $arches; do
  size=$(wc -c <"$(eval "echo \"\$binary_$arch\"")" | tr -d ' ')
  echo "kurz image: dist/image/$arch/ holds kurz $version ($revision) for linux/$arch, $(du -sk "dist/image/$arch" | cut -f1) KiB; the executable is $size bytes" >&2
done
if [ "$builder" = none ]; then exit 0; fi

# One platform: the tags are its image's. Several: TAG-ARCH are the images', and each
# tag a manifest list's.
single=""
case $arches in *" "*" "*) ;; *) single=1 ;; esac
for arch in $arches; do
  set -- --file Containerfile --platform "linux/$arch" --build-arg "ARCH=$arch" \
    --build-arg "VERSION=$version" --build-arg "REVISION=$revision"
  if [ -n "$source_url" ]; then set -- "$@" --build-arg "SOURCE=$source_url"; fi
  arch_tags=""
  for tag in $tags; do
    if [ -n "$single" ]; then arch_tags="$arch_tags $tag"; else arch_tags="$arch_tags $tag-$arch"; fi
  done
  for tag in $arch_tags; do set -- "$@" --tag "$tag"; done
  id_file=$(mktemp)
  if [ "$builder" = podman ]; then
    # A name that is a manifest list (of an earlier build) would take the image's tag
    # into the list instead of naming the image.
    for tag in $arch_tags; do
      if podman manifest exists "$tag" 2>/dev/null; then podman manifest rm "$tag" >/dev/null; fi
    done
    # The docker format keeps HEALTHCHECK, which the OCI format has no field for. One
    # layer, committed once: intermediate images of a FROM scratch build save nothing.
    podman build --format docker --layers=false --timestamp "$epoch" --iidfile "$id_file" "$@" .
  else
    docker build --build-arg "SOURCE_DATE_EPOCH=$epoch" --iidfile "$id_file" "$@" .
  fi
  id=$(sed "s/^sha256://" "$id_file")
  rm -f "$id_file"
  eval "id_$arch=\$id"
  image_size=$("$builder" image inspect --format '{{.Size}}' "$id")
  size=$(wc -c <"$(eval "echo \"\$binary_$arch\"")" | tr -d ' ')
  # shellcheck disable=SC2086 # one tag per word
  echo "kurz image: built$(printf ' %s' $arch_tags) (linux/$arch) with $builder: $image_size bytes; the executable is $size" >&2
done
if [ -n "$single" ]; then exit 0; fi
if [ "$builder" = docker ]; then
  echo "kurz image: docker makes a manifest list only of images in a registry: push the images, then docker manifest create" >&2
  exit 0
fi
for tag in $tags; do
  # Made anew: a list of an earlier build would keep that build's images in it.
  if podman manifest exists "$tag" 2>/dev/null; then
    podman manifest rm "$tag" >/dev/null
  elif podman image exists "$tag" 2>/dev/null; then
    podman untag "$tag" "$tag"
  fi
  podman manifest create "$tag" >/dev/null
  for arch in $arches; do
    podman manifest add "$tag" "containers-storage:$(eval "echo \"\$id_$arch\"")" >/dev/null
  done
  # shellcheck disable=SC2086 # one platform per word
  echo "kurz image: $tag is a manifest list of$(printf ' linux/%s' $arches)" >&2
done
