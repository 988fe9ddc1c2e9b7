// `kurz copy --from SOURCE --to TARGET`: opens both databases (migrating them as kurz
// serve would), copies, verifies, and says so. Exit 0 when the copy checks out, 1 when
// the target was refused, the copy failed, or anything differs afterwards.

import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeDatabase, isPostgresUrl } from '../domain/database-url.ts';
import { StoreUnavailableError } from '../domain/errors.ts';
import { printable } from '../domain/printable.ts';
import type { Logger } from '../logger.ts';
import { openStore, type StoreConfig } from '../store/open.ts';
import type { PostgresStore } from '../store/postgres/postgres-store.ts';
import type { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { copyDatabase, describeCopied } from './copy.ts';
import { PostgresSide } from './postgres-side.ts';
import { count, type ProgressOutput, progressTo } from './progress.ts';
import { SqliteSide } from './sqlite-side.ts';
import type { CopySide } from './tables.ts';

export interface CopyRequest {
  /** A SQLite path or a PostgreSQL URL, as parseDatabase leaves them. */
  from: string;
  to: string;
  /** What both are opened with besides their address (durability, …). */
  config: Omit<StoreConfig, 'db'>;
}

/** The same database, however written: a SQLite file by its real path, PostgreSQL without credentials. */
function identity(db: string): string {
  if (isPostgresUrl(db)) {
    const url = new URL(db);
    const schema = url.searchParams.get('schema') ?? 'public';
    return `postgres://${url.hostname}:${url.port || '5432'}${url.pathname}?schema=${schema}`;
  }
  const path = resolve(db);
  return existsSync(path) ? realpathSync(path) : path;
}

async function open(db: string, config: Omit<StoreConfig, 'db'>, log: Logger): Promise<CopySide> {
  let store: Store;
  try {
    // One connection holds the snapshot or writes; a second serves the rest.
    // No deadline: copying and comparing a large database takes long statements.
    store = await openStore({ ...config, db, dbPool: 2 }, log, {
      deadlineMs: 0,
      background: false,
    });
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    throw new Error(
      `the database ${describeDatabase(db)} cannot be reached (${reason(error.cause ?? error)})`,
    );
  }
  return store.kind === 'sqlite'
    ? new SqliteSide(store as SqliteStore)
    : new PostgresSide(store as PostgresStore, db);
}

export async function copyCommand(
  request: CopyRequest,
  log: Logger,
  progressOutput: ProgressOutput = process.stderr,
): Promise<number> {
  const { from, to, config } = request;
  if (identity(from) === identity(to)) {
    log.error(
      printable(`kurz copy: --from and --to name the same database (${describeDatabase(from)})`),
    );
    return 1;
  }
  // Opening a SQLite path creates it: a mistyped source would copy an empty database.
  if (!isPostgresUrl(from) && !existsSync(from)) {
    log.error(printable(`kurz copy: the source database ${from} does not exist`));
    return 1;
  }
  const sides: CopySide[] = [];
  try {
    const source = await open(from, config, log);
    sides.push(source);
    const target = await open(to, config, log);
    sides.push(target);
    const started = performance.now();
    let outcome: Awaited<ReturnType<typeof copyDatabase>>;
    try {
      outcome = await copyDatabase(source, target, progressTo(progressOutput));
    } catch (error) {
      log.error(
        printable(
          `kurz copy: the copy failed (${reason(error)}); the target may hold part of it: empty it, or make a new database, before trying again`,
        ),
      );
      return 1;
    }
    if (outcome.kind === 'refused') {
      log.error(printable(`kurz copy: ${outcome.reason}`));
      return 1;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    log.info(
      printable(
        `kurz copy: copied ${source.label} to ${target.label} in ${seconds} s: ${describeCopied(outcome.copied)}`,
      ),
    );
    if (outcome.problems.length > 0) {
      for (const problem of outcome.problems)
        log.error(printable(`kurz copy: mismatch: ${problem}`));
      return 1;
    }
    log.info(
      printable(
        `kurz copy: verified: the same rows in every table, the same links per owner and per domain and the same click count for each of the ${count(outcome.links)} links`,
      ),
    );
    return 0;
  } finally {
    for (const side of sides.reverse()) await side.close();
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
