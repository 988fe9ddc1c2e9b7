// A fresh store of either engine for the store tests: SQLite in memory or a PostgreSQL
// schema of its own, whose click log moves only when the test moves it.

import { onTestFinished } from 'bun:test';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { atCleanUp } from './cleanup.ts';
import { freshSchemaUrl } from './postgres.ts';

export type Backend = 'sqlite' | 'postgres';

/**
 * A fresh store (SQLite in memory, or a PostgreSQL schema of its own), or one on the
 * database `url` names (a SQLite file's path, a PostgreSQL URL), to open a second
 * instance on it; closed when its test ends (PostgreSQL allows about a hundred
 * connections in all, and the tests of the binary that run later need their share) and
 * at the run's clean-up.
 */
export async function testStore(backend: Backend, url?: string): Promise<Store> {
  const store =
    backend === 'sqlite'
      ? openSqlite({ path: url ?? ':memory:', durability: 'normal' })
      : await openPostgres({
          url: url ?? (await freshSchemaUrl()),
          pool: 2,
          analyticsIntervalMs: 0,
        });
  onTestFinished(() => store.close());
  atCleanUp(() => store.close());
  return store;
}

/**
 * A store whose click log moves only when the test moves it, closed when its test ends
 * (PostgreSQL allows about a hundred connections in all) and at the run's clean-up.
 */
export async function stillStore(backend: Backend): Promise<Store> {
  const store =
    backend === 'sqlite'
      ? openSqlite({ path: ':memory:', durability: 'normal', rollup: { intervalMs: 0 } })
      : await openPostgres({ url: await freshSchemaUrl(), pool: 2, analyticsIntervalMs: 0 });
  onTestFinished(() => store.close());
  atCleanUp(() => store.close());
  return store;
}
