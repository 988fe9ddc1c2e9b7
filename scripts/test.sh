#!/usr/bin/env sh
# `npm test`: the whole suite — format and lint, type check, build the executable,
# then every test (in-process, against the compiled binary, in the browser), and a
# check that the tests left no folder or process behind. Needs nothing beside the
# repository. Extra arguments go to `bun test`.
set -eu
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
echo "== biome check" && bunx biome check .
echo "== tsc --noEmit" && bunx tsc --noEmit -p .
echo "== build" && bun run build
echo "== chromium (browser tests)" && sh scripts/ensure-chromium.sh

# Every temporary folder a test makes goes under one made for this run, so that
# anything a test leaves behind shows; so does any process still running there.
echo "== bun test"
ROOT=$PWD
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kurz-run-XXXXXX")
status=0
TMPDIR=$RUN_TMP bun test "$@" || status=$?

# Processes started in the run's folder (kurz, the browser) or from a binary copied
# there: all of them must be gone.
survivors=""
for proc in /proc/[0-9]*; do
  for link in exe cwd; do
    target=$(readlink "$proc/$link" 2>/dev/null || true)
    case "$target" in
      "$RUN_TMP"/*)
        survivors="$survivors ${proc#/proc/}"
        echo "kurz: the tests left process ${proc#/proc/} running ($link: $target)" >&2
        break
        ;;
    esac
  done
done
if [ -n "$survivors" ]; then
  # shellcheck disable=SC2086 # one pid per word
  kill -9 $survivors 2>/dev/null || true
  status=1
fi
leftovers=$(cd "$RUN_TMP" && find . -mindepth 1 -maxdepth 1 | sort)
if [ -n "$leftovers" ]; then
  echo "kurz: the tests left these in their temporary folder:" >&2
  echo "$leftovers" | sed 's|^\./|  |' >&2
  status=1
fi
rm -rf "$RUN_TMP"
exit "$status"
