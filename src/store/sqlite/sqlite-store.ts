// The SQLite implementation of Store, over bun:sqlite and drizzle. Every query is
// prepared once here; nothing builds SQL per request.

import { Database, SQLiteError } from 'bun:sqlite';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import { StoreUnavailableError } from '../../domain/errors.ts';
import type { DeliveryType } from '../../domain/webhooks.ts';
import { consoleLogger, type Logger } from '../../logger.ts';
import type {
  ApiKey,
  ApiKeyGrant,
  KEY_LIMIT_REACHED,
  NewApiKey,
  RemovedLinks,
  UserSummary,
} from '../accounts.ts';
import { shareLimits } from '../click-limits.ts';
import { applyChanges } from '../link-changes.ts';
import { createdDetail } from '../outbox.ts';
import { scheduleRetention } from '../retention.ts';
import {
  type Click,
  type ClickRow,
  type CodeHolder,
  type CreatedLink,
  type DeliveryOutcome,
  type DeliveryRecord,
  type DueDelivery,
  LINK_LIMIT_REACHED,
  type Link,
  type LinkChanged,
  type LinkChanges,
  type LinkChunkQuery,
  type LinkDetail,
  type LinkPage,
  type LinkQuery,
  type LinkTarget,
  type LinkTraffic,
  type NewLink,
  type NewWebhook,
  type RefusedClicks,
  type Store,
  type StoreTotals,
  type User,
  type UserWithHash,
  type WEBHOOK_LIMIT_REACHED,
  type Webhook,
} from '../store.ts';
import { sqliteAccounts } from './accounts.ts';
import { reconcileCounts, SqliteAnalytics } from './analytics.ts';
import {
  attachCounts,
  CLICKS_COLUMN,
  CLICKS_JOINS,
  CLICKS_OF_LINKS,
  ClickRollup,
  countsPathOf,
  type RollupOptions,
} from './click-counts.ts';
import type { MaintenanceMessage } from './maintenance.ts';
import { applyMigrations } from './migrate.ts';
import * as schema from './schema.ts';
import { type SqliteWebhooks, sqliteWebhooks } from './webhooks.ts';
import { WriteGuard } from './write-guard.ts';

const { users, links, settings } = schema;

export interface SqliteOptions {
  /** A file path (its folder is created) or `:memory:`. */
  path: string;
  /** `normal` survives process crashes; `full` survives power loss too. */
  durability: 'normal' | 'full';
  /** Free bytes the file system must keep: below it writes are refused (0: no floor). */
  minFreeDiskBytes?: number;
  /** Where changes of the store's state (disk full, file removed, …) are told; once per change. */
  log?: Logger;
  /**
   * The click rollup: milliseconds between cycles (0: none on a timer; tests drive
   * `rollup.step()`), and the size of its slices.
   */
  rollup?: RollupOptions & { intervalMs?: number };
  /** Days click records are kept (day rollups stay); 0 or absent: forever. */
  clickRetentionDays?: number;
  /** false: the log is not moved into records and rollups by itself (tools such as `kurz copy`). */
  moveClicks?: boolean;
}

/** SQLite result codes that mean the database itself is unusable, not that the query was wrong. */
const UNAVAILABLE_CODES =
  /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL|NOMEM|PERM|AUTH)/;
/** Codes of a write the disk or file refused: they make the store unavailable until a write succeeds. */
const WRITE_FAULT_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM)/;

function isBusyCause(cause: unknown): boolean {
  return cause instanceof SQLiteError && /^SQLITE_(BUSY|LOCKED)/.test(cause.code ?? '');
}

function classify(error: unknown): unknown {
  if (error instanceof SQLiteError && UNAVAILABLE_CODES.test(error.code ?? '')) {
    return new StoreUnavailableError({ cause: error });
  }
  // bun:sqlite's message once the handle is closed.
  if (error instanceof Error && /closed database/i.test(error.message)) {
    return new StoreUnavailableError({ cause: error });
  }
  return error;
}

/** How often a watcher looks for commits by another process (see watchLinks). */
const WATCH_INTERVAL_MS = 250;
/** How often the maintenance thread checkpoints the WALs. */
const MAINTENANCE_INTERVAL_MS = 100;
/**
 * How often a rollup cycle starts (then runs in slices, one per event-loop turn): a
 * longer interval folds more clicks per link into one counter write (measured: 8x fewer
 * page writes with 50,000 links clicked than every 100 ms), at the price of a longer log
 * tail for reads to add (about 1 s of clicks).
 */
const ROLLUP_INTERVAL_MS = 1000;
/**
 * WAL pages after which the writer checkpoints by itself: a backstop, since under
 * continuous writes the maintenance thread never catches up to the last frame and only
 * the writer can then restart the WAL. By then nearly all of it has been copied.
 */
const WRITER_CHECKPOINT_PAGES = 4096;

