#!/usr/bin/env sh
# Makes sure Debian's nginx is installed for the reverse-proxy test
# (test/reverse-proxy.test.ts), which runs the example in docs/deploy/ against two
# kurz instances. Installing needs root (as in CI); the test runs its own nginx, as a
# foreground process on a free port, and never touches a system nginx.
set -eu
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "kurz: nginx is missing and installing it needs root;" >&2
  echo "      run as root: apt-get update && apt-get install -y nginx-light" >&2
  exit 1
fi
echo "kurz: installing nginx-light with apt-get (needed by the reverse-proxy test)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update >&2
# policy-rc.d keeps the package from starting a system nginx on port 80 (one that is
# there already is left as it is).
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  made_policy=1
fi
status=0
apt-get install -y --no-install-recommends nginx-light >&2 || status=$?
[ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
exit "$status"
