// Opens the store --db names: a SQLite file (the embedded default) or a PostgreSQL
// database (several instances on one database).

import type { Config } from '../config/config.ts';
import type { Logger } from '../logger.ts';
import { isPostgresUrl } from './database-url.ts';
import { openPostgres } from './postgres/postgres-store.ts';
import { openSqlite } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

export type StoreConfig = Pick<Config, 'db' | 'dbPool' | 'durability' | 'minFreeDiskBytes'> &
  Partial<Pick<Config, 'clickRetentionDays'>>;

/**
 * Opens and migrates the database; throws StoreUnavailableError when PostgreSQL cannot
 * be reached. `deadlineMs` bounds each PostgreSQL operation (see PostgresOptions).
 */
export async function openStore(
  config: StoreConfig,
  log: Logger,
  options: {
    deadlineMs?: number;
    /** false: no analytics rollup of its own (tools such as `kurz copy`). */
    background?: boolean;
  } = {},
): Promise<Store> {
  const background = options.background ?? true;
  if (isPostgresUrl(config.db)) {
    return openPostgres({
      url: config.db,
      pool: config.dbPool,
      log,
      clickRetentionDays: config.clickRetentionDays,
      deadlineMs: options.deadlineMs,
      ...(background ? {} : { analyticsIntervalMs: 0 }),
    });
  }
  return openSqlite({
    path: config.db,
    durability: config.durability,
    minFreeDiskBytes: config.minFreeDiskBytes,
    clickRetentionDays: config.clickRetentionDays,
    moveClicks: background,
    log,
  });
}
