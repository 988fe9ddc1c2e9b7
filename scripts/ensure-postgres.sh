#!/usr/bin/env sh
# Sourced by scripts/test.sh: makes sure the tests have a PostgreSQL server and exports
# its URL as KURZ_TEST_POSTGRES_URL. In order: KURZ_TEST_POSTGRES_URL when it answers;
# else the machine's server at 127.0.0.1:5432 as user postgres; else a throwaway cluster
# started here (its folder in KURZ_TEST_POSTGRES_CLUSTER; stop_test_postgres, which the
# caller's exit trap runs, stops and removes it). The server binaries (initdb, pg_ctl)
# are needed in every case, since the outage tests start clusters of their own: Debian's
# postgresql package is installed when they are missing (as root, like chromium). The
# clusters themselves are made by test/support/pg-cluster.ts.

KURZ_TEST_POSTGRES_CLUSTER=""

# Stops the throwaway cluster, if one was started, and removes its folder.
stop_test_postgres() {
  if [ -n "$KURZ_TEST_POSTGRES_CLUSTER" ]; then
    bun test/support/pg-cluster.ts remove "$KURZ_TEST_POSTGRES_CLUSTER" ||
      rm -rf "$KURZ_TEST_POSTGRES_CLUSTER"
    KURZ_TEST_POSTGRES_CLUSTER=""
  fi
}

if ! bun test/support/pg-cluster.ts binaries >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "kurz: the PostgreSQL server binaries (/usr/lib/postgresql/*/bin) are missing and" >&2
    echo "      installing them needs root; run as root: apt-get update && apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "kurz: installing postgresql with apt-get (needed by the PostgreSQL tests)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  # Only the binaries are wanted: policy-rc.d keeps the package from starting a server
  # of its own (one that is there already is left as it is).
  made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  installed=0
  apt-get install -y --no-install-recommends postgresql >&2 || installed=$?
  if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
  if [ "$installed" -ne 0 ]; then exit "$installed"; fi
  if ! bun test/support/pg-cluster.ts binaries >/dev/null; then
    echo "kurz: apt-get finished but /usr/lib/postgresql/*/bin/initdb is still missing" >&2
    exit 1
  fi
fi

KURZ_DEFAULT_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres
if [ -n "${KURZ_TEST_POSTGRES_URL:-}" ] &&
  bun test/support/pg-cluster.ts reachable "$KURZ_TEST_POSTGRES_URL"; then
  echo "PostgreSQL for the tests: the server named by KURZ_TEST_POSTGRES_URL"
else
  if [ -n "${KURZ_TEST_POSTGRES_URL:-}" ]; then
    echo "kurz: KURZ_TEST_POSTGRES_URL does not answer; looking elsewhere" >&2
  fi
  if bun test/support/pg-cluster.ts reachable "$KURZ_DEFAULT_POSTGRES_URL"; then
    KURZ_TEST_POSTGRES_URL=$KURZ_DEFAULT_POSTGRES_URL
    echo "PostgreSQL for the tests: the machine's server at 127.0.0.1:5432"
  else
    KURZ_TEST_POSTGRES_CLUSTER=$(mktemp -d "${TMPDIR:-/tmp}/kurz-pg-XXXXXX")
    KURZ_TEST_POSTGRES_URL=$(bun test/support/pg-cluster.ts start "$KURZ_TEST_POSTGRES_CLUSTER")
    echo "PostgreSQL for the tests: a throwaway cluster at $KURZ_TEST_POSTGRES_URL (removed at the end)"
  fi
fi
export KURZ_TEST_POSTGRES_URL
