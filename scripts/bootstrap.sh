#!/usr/bin/env sh
# Sourced by the other scripts: makes sure Bun (the version package.json names) is on
# PATH, installing it through npm into .tools/ when missing, then installs the locked
# dependencies. Needs only Node.js and npm.
set -eu
BUN_VERSION=$(sed -n 's/.*"packageManager": *"bun@\([^"]*\)".*/\1/p' package.json)
if ! command -v bun >/dev/null 2>&1; then
  if [ ! -x .tools/node_modules/.bin/bun ]; then
    echo "kurz: installing bun@$BUN_VERSION with npm into .tools/" >&2
    npm install --silent --no-audit --no-fund --prefix .tools "bun@$BUN_VERSION" >&2
  fi
  PATH="$PWD/.tools/node_modules/.bin:$PATH"
  export PATH
fi
if [ ! -d node_modules ] || [ bun.lock -nt node_modules ]; then
  bun install --frozen-lockfile >&2
  touch node_modules
fi
