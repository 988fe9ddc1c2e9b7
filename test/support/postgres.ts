// PostgreSQL for tests: every database a run uses is made here and dropped when the
// run ends. scripts/test.sh sets KURZ_TEST_POSTGRES_URL (a server where the user may
// create databases: the machine's own, or a throwaway cluster it started); without
// it, 127.0.0.1:5432 as `postgres` is tried.

import { SQL } from 'bun';
import { atCleanUp } from './cleanup.ts';

/** The server tests use, as a URL to a database that exists there (`postgres`). */
export const POSTGRES_SERVER_URL =
  process.env.KURZ_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

let admin: SQL | undefined;
function adminClient(): SQL {
  admin ??= new SQL(POSTGRES_SERVER_URL, { max: 2, connectionTimeout: 5 });
  return admin;
}

let made = 0;
const unique = () => `${process.pid}_${Date.now().toString(36)}_${++made}`;

/** A new, empty database of its own (for kurz processes, `kurz copy`); dropped when the run ends. */
export async function freshDatabase(): Promise<string> {
  const name = `kurz_test_${unique()}`;
  await adminClient().unsafe(`CREATE DATABASE ${name}`);
  atCleanUp(async () => {
    await adminClient().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  return withDatabase(POSTGRES_SERVER_URL, name);
}

let runDatabase: Promise<string> | undefined;

/**
 * A fresh schema in this run's database, as a --db URL (`?schema=`): as cheap as an
 * in-memory SQLite database, so every in-process test app can have its own.
 */
export async function freshSchemaUrl(): Promise<string> {
  runDatabase ??= freshDatabase();
  const url = new URL(await runDatabase);
  url.searchParams.set('schema', `t_${unique()}`);
  return url.toString();
}

atCleanUp(async () => {
  await admin?.close({ timeout: 1 });
  admin = undefined;
});
