#!/usr/bin/env sh
# Installs what the release test (test/ops/release.test.ts) runs foreign executables with,
# when it is missing: Debian's qemu-user, whose qemu-aarch64 runs the linux-arm64 build
# (with libc6-arm64-cross, the arm64 C library and its loader under
# /usr/aarch64-linux-gnu) and whose qemu-x86_64 runs the linux-x64-baseline build on an
# emulated CPU without AVX2. Where they cannot be installed the test says so and skips
# those runs, so a failure here does not stop the run.
set -eu
missing=""
if ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v qemu-x86_64 >/dev/null 2>&1; then
  missing="qemu-user"
fi
if [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
  missing="$missing libc6-arm64-cross"
fi
if [ -z "$missing" ]; then
  exit 0
fi
# shellcheck disable=SC2086 # one package per word
sh "$(dirname "$0")/apt-install.sh" "the release test" $missing
