#!/usr/bin/env sh
# `sh scripts/apt-install.sh WHAT PACKAGE…`: installs Debian packages a test needs
# (WHAT says which, for the messages), as root, non-interactively and without
# recommends. policy-rc.d keeps a package from starting a service of its own (a
# system nginx on port 80, a PostgreSQL cluster); one that is there already is left
# as it is. Without root it says what to run and fails.
set -eu
what=$1
shift
if [ "$(id -u)" -ne 0 ]; then
  echo "kurz: $* (needed by $what) is missing and installing it needs root;" >&2
  echo "      run as root: apt-get update && apt-get install -y $*" >&2
  exit 1
fi
echo "kurz: installing $* with apt-get (needed by $what)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update >&2
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  made_policy=1
fi
status=0
apt-get install -y --no-install-recommends "$@" >&2 || status=$?
if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
exit "$status"
