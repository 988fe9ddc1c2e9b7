#!/usr/bin/env sh
# Installs Debian's caddy, when it is missing, for the test of the Caddy example
# (test/ops/deploy.test.ts runs docs/deploy/Caddyfile in front of kurz). The test runs its
# own Caddy in the foreground on a free port; the package's own service is not started
# (see apt-install.sh). Where caddy cannot be installed the test says so and skips that
# example, so a failure here does not stop the run.
set -eu
if command -v caddy >/dev/null 2>&1; then
  exit 0
fi
sh "$(dirname "$0")/apt-install.sh" "the Caddy example's test" caddy