/** Opens (creating when needed) and migrates a SQLite database and its counts file. */
export function openSqlite(options: SqliteOptions): SqliteStore {
  const inFile = options.path !== ':memory:';
  const log = options.log ?? consoleLogger;
  const countsPath = countsPathOf(options.path);
  if (inFile) {
    // Owner-only: the database holds password hashes and the token key.
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    for (const path of [options.path, countsPath]) ownerOnly(path, log);
  }
  const sqlite = new Database(options.path, { create: true, strict: true });
  try {
    sqlite.run('PRAGMA journal_mode = WAL');
    sqlite.run(`PRAGMA synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    sqlite.run('PRAGMA busy_timeout = 5000');
    sqlite.run('PRAGMA foreign_keys = ON');
    // No memory map (SQLite's default; said because it was once 256 MiB). Every page read
    // through a map stays in kurz's RSS, so RSS grew with the database up to the map's
    // size, though the pages are only the kernel's file cache, which read() uses too.
    // Measured back to back with a 256 MiB map: redirects with 1M links alike (12.9 vs
    // 13.2 µs CPU each, 50,000 codes hot: the link cache answers them), RSS 313 vs 122
    // MiB; the soak's RSS +1 MiB per MiB the database grew vs flat. Only deep OFFSET
    // pages were faster: offset 500,000 of 1M p50 25 vs 59 ms.
    sqlite.run('PRAGMA mmap_size = 0');
    const db = drizzle({ client: sqlite, schema });
    applyMigrations(sqlite);
    attachCounts(sqlite, countsPath);
    reconcileCounts(sqlite);
    const guard = inFile
      ? new WriteGuard(options.path, options.minFreeDiskBytes ?? 0, log)
      : undefined;
    const { intervalMs = ROLLUP_INTERVAL_MS, ...slices } = options.rollup ?? {};
    const counts = inFile ? openCountsWriter(countsPath) : sqlite;
    const rollup = new ClickRollup(sqlite, counts, slices);
    const stopRollup = rollUpInSlices(rollup, intervalMs);
    const analytics = new SqliteAnalytics(sqlite);
    const stopAnalytics = moveInSlices(
      analytics,
      rollup,
      options.moveClicks === false ? 0 : intervalMs,
    );
    const stopRetention = pruneRecords(analytics, options.clickRetentionDays ?? 0, log);
    const stopCheckpoints = inFile
      ? startMaintenance(sqlite, options.path, countsPath)
      : async () => {};
    const stop = async () => {
      stopRetention();
      stopAnalytics();
      await stopCheckpoints();
      stopRollup();
      analytics.finalize();
    };
    return new SqliteStore(sqlite, db, stop, rollup, analytics, guard);
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * The rollup's own connection to the counts file, so that its counts transaction can stay
 * open across slices while the store's connection commits click batches. It never waits
 * for a lock (a busy counts file holds the cycle back until the next interval) and never
 * checkpoints: the maintenance thread does, and 4,096 pages is only a backstop.
 */
function openCountsWriter(countsPath: string): Database {
  const counts = new Database(':memory:', { strict: true });
  attachCounts(counts, countsPath);
  counts.run('PRAGMA busy_timeout = 0');
  counts.run(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
  return counts;
}

/** The side files SQLite keeps beside a database file. */
const SIDE_FILES = ['-wal', '-shm'];

/**
 * Makes a database file and its side files readable by the owner only: a new file is
 * created 0600 before SQLite opens it (SQLite gives the WAL and shared-memory files the
 * mode of their database); an existing one that others could read is tightened, and said.
 */
function ownerOnly(path: string, log: Logger): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, ...SIDE_FILES.map((side) => path + side)]) {
    const mode = statSync(file, { throwIfNoEntry: false })?.mode;
    if (mode === undefined || (mode & 0o077) === 0) continue;
    chmodSync(file, mode & 0o700);
    log.info(
      `kurz: ${file} was readable by other users (mode ${(mode & 0o777).toString(8)}); made owner-only (600)`,
    );
  }
}

/**
 * An object whose members are made on first use: preparing every query at start-up
 * (drizzle builds each one) took a quarter of the time to the first answer.
 */
function lazily<T extends Record<string, () => unknown>>(
  makers: T,
): { readonly [K in keyof T]: ReturnType<T[K]> } & { made(): unknown[] } {
  const made: unknown[] = [];
  const target = { made: () => made };
  for (const [name, make] of Object.entries(makers)) {
    Object.defineProperty(target, name, {
      configurable: true,
      get() {
        const value = make();
        made.push(value);
        Object.defineProperty(target, name, { value });
        return value;
      },
    });
  }
  return target as { readonly [K in keyof T]: ReturnType<T[K]> } & { made(): unknown[] };
}

/** Stops background work on a store; resolves once it has stopped. */
type Maintenance = () => Promise<void>;

/** The checkpoint thread for a file database; until it runs, and if it fails, the writer checkpoints as usual. */
function startMaintenance(sqlite: Database, path: string, countsPath: string): Maintenance {
  // In the executable the thread is the build's second entrypoint, named by its path under
  // src/; a URL made from import.meta.url would name the file in the checkout it was built
  // from (the bundler writes that path in), which is missing wherever the executable is
  // copied. The build defines Bun.isStandaloneExecutable, so the other branch, and the
  // checkout's path with it, is left out of the executable.
  const worker = new Worker(
    Bun.isStandaloneExecutable
      ? './store/sqlite/maintenance.ts'
      : new URL('./maintenance.ts', import.meta.url).href,
  );
  worker.onmessage = (event) => {
    if (event.data === 'started') {
      sqlite.run(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
    }
  };
  worker.onerror = () => {
    try {
      sqlite.run('PRAGMA wal_autocheckpoint = 1000');
    } catch {
      // Already closed: nothing left to checkpoint.
    }
  };
  worker.postMessage({
    start: {
      path,
      countsPath,
      intervalMs: MAINTENANCE_INTERVAL_MS,
    },
  } satisfies MaintenanceMessage);
  // The thread must not keep the process alive on its own.
  worker.unref();
  return () =>
    new Promise((resolve) => {
      const timeout = setTimeout(() => {
        worker.terminate();
        resolve();
      }, 1000);
      worker.onmessage = (event) => {
        if (event.data !== 'stopped') return;
        clearTimeout(timeout);
        worker.terminate();
        resolve();
      };
      worker.postMessage('stop' satisfies MaintenanceMessage);
    });
}

/**
 * Starts a rollup cycle every `intervalMs` and runs it one slice per event-loop turn
 * (setImmediate: after the turn's I/O, between click batches), so no request waits
 * behind more than one slice. A failed slice stops the cycle until the next interval (a
 * refused lock keeps it whole; after any other failure the next cycle reads its clicks
 * back from the log). Returns the stop, which folds what is left and closes.
 */
function rollUpInSlices(rollup: ClickRollup, intervalMs: number): () => void {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  const slice = () => {
    immediate = undefined;
    let more = false;
    try {
      more = rollup.step();
    } catch {
      // Busy or unavailable: tried again at the next interval; reads add the log's tail.
    }
    if (more) immediate = setImmediate(slice);
  };
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          if (immediate === undefined && rollup.busy) slice();
        }, intervalMs)
      : undefined;
  timer?.unref();
  return () => {
    clearInterval(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    try {
      rollup.flush();
    } catch {
      rollup.cancel();
    }
    rollup.close();
  };
}

/** Clicks one analytics slice moves (measured at about 0.3 ms). */
const ANALYTICS_SLICE = 64;
/**
 * Milliseconds per second the analytics rollup may take. While clicks keep coming at
 * more than BUSY_CLICKS a second it takes none, so a flood of redirects keeps its
 * speed (measured: moving at 4% of each second cost the redirect benchmark 7% of its
 * throughput); the log grows meanwhile (about 160 bytes a click) and is moved once the
 * flood eases. Only past BACKLOG_CLICKS waiting does it take BUSY_BUDGET_MS even then.
 */
const IDLE_BUDGET_MS = 500;
const BUSY_BUDGET_MS = 40;
const BUSY_CLICKS = 2000;
const BACKLOG_CLICKS = 1_000_000;

/**
 * Moves counted clicks out of the log into records and day rollups, one transaction
 * per slice of ANALYTICS_SLICE clicks, one slice per event-loop turn, within the
 * second's budget. Returns the stop.
 */
function moveInSlices(analytics: SqliteAnalytics, rollup: ClickRollup, intervalMs: number) {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  let lastCounted = rollup.counted;
  let budget = IDLE_BUDGET_MS;
  let spent = 0;
  const slice = () => {
    immediate = undefined;
    const started = performance.now();
    const upTo = rollup.counted;
    try {
      analytics.step(ANALYTICS_SLICE, upTo);
      analytics.committed();
    } catch {
      // Busy or unavailable: the clicks stay in the log, moved at the next interval.
      analytics.rolledBack();
      return;
    }
    spent += performance.now() - started;
    if (analytics.through < upTo && spent < budget) immediate = setImmediate(slice);
  };
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          const counted = rollup.counted;
          const arriving = ((counted - lastCounted) * 1000) / intervalMs;
          lastCounted = counted;
          const backlog = counted - analytics.through;
          const perSecond =
            arriving <= BUSY_CLICKS
              ? IDLE_BUDGET_MS
              : backlog > BACKLOG_CLICKS
                ? BUSY_BUDGET_MS
                : 0;
          budget = (perSecond * intervalMs) / 1000;
          spent = 0;
          if (immediate === undefined && budget > 0 && counted > analytics.through) slice();
        }, intervalMs)
      : undefined;
  timer?.unref();
  return () => {
    clearInterval(timer);
    if (immediate !== undefined) clearImmediate(immediate);
  };
}

/** Click records removed per slice, when retention runs. */
const RETENTION_SLICE = 1000;

/** Removes click records older than `days` (0: never) on retention's schedule, a slice per turn. */
function pruneRecords(analytics: SqliteAnalytics, days: number, log: Logger): () => void {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  let removed = 0;
  const slice = (before: number) => {
    immediate = undefined;
    try {
      const n = analytics.pruneRecords(before, RETENTION_SLICE);
      removed += n;
      if (n === RETENTION_SLICE) {
        immediate = setImmediate(slice, before);
        return;
      }
    } catch {
      // Tried again at the next run.
    }
    if (removed > 0) log.info(`kurz: removed ${removed} click records older than ${days} days`);
    removed = 0;
  };
  const stop = scheduleRetention(days, (before) => {
    if (immediate === undefined) slice(before);
  });
  return () => {
    stop();
    if (immediate !== undefined) clearImmediate(immediate);
  };
}

/** Work done inside a click batch's transaction, after its rows. */
type Also = () => void;
/** Puts the clicks of a batch in the outbox of the webhooks that want them. */
type ReportClicks = (clicks: readonly Click[]) => void;

/** Click rows per multi-row INSERT: one statement run for many rows is ~30% cheaper. */
const CLICK_CHUNK = 16;
const CLICK_COLUMNS =
  '(id, link_id, source, query_source, referrer, user_agent, created_at, country)';
const CLICK_ROW = '(?, ?, ?, ?, ?, ?, ?, ?)';
const CLICK_FIELDS = 8;

/**
 * The hot write of kurz, on bun:sqlite statements directly (drizzle's placeholder
 * filling costs more than the insert): one transaction per batch, appending click rows
 * 16 at a time. Nothing else is written: counts are rolled up from this log.
 *
 * Ids are given here, not left to SQLite: the analytics rollup empties the log, and
 * SQLite would then hand out ids from 1 again, below the marks that say which clicks
 * are counted and moved. One process writes the log, so a counter in memory is exact;
 * it starts past every id the log, the records and the marks have seen.
 */
function clickLog(sqlite: Database) {
  const insertOne = sqlite.prepare(`INSERT INTO clicks ${CLICK_COLUMNS} VALUES ${CLICK_ROW}`);
  const insertChunk = sqlite.prepare(
    `INSERT INTO clicks ${CLICK_COLUMNS} VALUES ${Array(CLICK_CHUNK).fill(CLICK_ROW).join(', ')}`,
  );
  const highest = sqlite.query<{ id: number }, []>(
    `SELECT max(
       (SELECT coalesce(max(id), 0) FROM clicks),
       (SELECT coalesce(max(id), 0) FROM click_records),
       (SELECT coalesce(max(through), 0) FROM click_rollup),
       (SELECT coalesce(max(through), 0) FROM counts.rollup)) AS id`,
  );
  const nextFree = () => (highest.get()?.id ?? 0) + 1;
  let next = nextFree();
  const values: (string | number | null)[] = new Array(CLICK_CHUNK * CLICK_FIELDS);
  // A deferred transaction: IMMEDIATE would also lock the attached counts database,
  // which the maintenance thread writes.
  const insert = sqlite.transaction((batch: readonly Click[], first: number, also?: Also): void => {
    let id = first;
    let i = 0;
    for (; i + CLICK_CHUNK <= batch.length; i += CLICK_CHUNK) {
      for (let j = 0; j < CLICK_CHUNK; j++) {
        const c = batch[i + j] as Click;
        const o = j * CLICK_FIELDS;
        values[o] = id++;
        values[o + 1] = c.linkId;
        values[o + 2] = c.source;
        values[o + 3] = c.querySource;
        values[o + 4] = c.referrer;
        values[o + 5] = c.userAgent;
        values[o + 6] = c.createdAt;
        values[o + 7] = c.country;
      }
      // bun:sqlite binds an array positionally (a third cheaper than spread arguments);
      // its types only admit a record.
      insertChunk.run(values as unknown as Record<string, string | number | null>);
    }
    for (; i < batch.length; i++) {
      const c = batch[i] as Click;
      insertOne.run(
        id++,
        c.linkId,
        c.source,
        c.querySource,
        c.referrer,
        c.userAgent,
        c.createdAt,
        c.country,
      );
    }
    also?.();
  });
  /**
   * Appends a batch in one transaction, with `also` (the outbox's messages) in it;
   * returns the id of its last click.
   */
  const append = (batch: readonly Click[], also?: Also): number => {
    let first = next;
    try {
      insert(batch, first, also);
    } catch (error) {
      // Rows written by something else than this store (a tool, an old kurz) took the
      // ids: start past them.
      if (!(error instanceof SQLiteError && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
        throw error;
      }
      first = nextFree();
      insert(batch, first, also);
    }
    // Only once committed: a batch rolled back leaves its ids to the next one.
    next = first + batch.length;
    return next - 1;
  };
  return {
    append,
    finalize() {
      insertOne.finalize();
      insertChunk.finalize();
      highest.finalize();
    },
  };
}

/**
 * Clicks appended by a tool (`kurz import`) while a kurz may be writing the log too. The
 * first row's id is worked out by its INSERT itself, past every id the log, the records
 * and the marks have seen: that statement takes the write lock before it reads, so no
 * commit of the server can come between. The server's next batch then finds its ids
 * taken and starts past them (see clickLog), so ids still follow commit order, as the
 * rollup needs.
 */
function clickImport(sqlite: Database) {
  const highest = `(SELECT max(
       (SELECT coalesce(max(id), 0) FROM clicks),
       (SELECT coalesce(max(id), 0) FROM click_records),
       (SELECT coalesce(max(through), 0) FROM click_rollup),
       (SELECT coalesce(max(through), 0) FROM counts.rollup)))`;
  const first = sqlite.prepare<
    { id: number },
    [number, string | null, string | null, string | null, string | null, number, string | null]
  >(
    `INSERT INTO clicks ${CLICK_COLUMNS} VALUES (${highest} + 1, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const next = sqlite.prepare<
    unknown,
    [
      number,
      number,
      string | null,
      string | null,
      string | null,
      string | null,
      number,
      string | null,
    ]
  >(`INSERT INTO clicks ${CLICK_COLUMNS} VALUES ${CLICK_ROW}`);
  /** Appends a batch in one transaction; returns the id of its last click. */
  const append = sqlite.transaction((batch: readonly Click[]): number => {
    const [head, ...rest] = batch as [Click, ...Click[]];
    const row = first.get(
      head.linkId,
      head.source,
      head.querySource,
      head.referrer,
      head.userAgent,
      head.createdAt,
      head.country,
    );
    let id = (row as { id: number }).id;
    for (const c of rest) {
      next.run(
        ++id,
        c.linkId,
        c.source,
        c.querySource,
        c.referrer,
        c.userAgent,
        c.createdAt,
        c.country,
      );
    }
    return id;
  });
  return {
    append,
    finalize() {
      first.finalize();
      next.finalize();
    },
  };
}

/**
 * Newest-first pages of links with their click counts, and the totals beside them.
 * The page is cut from the index first, and counts are joined to its rows only, so a
 * large OFFSET skips index entries rather than joining every skipped link.
 */
function linkLists(sqlite: Database) {
  const page = (where: string) => `${CLICKS_OF_LINKS},
    page AS (SELECT id FROM links ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?)
    SELECT l.id, l.user_id AS userId, l.original_url AS originalUrl, l.short_code AS shortCode,
           l.created_at AS createdAt, ${CLICKS_COLUMN}
    FROM page JOIN links l ON l.id = page.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  return {
    all: sqlite.prepare<Link, [number, number]>(page('')),
    ofUser: sqlite.prepare<Link, [number, number, number]>(page('WHERE user_id = ?')),
    totalAll: sqlite.prepare<{ n: number }, []>(
      'SELECT coalesce(sum(links), 0) AS n FROM link_totals',
    ),
    totalOfUser: sqlite.prepare<{ n: number }, [number]>(
      'SELECT coalesce(sum(links), 0) AS n FROM link_totals WHERE owner = ?',
    ),
    everything: sqlite.prepare<StoreTotals, []>(
      `SELECT (SELECT coalesce(sum(links), 0) FROM link_totals) AS links,
              (SELECT count(*) FROM users) AS users`,
    ),
  };
}

/**
 * The links after a cursor, newest first, with their counts: the next chunk of a streamed
 * list. The row-value comparison walks the same (created_at DESC, id DESC) indexes as the
 * pages, starting at the cursor rather than skipping to it.
 */
function linkChunks(sqlite: Database) {
  const chunk = (where: string) => `${CLICKS_OF_LINKS},
    chunk AS (SELECT id FROM links WHERE ${where}(created_at, id) < (?, ?)
              ORDER BY created_at DESC, id DESC LIMIT ?)
    SELECT l.id, l.user_id AS userId, l.original_url AS originalUrl, l.short_code AS shortCode,
           l.created_at AS createdAt, ${CLICKS_COLUMN}
    FROM chunk JOIN links l ON l.id = chunk.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  const details = (where: string) => `${CLICKS_OF_LINKS},
    chunk AS (SELECT id FROM links WHERE ${where}(created_at, id) < (?, ?)
              ORDER BY created_at DESC, id DESC LIMIT ?)
    SELECT l.id, l.user_id AS userId, l.original_url AS originalUrl, l.short_code AS shortCode,
           l.created_at AS createdAt, l.source, l.expires_at AS expiresAt,
           l.max_clicks AS maxClicks, l.limited_clicks AS limitedClicks,
           l.password_hash AS passwordHash, ${CLICKS_COLUMN}
    FROM chunk JOIN links l ON l.id = chunk.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  return {
    all: sqlite.prepare<Link, [number, number, number]>(chunk('')),
    ofUser: sqlite.prepare<Link, [number, number, number, number]>(chunk('user_id = ? AND ')),
    details: sqlite.prepare<LinkDetail, [number, number, number]>(details('')),
    detailsOfUser: sqlite.prepare<LinkDetail, [number, number, number, number]>(
      details('user_id = ? AND '),
    ),
  };
}

/**
 * The links holding codes, or made at given times, for `kurz import`: a whole batch's
 * values go in as one JSON array (json_each), so one statement serves any batch size.
 * Each value is a probe of the code's unique index, or of links_user_newest.
 */
function codeHolders(sqlite: Database) {
  const columns = `short_code AS shortCode, user_id AS userId, original_url AS originalUrl,
    created_at AS createdAt`;
  return {
    byCodes: sqlite.prepare<CodeHolder, [string]>(
      `SELECT ${columns} FROM links WHERE short_code IN (SELECT value FROM json_each(?))`,
    ),
    ownersAt: sqlite.prepare<CodeHolder, [number, string]>(
      `SELECT ${columns} FROM links
       WHERE user_id = ? AND created_at IN (SELECT value FROM json_each(?))`,
    ),
    noOnesAt: sqlite.prepare<CodeHolder, [string]>(
      `SELECT ${columns} FROM links
       WHERE user_id IS NULL AND created_at IN (SELECT value FROM json_each(?))`,
    ),
  };
}

/** The columns of a LinkDetail, with the clicks the counts file and the log's tail hold. */
const DETAIL_COLUMNS = `l.id, l.user_id AS userId, l.original_url AS originalUrl,
  l.short_code AS shortCode, l.created_at AS createdAt, l.source,
  l.expires_at AS expiresAt, l.max_clicks AS maxClicks, l.limited_clicks AS limitedClicks,
  l.password_hash AS passwordHash,
  coalesce((SELECT clicks FROM counts.link_clicks WHERE link_id = l.id), 0)
  + (SELECT count(*) FROM clicks WHERE link_id = l.id
     AND id > (SELECT coalesce(max(through), 0) FROM counts.rollup)) AS clicks`;

/**
 * Reading, changing and removing one link. A removed link's rows of the counts file
 * stay (a few bytes; ids are never reused): writing that file here would wait on the
 * rollup's open transaction there.
 */
function linkManagement(sqlite: Database, hooks: SqliteWebhooks) {
  const byCode = sqlite.prepare<LinkDetail, [string]>(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.short_code = ?`,
  );
  const byId = sqlite.prepare<LinkDetail, [number]>(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = ?`,
  );
  const write = sqlite.prepare<
    unknown,
    [string, number | null, number | null, number, string | null, number]
  >(
    `UPDATE links SET original_url = ?, expires_at = ?, max_clicks = ?, limited_clicks = ?,
       password_hash = ? WHERE id = ?`,
  );
  const removals = [
    'DELETE FROM links WHERE id = ?',
    ...schema.LINK_CLICK_TABLES.map((table) => `DELETE FROM ${table} WHERE link_id = ?`),
  ].map((text) => sqlite.prepare<unknown, [number]>(text));
  return {
    byCode,
    update: sqlite.transaction((id: number, changes: LinkChanges): LinkDetail | undefined => {
      const current = byId.get(id);
      if (current === null) return undefined;
      const next = applyChanges(current, changes);
      write.run(
        next.originalUrl,
        next.expiresAt,
        next.maxClicks,
        next.limitedClicks,
        next.passwordHash,
        id,
      );
      hooks.linkEvent('link.updated', next, Date.now());
      return next;
    }),
    remove: sqlite.transaction((id: number): boolean => {
      // Read first: a webhook is told of the link as it was.
      const gone = byId.get(id);
      if (gone === null) return false;
      hooks.linkEvent('link.deleted', gone, Date.now());
      for (const statement of removals) statement.run(id);
      return true;
    }),
    finalize() {
      for (const statement of [byCode, byId, write, ...removals]) statement.finalize();
    },
  };
}

interface LimitedAppend {
  /** The clicks appended to the log, in batch order. */
  stored: Click[];
  /** The id of the last one. */
  last: number;
  refused: RefusedClicks;
}

/**
 * A batch with clicks of limited links: in one transaction, each limited link's room
 * (max_clicks - limited_clicks) is read, as many of its clicks as fit are kept and
 * counted against it, and the rest are refused. SQLite has one writer, so the
 * transaction alone makes the limit exact.
 */
function limitedClickLog(
  sqlite: Database,
  append: (batch: readonly Click[], also?: Also) => number,
): (batch: readonly Click[], report?: ReportClicks) => LimitedAppend {
  const limitOf = sqlite.prepare<{ max: number | null; used: number }, [number]>(
    'SELECT max_clicks AS max, limited_clicks AS used FROM links WHERE id = ?',
  );
  const count = sqlite.prepare<unknown, [number, number]>(
    'UPDATE links SET limited_clicks = limited_clicks + ? WHERE id = ?',
  );
  return sqlite.transaction((batch: readonly Click[], report?: ReportClicks): LimitedAppend => {
    const { stored, refused, counted } = shareLimits(batch, (linkId) => {
      // A link gone since it was looked up has no room: its clicks are refused.
      const limit = limitOf.get(linkId);
      return limit === null ? 0 : limit.max === null ? Infinity : limit.max - limit.used;
    });
    for (const [linkId, n] of counted) count.run(n, linkId);
    const last = stored.length > 0 ? append(stored, report && (() => report(stored))) : 0;
    return { stored, last, refused };
  });
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly q;
  private readonly lists: ReturnType<typeof linkLists>;
  private chunks: ReturnType<typeof linkChunks> | undefined;
  private holders: ReturnType<typeof codeHolders> | undefined;
  private imports: ReturnType<typeof clickImport> | undefined;
  private readonly clicks: ReturnType<typeof clickLog>;
  private readonly manage: ReturnType<typeof linkManagement>;
  private readonly accounts: ReturnType<typeof sqliteAccounts>;
  private readonly watchers = new Set<() => void>();
  private readonly appendLimited: (batch: readonly Click[], report?: ReportClicks) => LimitedAppend;
  private readonly hooks: SqliteWebhooks;
  /** Puts a batch's clicks in the outbox, inside the batch's transaction. */
  private readonly reportClicks: ReportClicks;
  private readonly readPage: (query: LinkQuery) => LinkPage;
  private readonly insertLinks: (batch: readonly NewLink[]) => CreatedLink[];
  private closed = false;

  constructor(
    /** The raw handle, for tests and tools that inspect what the API does not show. */
    readonly sqlite: Database,
    db: BunSQLiteDatabase<typeof schema>,
    private readonly stopMaintenance: Maintenance,
    /** Folds the click log into counts, in slices on the event loop. */
    readonly rollup: ClickRollup,
    /** Moves the counted log into click records and day rollups. */
    private readonly analytics: SqliteAnalytics,
    /** Free space, file identity and writability of a file database (none in memory). */
    private readonly writes?: WriteGuard,
  ) {
    const p = sql.placeholder;
    this.q = lazily({
      insertUser: () =>
        db
          .insert(users)
          .values({ email: p('email'), passwordHash: p('hash'), createdAt: p('now') })
          .onConflictDoNothing({ target: users.email })
          .returning({ id: users.id, email: users.email })
          .prepare(),
      userByEmail: () =>
        db
          .select({
            id: users.id,
            email: users.email,
            passwordHash: users.passwordHash,
            tokenVersion: users.tokenVersion,
          })
          .from(users)
          .where(eq(users.email, p('email')))
          .prepare(),
      insertLink: () =>
        db
          .insert(links)
          .values({
            userId: p('userId'),
            originalUrl: p('originalUrl'),
            shortCode: p('shortCode'),
            source: p('source'),
            createdAt: p('createdAt'),
            expiresAt: p('expiresAt'),
            maxClicks: p('maxClicks'),
            limitedClicks: p('limitedClicks'),
            passwordHash: p('passwordHash'),
          })
          .onConflictDoNothing({ target: links.shortCode })
          .returning({
            id: links.id,
            userId: links.userId,
            originalUrl: links.originalUrl,
            shortCode: links.shortCode,
            createdAt: links.createdAt,
          })
          .prepare(),
      linkByCode: () =>
        db
          .select({
            id: links.id,
            userId: links.userId,
            originalUrl: links.originalUrl,
            source: links.source,
            expiresAt: links.expiresAt,
            maxClicks: links.maxClicks,
            limitedClicks: links.limitedClicks,
            passwordHash: links.passwordHash,
          })
          .from(links)
          .where(eq(links.shortCode, p('code')))
          .prepare(),
      insertSetting: () =>
        db
          .insert(settings)
          .values({ key: p('key'), value: p('value') })
          .onConflictDoNothing()
          .prepare(),
      upsertSetting: () =>
        db
          .insert(settings)
          .values({ key: p('key'), value: p('value') })
          .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value` } })
          .prepare(),
      settingByKey: () =>
        db
          .select({ value: settings.value })
          .from(settings)
          .where(eq(settings.key, p('key')))
          .prepare(),
      ping: () => db.select({ key: settings.key }).from(settings).limit(1).prepare(),
    });
    const q = this.q;
    this.clicks = clickLog(sqlite);
    this.accounts = sqliteAccounts(sqlite);
    const hooks = sqliteWebhooks(sqlite);
    this.hooks = hooks;
    this.manage = linkManagement(sqlite, hooks);
    this.appendLimited = limitedClickLog(sqlite, this.clicks.append);
    this.reportClicks = (batch) => hooks.clicks(batch, Date.now());
    this.lists = linkLists(sqlite);
    const lists = this.lists;

    // The quota is read from link_totals inside the inserting transaction (its triggers
    // count each insert at once), so concurrent creates cannot pass it together.
    this.insertLinks = sqlite.transaction((batch: readonly NewLink[]) => {
      const now = Date.now();
      return batch.map((link): CreatedLink => {
        const limit = link.ownerLimit ?? 0;
        if (limit > 0 && link.userId !== null) {
          const owned = lists.totalOfUser.get(link.userId)?.n ?? 0;
          if (owned >= limit) return LINK_LIMIT_REACHED;
        }
        const row = q.insertLink.get({
          ...link,
          expiresAt: link.expiresAt ?? null,
          maxClicks: link.maxClicks ?? null,
          limitedClicks: link.limitedClicks ?? 0,
          passwordHash: link.passwordHash ?? null,
        });
        if (row) hooks.linkEvent('link.created', createdDetail(link, row.id), now);
        return row && { ...row, clicks: 0 };
      });
    });

    // A page and its total are read in one transaction, so they agree with each other.
    this.readPage = sqlite.transaction(({ owner, limit, offset }: LinkQuery): LinkPage => {
      // LIMIT -1 is SQLite for "no limit".
      const rows = limit ?? -1;
      if (owner === null) {
        return { links: lists.all.all(rows, offset), total: lists.totalAll.get()?.n ?? 0 };
      }
      return {
        links: lists.ofUser.all(owner, rows, offset),
        total: lists.totalOfUser.get(owner)?.n ?? 0,
      };
    });
  }

  private guard<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError());
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(classify(error));
    }
  }

  /**
   * A write: refused while the disk is below its floor, the file is read-only, or the
   * file was removed or replaced (checked once per call, that is once per batch). A
   * failure of the disk marks the store unavailable until a write works again.
   */
  private guardWrite<T>(work: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError());
    const writes = this.writes;
    const refusal = writes?.refusal();
    if (refusal !== undefined) {
      return Promise.reject(new StoreUnavailableError({ cause: `writes refused: ${refusal}` }));
    }
    try {
      const result = work();
      writes?.succeeded();
      return Promise.resolve(result);
    } catch (error) {
      const code = error instanceof SQLiteError ? (error.code ?? '') : '';
      if (WRITE_FAULT_CODES.test(code)) writes?.failed(code);
      return Promise.reject(classify(error));
    }
  }

  createUser(email: string, passwordHash: string): Promise<User | undefined> {
    return this.guardWrite(() =>
      this.q.insertUser.get({ email, hash: passwordHash, now: Date.now() }),
    );
  }

  findUserByEmail(email: string): Promise<UserWithHash | undefined> {
    return this.guard(() => this.q.userByEmail.get({ email }));
  }

  tokenVersion(userId: number): Promise<number | undefined> {
    return this.guard(() => this.accounts.tokenVersion(userId));
  }

  listUsers(): Promise<UserSummary[]> {
    return this.guard(() => this.accounts.listUsers());
  }

  setPassword(email: string, passwordHash: string): Promise<boolean> {
    return this.guardWrite(() => this.accounts.setPassword(email, passwordHash));
  }

  removeUser(
    email: string,
    links: RemovedLinks,
  ): Promise<{ id: number; links: number } | undefined> {
    return this.guardWrite(() => this.accounts.removeUser(email, links));
  }

  createApiKey(key: NewApiKey, limit: number): Promise<ApiKey | typeof KEY_LIMIT_REACHED> {
    return this.guardWrite(() => this.accounts.createApiKey(key, limit));
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.guard(() => this.accounts.listApiKeys(userId));
  }

  deleteApiKey(userId: number, id: number): Promise<boolean> {
    return this.guardWrite(() => this.accounts.deleteApiKey(userId, id));
  }

  findApiKey(secretHash: string): Promise<ApiKeyGrant | undefined> {
    return this.guard(() => this.accounts.findApiKey(secretHash));
  }

  touchApiKey(id: number, at: number): Promise<void> {
    return this.guardWrite(() => this.accounts.touchApiKey(id, at));
  }

  totals(): Promise<StoreTotals> {
    return this.guard(() => this.lists.everything.get() ?? { links: 0, users: 0 });
  }

  createLinks(batch: readonly NewLink[]): Promise<CreatedLink[]> {
    return this.guardWrite(() => this.insertLinks(batch));
  }

  listLinks(query: LinkQuery): Promise<LinkPage> {
    return this.guard(() => this.readPage(query));
  }

  listLinksAfter({ owner, after, limit }: LinkChunkQuery): Promise<Link[]> {
    return this.guard(() => {
      // Prepared on first use: most runs never stream a whole list.
      this.chunks ??= linkChunks(this.sqlite);
      return owner === null
        ? this.chunks.all.all(after.createdAt, after.id, limit)
        : this.chunks.ofUser.all(owner, after.createdAt, after.id, limit);
    });
  }

  listLinkDetailsAfter({ owner, after, limit }: LinkChunkQuery): Promise<LinkDetail[]> {
    return this.guard(() => {
      this.chunks ??= linkChunks(this.sqlite);
      return owner === null
        ? this.chunks.details.all(after.createdAt, after.id, limit)
        : this.chunks.detailsOfUser.all(owner, after.createdAt, after.id, limit);
    });
  }

  findLinksByCodes(codes: readonly string[]): Promise<CodeHolder[]> {
    return this.guard(() => {
      this.holders ??= codeHolders(this.sqlite);
      return this.holders.byCodes.all(JSON.stringify(codes));
    });
  }

  findLinksCreatedAt(owner: number | null, times: readonly number[]): Promise<CodeHolder[]> {
    return this.guard(() => {
      this.holders ??= codeHolders(this.sqlite);
      const at = JSON.stringify(times);
      return owner === null ? this.holders.noOnesAt.all(at) : this.holders.ownersAt.all(owner, at);
    });
  }

  findLinkByCode(code: string): Promise<LinkTarget | undefined> {
    return this.guard(() => this.q.linkByCode.get({ code }));
  }

  findLinkDetail(code: string): Promise<LinkDetail | undefined> {
    return this.guard(() => this.manage.byCode.get(code) ?? undefined);
  }

  updateLink(id: number, changes: LinkChanges): Promise<LinkDetail | undefined> {
    return this.guardWrite(() => this.manage.update(id, changes));
  }

  deleteLink(id: number): Promise<boolean> {
    return this.guardWrite(() => this.manage.remove(id));
  }

  recordClicks(batch: readonly Click[]): Promise<RefusedClicks> {
    return this.guardWrite(() => {
      let limited = false;
      for (let i = 0; i < batch.length; i++) if ((batch[i] as Click).limited) limited = true;
      // Asked in this synchronous run, before the batch's transaction: nothing else of
      // this process can register a webhook in between, and no other process writes.
      const report = this.hooks.wantsClicks() ? this.reportClicks : undefined;
      if (!limited) {
        const last = this.clicks.append(batch, report && (() => report(batch)));
        // Only once committed: the rollup counts what the log holds.
        this.rollup.committed(batch, last);
        return undefined;
      }
      const { stored, last, refused } = this.appendLimited(batch, report);
      if (stored.length > 0) this.rollup.committed(stored, last);
      return refused;
    });
  }

  importClicks(batch: readonly Click[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    return this.guardWrite(() => {
      this.imports ??= clickImport(this.sqlite);
      const last = this.imports.append(batch);
      this.rollup.committed(batch, last);
    });
  }

  linkTraffic(linkId: number, fromDay: number, toDay: number): Promise<LinkTraffic> {
    return this.guard(() => this.analytics.traffic(linkId, fromDay, toDay));
  }

  clickRows(linkId: number, afterId: number, limit: number): Promise<ClickRow[]> {
    return this.guard(() => this.analytics.rows(linkId, afterId, limit));
  }

  async rollUpClicks(): Promise<number> {
    // The maintenance thread holds the counts file for a moment while it checkpoints.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.guardWrite(() => this.moveAll());
      } catch (error) {
        const busy = error instanceof StoreUnavailableError && isBusyCause(error.cause);
        if (!busy || attempt >= 50) throw error;
        await Bun.sleep(10);
      }
    }
  }

  /** Folds every committed click into the counts, then moves them all out of the log. */
  private moveAll(): number {
    this.rollup.flush();
    const upTo = this.rollup.counted;
    let moved = 0;
    while (this.analytics.through < upTo) {
      try {
        moved += this.analytics.step(1000, upTo);
        this.analytics.committed();
      } catch (error) {
        this.analytics.rolledBack();
        throw error;
      }
    }
    return moved;
  }

  pruneClickRecords(before: number): Promise<number> {
    return this.guardWrite(() => {
      let removed = 0;
      for (;;) {
        const n = this.analytics.pruneRecords(before, RETENTION_SLICE);
        removed += n;
        if (n < RETENTION_SLICE) return removed;
      }
    });
  }

  async setting(key: string, make: () => string): Promise<string> {
    const existing = await this.guard(() => this.q.settingByKey.get({ key }));
    if (existing) return existing.value;
    return this.guardWrite(() => {
      this.q.insertSetting.run({ key, value: make() });
      // Read back: if another process stored one first, its value wins.
      const stored = this.q.settingByKey.get({ key });
      if (!stored) throw new Error(`setting ${key} could not be stored`);
      return stored.value;
    });
  }

  replaceSetting(key: string, value: string): Promise<void> {
    return this.guardWrite(() => {
      this.q.upsertSetting.run({ key, value });
    });
  }

  /**
   * One kurz serves a SQLite database, but the operator's tools (`kurz user`, `kurz
   * import`) may write to it meanwhile. SQLite's data_version changes when another
   * connection commits: then whatever the caller cached may be stale, and it is told to
   * forget all (reset), within WATCH_INTERVAL_MS. This store's own commits leave it as it is.
   */
  watchLinks(_changed: LinkChanged, reset: () => void): () => void {
    const version = this.sqlite.prepare<{ data_version: number }, []>('PRAGMA data_version');
    let seen = version.get()?.data_version;
    const timer = setInterval(() => {
      try {
        const now = version.get()?.data_version;
        if (now !== seen) {
          seen = now;
          reset();
        }
      } catch {
        // Closed, or the file is unavailable: the next request says so.
      }
    }, WATCH_INTERVAL_MS);
    timer.unref();
    const stop = () => {
      if (!this.watchers.delete(stop)) return;
      clearInterval(timer);
      version.finalize();
    };
    this.watchers.add(stop);
    return stop;
  }

  createWebhook(hook: NewWebhook, limit: number): Promise<Webhook | typeof WEBHOOK_LIMIT_REACHED> {
    return this.guardWrite(() => this.hooks.create(hook, limit));
  }

  listWebhooks(owner: number | null): Promise<Webhook[]> {
    return this.guard(() => this.hooks.list(owner));
  }

  findWebhook(id: number, owner: number | null): Promise<Webhook | undefined> {
    return this.guard(() => this.hooks.find(id, owner));
  }

  deleteWebhook(id: number, owner: number | null): Promise<boolean> {
    return this.guardWrite(() => this.hooks.remove(id, owner));
  }

  listDeliveries(webhookId: number, limit: number): Promise<DeliveryRecord[]> {
    return this.guard(() => this.hooks.deliveries(webhookId, limit));
  }

  addDelivery(
    webhookId: number,
    type: DeliveryType,
    payload: string,
    now: number,
  ): Promise<DeliveryRecord> {
    return this.guardWrite(() => this.hooks.add(webhookId, type, payload, now));
  }

  claimDeliveries(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.guardWrite(() => this.hooks.claim(now, limit, leaseMs));
  }

  releaseDeliveries(now: number): Promise<number> {
    return this.guardWrite(() => this.hooks.release(now));
  }

  finishDelivery(outcome: DeliveryOutcome): Promise<void> {
    return this.guardWrite(() => this.hooks.finish(outcome));
  }

  pruneDeliveries(before: number): Promise<number> {
    return this.guardWrite(() => {
      let removed = 0;
      for (;;) {
        const n = this.hooks.prune(before, RETENTION_SLICE);
        removed += n;
        if (n < RETENTION_SLICE) return removed;
      }
    });
  }

  /**
   * Reads, then checks the file (identity, writability, free space) and a recent write
   * failure. The real write that proves writability is /health's (health/health-check.ts).
   */
  async ping(): Promise<void> {
    await this.guard(() => {
      this.q.ping.get();
    });
    const writes = this.writes;
    if (writes === undefined) return;
    const refusal = writes.refusal();
    if (refusal !== undefined) throw new StoreUnavailableError({ cause: refusal });
    if (writes.failing) throw new StoreUnavailableError({ cause: 'the last write failed' });
  }

  /** Closes for good: later calls fail as unavailable. The WALs are checkpointed into their files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of [...this.watchers]) stop();
    this.writes?.stop();
    await this.stopMaintenance();
    try {
      // A handle with live statements would linger; finalize ours so the files really close.
      for (const query of this.q.made()) {
        (query as { stmt: { finalize(): void } }).stmt.finalize();
      }
      for (const statement of Object.values(this.lists)) statement.finalize();
      this.manage.finalize();
      this.accounts.finalize();
      this.hooks.finalize();
      for (const statement of Object.values(this.chunks ?? {})) statement.finalize();
      for (const statement of Object.values(this.holders ?? {})) statement.finalize();
      this.imports?.finalize();
      this.clicks.finalize();
      this.sqlite.run('PRAGMA main.wal_checkpoint(TRUNCATE)');
      this.sqlite.run('PRAGMA counts.wal_checkpoint(TRUNCATE)');
      this.sqlite.close(true);
    } catch (error) {
      throw classify(error);
    }
  }
}
