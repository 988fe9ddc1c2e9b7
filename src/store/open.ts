// Opens the store --db names: a SQLite file (the embedded default) or a PostgreSQL
// database (several instances on one database).

import { isPostgresUrl } from '../domain/database-url.ts';
import type { Logger } from '../logger.ts';
import { openPostgres } from './postgres/postgres-store.ts';
import { openSqlite } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** What the store takes of the configuration (Config has these fields). */
export interface StoreConfig {
  /** A SQLite path or a PostgreSQL URL (--db). */
  db: string;
  /** PostgreSQL's connections. */
  dbPool: number;
  /** SQLite's: `normal` survives process crashes, `full` power loss too. */
  durability: 'normal' | 'full';
  /** SQLite's: free bytes the file system must keep. */
  minFreeDiskBytes: number;
  /** Days click records are kept; 0 or absent: forever. */
  clickRetentionDays?: number;
}

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
