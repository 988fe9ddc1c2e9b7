#!/usr/bin/env sh
# `npm start`: runs kurz from source on the default SQLite database (./data/kurz.db).
# Extra arguments go to `kurz serve`, e.g. `npm start -- --mode open --port 8080`.
set -eu
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
exec bun run src/index.ts serve "$@"
