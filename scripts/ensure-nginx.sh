#!/usr/bin/env sh
# Makes sure Debian's nginx is installed for the reverse-proxy test
# (test/reverse-proxy.test.ts), which runs the example in docs/deploy/ against two
# kurz instances. The test runs its own nginx, as a foreground process on a free port,
# and never touches a system nginx.
set -eu
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
sh "$(dirname "$0")/apt-install.sh" "the reverse-proxy test" nginx-light
