#!/usr/bin/env sh
# Installs Debian's podman, runc, podman-compose and slirp4netns, when missing, for the
# container image's test (test/ops/container.test.ts builds the image of Containerfile
# and runs it). slirp4netns gives the HTTPS container a network of its own, so that the
# test maps ports as docs/container.md does without a bridge or a firewall rule.
# runc is the runtime the test gives podman: crun, podman's other one, refuses to start
# containers in some sandboxes where runc works. The test keeps every image, container
# and volume in a folder of its own and never touches the machine's podman storage.
# Where podman cannot be installed or cannot run containers, the test says why and
# skips, so a failure here does not stop the run.
set -eu
missing=""
for tool in podman runc podman-compose slirp4netns; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    missing="$missing $tool"
  fi
done
if [ -z "$missing" ]; then
  exit 0
fi
# shellcheck disable=SC2086 # one package per word
sh "$(dirname "$0")/apt-install.sh" "the container image's test" $missing
