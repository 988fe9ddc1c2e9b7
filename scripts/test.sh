#!/usr/bin/env sh
# `npm test`: the whole suite — format and lint, type check, build the executable,
# make sure a PostgreSQL server is there (scripts/ensure-postgres.sh), and podman for
# the container image (scripts/ensure-podman.sh), then every test
# (in-process, against the compiled binary, in the browser) with SQLite as the
# in-process store, then the in-process HTTP tests again with PostgreSQL as their store,
# each run followed by a check that the tests left no folder or process behind. Needs
# nothing beside the repository (and root, to install what is missing). Extra arguments
# go to both `bun test` runs.
set -eu
cd "$(dirname "$0")/.."
# Each phase's time, printed together when the run ends.
STARTED=$(date +%s)
LAP=$STARTED
TIMES=""
lap() {
  now=$(date +%s)
  TIMES="$TIMES$(printf '   %5s s  %s' $((now - LAP)) "$1")
"
  LAP=$now
}
. scripts/bootstrap.sh
lap "Bun and the dependencies"
echo "== biome check" && bunx biome check .
lap "biome check"
echo "== tsc --noEmit" && bunx tsc --noEmit -p .
lap "tsc --noEmit"
echo "== build" && bun run build
lap "build"
echo "== chromium (browser tests)" && sh scripts/ensure-chromium.sh
echo "== nginx and openssl (the reverse-proxy examples)" && sh scripts/ensure-nginx.sh
echo "== caddy (the Caddy example)" && {
  sh scripts/ensure-caddy.sh || echo "kurz: caddy could not be installed; the Caddy example's test is skipped" >&2
}
echo "== podman and runc (the container image)" && {
  sh scripts/ensure-podman.sh || echo "kurz: podman could not be installed; the container image's test is skipped" >&2
}
echo "== pebble (the ACME server of the --tls auto tests)" && {
  sh scripts/ensure-pebble.sh || echo "kurz: pebble could not be installed; the --tls auto tests are skipped" >&2
}
echo "== qemu-user (the release and arm64 image tests run arm64 and baseline builds under emulation)" && {
  sh scripts/ensure-qemu.sh || echo "kurz: qemu could not be installed or registered; the release and arm64 image tests skip what needs it" >&2
}

echo "== postgresql (tests on PostgreSQL)"
RUN_TMP=""
# Whatever the outcome, or an interruption: a throwaway PostgreSQL cluster started for
# the run is stopped and removed, and so is the folder of a run cut short.
finish() {
  stop_test_postgres
  if [ -n "$RUN_TMP" ]; then rm -rf "$RUN_TMP"; fi
}
stop_test_postgres() { :; } # replaced by scripts/ensure-postgres.sh
trap finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
. scripts/ensure-postgres.sh
lap "what the tests need from Debian, and a PostgreSQL server"

status=0

# Runs `bun test` with the store named (sqlite or postgres: what test/support/test-app.ts
# gives the in-process tests) and the arguments after it. Every temporary folder a test
# makes goes under one made for this run, so that anything a test leaves behind shows;
# so does any process still running there. Sets status to 1 on any failure.
run_tests() {
  store=$1
  label=$2
  shift 2
  echo "== bun test on $label"
  RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kurz-run-XXXXXX")
  # The outage tests' PostgreSQL clusters run as the postgres user in folders under it.
  chmod 711 "$RUN_TMP"
  result=passed
  # --timeout as the preload's setDefaultTimeout says: that holds for the first file only.
  KURZ_TEST_STORE=$store TMPDIR=$RUN_TMP bun test --timeout=20000 "$@" || result=failed

  # Processes started in the run's folder (kurz, the browser, PostgreSQL) or from a
  # binary copied there: all of them must be gone.
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
    result=failed
  fi
  leftovers=$(cd "$RUN_TMP" && find . -mindepth 1 -maxdepth 1 | sort)
  if [ -n "$leftovers" ]; then
    echo "kurz: the tests left these in their temporary folder:" >&2
    echo "$leftovers" | sed 's|^\./|  |' >&2
    result=failed
  fi
  rm -rf "$RUN_TMP"
  RUN_TMP=""
  echo "== bun test on $label: $result"
  if [ "$result" = failed ]; then status=1; fi
}

# Every test, the in-process ones on SQLite (the default store); then the in-process
# HTTP tests that mean the same on any store, on PostgreSQL: test/postgres-suite.txt
# lists them and says which stay SQLite-only.
run_tests sqlite "SQLite (every test)" "$@"
lap "bun test on SQLite"
# shellcheck disable=SC2046 # one path per word
run_tests postgres "PostgreSQL (the in-process suite of test/postgres-suite.txt)" \
  $(sed -e 's/#.*//' test/postgres-suite.txt | grep -v '^ *$') "$@"
lap "bun test on PostgreSQL"
echo "== time per phase"
printf '%s' "$TIMES"
printf '   %5s s  in all\n' $(($(date +%s) - STARTED))
exit "$status"
