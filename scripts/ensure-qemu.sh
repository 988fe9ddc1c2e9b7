#!/usr/bin/env sh
# Installs what the tests run foreign executables with, when it is missing: Debian's
# qemu-user, whose qemu-aarch64 runs the linux-arm64 build (with libc6-arm64-cross, the
# arm64 C library and its loader under /usr/aarch64-linux-gnu) and whose qemu-x86_64 runs
# the linux-x64-baseline build on an emulated CPU without AVX2 (test/ops/release.test.ts);
# and qemu-user-static, registered with binfmt_misc for AArch64 executables, so that the
# arm64 container image runs under podman on an x86-64 machine
# (test/ops/container-arm64.test.ts). The registration is the machine's, made once as
# root (binfmt_misc mounted first where it is not) from the file the package ships; its
# F flag opens the static emulator now, so that it runs inside a container's root too.
# Where they cannot be installed or registered the tests say so and skip those runs (the
# image's own files then run under qemu-aarch64), so a failure here does not stop the run.
set -eu
missing=""
if ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v qemu-x86_64 >/dev/null 2>&1; then
  missing="qemu-user"
fi
if [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
  missing="$missing libc6-arm64-cross"
fi
binfmt=/proc/sys/fs/binfmt_misc
rule=/usr/lib/binfmt.d/qemu-aarch64.conf
if [ ! -e "$binfmt/qemu-aarch64" ] && [ ! -e "$rule" ]; then
  missing="$missing qemu-user-static"
fi
if [ -n "$missing" ]; then
  # shellcheck disable=SC2086 # one package per word
  sh "$(dirname "$0")/apt-install.sh" "the emulated runs of the release and arm64 image tests" $missing
fi
if [ -e "$binfmt/qemu-aarch64" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "kurz: AArch64 executables are not registered with binfmt_misc and that needs root" >&2
  exit 1
fi
if [ ! -e "$binfmt/register" ]; then
  mount -t binfmt_misc binfmt_misc "$binfmt"
fi
grep -v '^#' "$rule" >"$binfmt/register"
echo "kurz: AArch64 executables registered with binfmt_misc (qemu-user-static)" >&2
