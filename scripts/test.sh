#!/usr/bin/env sh
# `npm test`: the whole suite — format and lint, type check, build the executable,
# then every test (in-process, against the compiled binary, the smoke suite in both
# modes). Extra arguments go to `bun test`.
set -eu
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
echo "== biome check" && bunx biome check .
echo "== tsc --noEmit" && bunx tsc --noEmit -p .
echo "== build" && bun run build
echo "== chromium (browser tests)" && sh scripts/ensure-chromium.sh
echo "== bun test" && exec bun test "$@"
