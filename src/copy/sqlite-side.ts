// `kurz copy` on a SQLite database: its snapshot is one read transaction, its writes
// multi-row INSERTs, one transaction per chunk. Once all is in, the counts file is
// seeded from the copied day counts, and the copied records marked as rolled up.

import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite';
import { describeDatabase } from '../domain/database-url.ts';
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from '../store/sqlite/click-counts.ts';
import { COUNT_THE_LOG } from '../store/sqlite/pending-values.ts';
import type { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { SUM_TAG_DAYS } from '../store/sqlite/tags.ts';
import {
  COLUMNS,
  type Contents,
  type CopySide,
  HEALTH_PROBE_KEY,
  type HighWater,
  KEY_WIDTH,
  type LinkCount,
  type LinkTotals,
  type Row,
  type Snapshot,
  TABLES,
  type Table,
  type Target,
} from './tables.ts';

/** Rows per INSERT statement: well under SQLite's 32,766 parameters, with 10 columns. */
const ROWS_PER_STATEMENT = 200;
/** Link counts handed over at a time by linkCounts(). */
const COUNTS_CHUNK = 5000;
/** Tables whose ids come from sqlite_sequence (AUTOINCREMENT); the others take max(id) + 1. */
const SEQUENCED = [
  'users',
  'domains',
  'links',
  'api_keys',
  'webhooks',
  'webhook_deliveries',
  'reports',
] as const;

/** The highest id each numbered table has handed out, as one row. */
const HIGH_WATER = `SELECT
  ${SEQUENCED.map(
    (table) => `max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '${table}'), 0),
                   coalesce((SELECT max(id) FROM ${table}), 0)) AS ${table}`,
  ).join(',\n  ')},
  max(coalesce((SELECT max(id) FROM clicks), 0), coalesce((SELECT max(id) FROM click_records), 0),
      coalesce((SELECT max(through) FROM click_rollup), 0)) AS clicks,
  coalesce((SELECT max(id) FROM click_strings), 0) AS click_strings,
  coalesce((SELECT max(id) FROM click_agents), 0) AS click_agents`;

/**
 * A link's clicks, as on either engine: its humans and bots day counts, plus its clicks
 * still in the log; beside them the count the store shows (the counts file and the
 * log's tail). The log has no index on link_id: it is grouped once, not read per link.
 */
const LINK_COUNTS = `${CLICKS_OF_LINKS},
  days AS (SELECT link_id, sum(clicks) AS n FROM click_days WHERE dimension IN (0, 1) GROUP BY link_id),
  log AS (SELECT link_id, count(*) AS n FROM clicks GROUP BY link_id)
  SELECT l.id, coalesce(d.n, 0) + coalesce(g.n, 0) AS kept, ${CLICKS_COLUMN}
  FROM links l ${CLICKS_JOINS}
  LEFT JOIN days d ON d.link_id = l.id LEFT JOIN log g ON g.link_id = l.id
  ORDER BY l.id`;

/**
 * The analytics rollup's mark on a copy: every copied click record counts as moved out
 * of the log, unless the log holds a lower id (PostgreSQL hands out ids before commit,
 * so its log may): a click at or below the mark would be read as moved, and lost.
 */
const ROLLED_UP_THROUGH = `SELECT min(coalesce((SELECT max(id) FROM click_records), 0),
  coalesce((SELECT min(id) - 1 FROM clicks), 9223372036854775807)) AS through`;

/** `SELECT … FROM table` in key order, from the start or after a key. */
function rowsQuery(table: Table, from: 'start' | 'after'): string {
  const key = COLUMNS[table].slice(0, KEY_WIDTH[table]).join(', ');
  const after =
    from === 'start' ? '' : `WHERE (${key}) > (${Array(KEY_WIDTH[table]).fill('?').join(', ')})`;
  return `SELECT ${COLUMNS[table].join(', ')} FROM ${table} ${after} ORDER BY ${key} LIMIT ?`;
}

/**
 * bun:sqlite works synchronously; its work is run on the next microtask instead of at
 * the call, so that a copy which asks for a write here and a read on PostgreSQL (or
 * the reverse) has the PostgreSQL query sent first and the two overlap.
 */
function later<A extends unknown[], T>(work: (...args: A) => T): (...args: A) => Promise<T> {
  return async (...args) => {
    await null;
    return work(...args);
  };
}

