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
  # Only the binaries are wanted: apt-install.sh keeps the package from starting a
  # server of its own.
  sh scripts/apt-install.sh "the PostgreSQL tests" postgresql
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
