#!/usr/bin/env sh
# Makes sure Debian's nginx is installed for the reverse-proxy tests
# (test/ops/reverse-proxy.test.ts, test/ops/deploy.test.ts), which run the examples in
# docs/deploy/ in front of kurz, and openssl, which makes the HTTPS example's test
# certificate. The tests run their own nginx, as a foreground process on a free port,
# and never touch a system nginx.
set -eu
missing=""
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  missing="nginx-light"
fi
if ! command -v openssl >/dev/null 2>&1; then
  missing="$missing openssl"
fi
if [ -z "$missing" ]; then
  exit 0
fi
# shellcheck disable=SC2086 # one package per word
sh "$(dirname "$0")/apt-install.sh" "the reverse-proxy tests" $missing
