// The click log on SQLite: the redirects' batches (the hot write, with their outbox
// messages and the limits of links with max_clicks in the same transaction), clicks a
// tool imports beside a running server, and the steps the click pipeline
// (clicks/pipeline.ts) takes to move the log into records and rollups and to prune them.

import { type Database, SQLiteError, type Statement } from 'bun:sqlite';
import type { ClickSteps } from '../../clicks/pipeline.ts';
import { PendingTally } from '../../domain/clicks.ts';
import { shareLimits } from '../click-limits.ts';
import type { Click, RefusedClicks } from '../store.ts';
import type { SqliteAnalytics } from './analytics.ts';
import type { ClickRollup } from './click-counts.ts';
import { classify } from './open.ts';
import { SqlitePendingValues } from './pending-values.ts';
import type { SqliteWebhooks } from './webhooks.ts';

/** Work done inside a click batch's transaction, after its rows. */
type Also = () => void;
/** Puts the clicks of a batch in the outbox of the webhooks that want them. */
type ReportClicks = (clicks: readonly Click[]) => void;

/** Click rows per multi-row INSERT: one statement run for many rows is ~30% cheaper. */
const CLICK_CHUNK = 16;
const CLICK_COLUMNS =
  '(id, link_id, source, query_source, referrer, user_agent, created_at, country, route)';
const CLICK_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
const CLICK_FIELDS = 9;

type Values = (string | number | null)[];

/** Puts click `c`, with `id`, in `values` at `at`, in CLICK_COLUMNS' order. */
function bindClick(values: Values, at: number, id: number, c: Click): void {
  values[at] = id;
  values[at + 1] = c.linkId;
  values[at + 2] = c.source;
  values[at + 3] = c.querySource;
  values[at + 4] = c.referrer;
  values[at + 5] = c.userAgent;
  values[at + 6] = c.createdAt;
  values[at + 7] = c.country;
  values[at + 8] = c.route ?? null;
}

/**
 * Runs `statement` with `values`: bun:sqlite binds an array positionally (a third
 * cheaper than spread arguments); its types only admit a record.
 */
function runWith(statement: Statement, values: Values): void {
  statement.run(values as unknown as Record<string, string | number | null>);
}

/** Adds a batch's clicks to pending_values, one upsert per distinct key, in its transaction. */
function countPending(pending: SqlitePendingValues, batch: readonly Click[]): void {
  const tally = new PendingTally();
  for (let i = 0; i < batch.length; i++) tally.add(batch[i] as Click);
  pending.add(tally.rows());
}

/**
 * The hot write of kurz, on bun:sqlite statements directly (drizzle's placeholder
 * filling costs more than the insert): one transaction per batch, appending click rows
 * 16 at a time, then the batch's counts in pending_values, one upsert per distinct
 * (link, day, column, value). Counts of links are rolled up from this log.
 *
 * Ids are given here, not left to SQLite: the analytics rollup empties the log, and
 * SQLite would then hand out ids from 1 again, below the marks that say which clicks
 * are counted and moved. One process writes the log, so a counter in memory is exact;
 * it starts past every id the log, the records and the marks have seen.
 */
function clickLog(sqlite: Database, pending: SqlitePendingValues) {
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
  const values: Values = new Array(CLICK_CHUNK * CLICK_FIELDS);
  const one: Values = new Array(CLICK_FIELDS);
  // A deferred transaction: IMMEDIATE would also lock the attached counts database,
  // which the maintenance thread writes.
  const insert = sqlite.transaction((batch: readonly Click[], first: number, also?: Also): void => {
    let id = first;
    let i = 0;
    for (; i + CLICK_CHUNK <= batch.length; i += CLICK_CHUNK) {
      for (let j = 0; j < CLICK_CHUNK; j++) {
        bindClick(values, j * CLICK_FIELDS, id++, batch[i + j] as Click);
      }
      runWith(insertChunk, values);
    }
    for (; i < batch.length; i++) {
      bindClick(one, 0, id++, batch[i] as Click);
      runWith(insertOne, one);
    }
    countPending(pending, batch);
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
function clickImport(sqlite: Database, pending: SqlitePendingValues) {
  const highest = `(SELECT max(
       (SELECT coalesce(max(id), 0) FROM clicks),
       (SELECT coalesce(max(id), 0) FROM click_records),
       (SELECT coalesce(max(through), 0) FROM click_rollup),
       (SELECT coalesce(max(through), 0) FROM counts.rollup)))`;
  const first = sqlite.prepare<
    { id: number },
    [
      number,
      string | null,
      string | null,
      string | null,
      string | null,
      number,
      string | null,
      string | null,
    ]
  >(
    `INSERT INTO clicks ${CLICK_COLUMNS} VALUES (${highest} + 1, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const next = sqlite.prepare(`INSERT INTO clicks ${CLICK_COLUMNS} VALUES ${CLICK_ROW}`);
  const one: Values = new Array(CLICK_FIELDS);
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
      head.route ?? null,
    );
    let id = (row as { id: number }).id;
    for (const c of rest) {
      bindClick(one, 0, ++id, c);
      runWith(next, one);
    }
    countPending(pending, batch);
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

/**
 * Writing clicks: `wrote` is told of each batch this process committed (the pipeline's
 * flood rule). The functions run inside the store's write guard.
 */
export function sqliteClicks(
  sqlite: Database,
  rollup: ClickRollup,
  hooks: SqliteWebhooks,
  wrote: (clicks: number) => void,
) {
  const pending = new SqlitePendingValues(sqlite);
  const clicks = clickLog(sqlite, pending);
  const appendLimited = limitedClickLog(sqlite, clicks.append);
  let imports: ReturnType<typeof clickImport> | undefined;
  /** Puts a batch's clicks in the outbox, inside the batch's transaction. */
  const reportClicks: ReportClicks = (batch) => hooks.clicks(batch, Date.now());
  const operations = {
    recordClicks(batch: readonly Click[]): RefusedClicks {
      let limited = false;
      for (let i = 0; i < batch.length; i++) if ((batch[i] as Click).limited) limited = true;
      // Asked in this synchronous run, before the batch's transaction: nothing else of
      // this process can register a webhook in between, and no other process writes.
      const report = hooks.wantsClicks() ? reportClicks : undefined;
      if (!limited) {
        const last = clicks.append(batch, report && (() => report(batch)));
        // Only once committed: the rollup counts what the log holds.
        rollup.committed(batch, last);
        wrote(batch.length);
        return undefined;
      }
      const { stored, last, refused } = appendLimited(batch, report);
      if (stored.length > 0) rollup.committed(stored, last);
      wrote(stored.length);
      return refused;
    },

    importClicks(batch: readonly Click[]): void {
      if (batch.length === 0) return;
      imports ??= clickImport(sqlite, pending);
      const last = imports.append(batch);
      rollup.committed(batch, last);
    },
  };
  return {
    operations,
    finalize(): void {
      imports?.finalize();
      clicks.finalize();
      pending.finalize();
    },
  };
}

/**
 * The pipeline's steps on SQLite: the log moves only as far as the counts file has
 * folded it (reads add the log's tail beyond the counts), one transaction per step.
 */
export function sqliteClickSteps(rollup: ClickRollup, analytics: SqliteAnalytics): ClickSteps {
  return {
    move(limit: number): number {
      try {
        const n = analytics.step(limit, rollup.counted);
        analytics.committed();
        return n;
      } catch (error) {
        analytics.rolledBack();
        throw classify(error);
      }
    },
    backlog: () => rollup.counted - analytics.through,
    prune: (before: number, limit: number) => analytics.pruneRecords(before, limit),
  };
}
