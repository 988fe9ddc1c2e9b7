#!/usr/bin/env sh
# Installs Debian's pebble, when it is missing, for the tests of --tls auto
# (test/ops/acme.test.ts runs Pebble, a small ACME server made for tests, and its
# pebble-challtestsrv as the DNS server Pebble asks, each on free ports of their own).
# Where pebble cannot be installed those tests say so and skip, so a failure here does
# not stop the run.
set -eu
if command -v pebble >/dev/null 2>&1 && command -v pebble-challtestsrv >/dev/null 2>&1; then
  exit 0
fi
sh "$(dirname "$0")/apt-install.sh" "the ACME tests" pebble