export class SqliteSide implements CopySide {
  readonly label: string;
  readonly target: Target;
  private readonly db: Database;
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly store: SqliteStore) {
    this.db = store.sqlite;
    this.label = `SQLite ${describeDatabase(this.db.filename)}`;
    this.target = {
      resetDerived: later(() => this.resetDerived()),
      insert: later((table, rows) => this.insert(table, rows)),
      countClicks: later(() => this.countClicks()),
      insertSettings: later((settings) => this.insertSettings(settings)),
      moveSequences: later((highWater) => this.moveSequences(highWater)),
    };
  }

  /** Statements are prepared once and finalized on close, so the store can close its files. */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async withSnapshot<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    this.db.run('BEGIN');
    try {
      // The first read fixes the snapshot of the main file, which holds every table
      // copied and compared (a kurz may be writing meanwhile). The counts file gives the
      // count the store shows, compared only on a target, which nothing else writes.
      this.statement('SELECT count(*) AS n FROM settings').get();
      return await work(this.snapshot());
    } finally {
      this.db.run('ROLLBACK');
    }
  }

  private snapshot(): Snapshot {
    const side = this;
    return {
      contents: later(
        () =>
          this.statement(`SELECT ${TABLES.map((table) => `(SELECT count(*) FROM ${table}) AS ${table}`).join(', ')},
                (SELECT count(*) FROM settings WHERE key <> '${HEALTH_PROBE_KEY}') AS settings`).get() as Contents,
      ),
      rows: later((table: Table, after: Row | undefined, limit: number) =>
        after === undefined
          ? (this.statement(rowsQuery(table, 'start')).values(limit) as Row[])
          : (this.statement(rowsQuery(table, 'after')).values(
              ...(after as SQLQueryBindings[]),
              limit,
            ) as Row[]),
      ),
      settings: async () =>
        this.statement('SELECT key, value FROM settings WHERE key <> ? ORDER BY key').values(
          HEALTH_PROBE_KEY,
        ) as [string, string][],
      // The highest click id may be in the records, or gone with its link (the mark).
      highWater: async () => this.statement(HIGH_WATER).get() as HighWater,
      // One statement, walked a chunk at a time: the log is grouped once, not per chunk.
      async *linkCounts() {
        const query = side.statement(LINK_COUNTS) as Statement<{
          id: number;
          kept: number;
          clicks: number;
        }>;
        let chunk: LinkCount[] = [];
        for (const row of query.iterate()) {
          chunk.push([row.id, row.kept, row.clicks]);
          if (chunk.length === COUNTS_CHUNK) {
            yield chunk;
            chunk = [];
          }
        }
        if (chunk.length > 0) yield chunk;
      },
      linkTotals: async () => {
        const rows = this.statement(
          'SELECT owner, links FROM link_totals WHERE links <> 0',
        ).values() as [number, number][];
        return new Map(rows) as LinkTotals;
      },
      domainTotals: async () => {
        const rows = this.statement(
          'SELECT domain_id, count(*) FROM links GROUP BY domain_id',
        ).values() as [number, number][];
        return new Map(rows);
      },
    };
  }

  private resetDerived(): void {
    this.db.transaction(() => {
      this.statement('DELETE FROM link_totals').run();
      this.statement('DELETE FROM counts.link_clicks').run();
      this.statement('DELETE FROM pending_values').run();
      this.statement('DELETE FROM tag_days').run();
      this.statement('DELETE FROM counts.rollup').run();
      this.statement('DELETE FROM click_rollup').run();
    })();
  }

  /**
   * Marks the copied records as moved out of the log (`through`), and makes the counts
   * file hold exactly the clicks up to that mark: the day counts, as reconcileCounts
   * seeds it (the log holds no click at or below the mark). Reads add the whole log
   * beyond it, so each link shows its day counts plus its clicks in the log, and the
   * rollup of a kurz started on the copy folds the log from there. Without records,
   * no mark: the log is read whole, as in a new database. The log's counts for stats
   * (pending_values) are grouped from the copied log, the tags' sums (tag_days) from the
   * copied day counts.
   */
  private countClicks(): void {
    this.db.transaction(() => {
      const { through } = this.statement(ROLLED_UP_THROUGH).get() as { through: number };
      this.statement(`INSERT INTO counts.link_clicks (link_id, clicks)
        SELECT link_id, sum(clicks) FROM main.click_days WHERE dimension IN (0, 1)
        GROUP BY link_id`).run();
      this.statement(COUNT_THE_LOG).run();
      this.statement(SUM_TAG_DAYS).run();
      if (through > 0) {
        this.statement('INSERT INTO click_rollup (id, through) VALUES (1, ?)').run(through);
        this.statement('INSERT INTO counts.rollup (id, through) VALUES (1, ?)').run(through);
      }
    })();
  }

  private insert(table: Table, rows: readonly Row[]): void {
    const columns = COLUMNS[table];
    const row = `(${columns.map(() => '?').join(', ')})`;
    const insert = (n: number) =>
      this.statement(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(n).fill(row).join(', ')}`,
      );
    this.db.transaction(() => {
      let i = 0;
      for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
        insert(ROWS_PER_STATEMENT).run(
          ...(rows.slice(i, i + ROWS_PER_STATEMENT).flat() as SQLQueryBindings[]),
        );
      }
      for (; i < rows.length; i++) insert(1).run(...(rows[i] as Row as SQLQueryBindings[]));
    })();
  }

  private insertSettings(settings: readonly [string, string][]): void {
    const insert = this.statement('INSERT INTO settings (key, value) VALUES (?, ?)');
    this.db.transaction(() => {
      for (const [key, value] of settings) insert.run(key, value);
    })();
  }

  /**
   * Copying explicit ids already moves sqlite_sequence up to them; ids handed out by the
   * source and deleted since are above that, and must not be given again (a token names
   * its user by id). Clicks, click strings and agents have no sequence: SQLite takes the
   * highest id plus one.
   */
  private moveSequences(highWater: HighWater): void {
    const update = this.statement('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?');
    const insert = this.statement('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
    this.db.transaction(() => {
      for (const table of SEQUENCED) {
        if (update.run(highWater[table], table).changes === 0 && highWater[table] > 0) {
          insert.run(table, highWater[table]);
        }
      }
    })();
  }

  async close(): Promise<void> {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
    await this.store.close();
  }
}
