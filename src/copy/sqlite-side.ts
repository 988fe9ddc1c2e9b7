// `kurz copy` on a SQLite database: its snapshot is one read transaction, its writes
// multi-row INSERTs, one transaction per chunk. Click counts need no writing here: the
// copied click log is the truth, and reads add whatever the rollup has not folded yet.

import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite';
import { describeDatabase } from '../store/database-url.ts';
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from '../store/sqlite/click-counts.ts';
import type { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import {
  COLUMNS,
  type Contents,
  type CopySide,
  HEALTH_PROBE_KEY,
  type HighWater,
  type LinkCount,
  type LinkTotals,
  type Row,
  type Snapshot,
  type Table,
  type Target,
} from './tables.ts';

/** Rows per INSERT statement: well under SQLite's 32,766 parameters, with 7 columns. */
const ROWS_PER_STATEMENT = 200;
/** Link counts handed over at a time by linkCounts(). */
const COUNTS_CHUNK = 5000;
/** Tables whose ids come from sqlite_sequence (AUTOINCREMENT); clicks take max(id) + 1. */
const SEQUENCED: readonly Table[] = ['users', 'links'];

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
      // Nothing to write: reads add the clicks the rollup has not folded yet, so counts
      // are right at once, and the maintenance thread folds them in the background.
      countClicks: async () => {},
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
      // The counts file is read first, so its snapshot is no newer than the log's: the
      // rolled-up counts then never include a click the log snapshot lacks, and the
      // log's tail beyond the rollup holds the rest (a kurz may be writing meanwhile).
      this.statement('SELECT count(*) AS n FROM counts.rollup').get();
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
          this.statement(`SELECT (SELECT count(*) FROM users) AS users,
                (SELECT count(*) FROM links) AS links,
                (SELECT count(*) FROM clicks) AS clicks,
                (SELECT count(*) FROM settings WHERE key <> '${HEALTH_PROBE_KEY}') AS settings`).get() as Contents,
      ),
      rows: later(
        (table: Table, after: number, limit: number) =>
          this.statement(
            `SELECT ${COLUMNS[table].join(', ')} FROM ${table} WHERE id > ? ORDER BY id LIMIT ?`,
          ).values(after, limit) as Row[],
      ),
      settings: async () =>
        this.statement('SELECT key, value FROM settings WHERE key <> ? ORDER BY key').values(
          HEALTH_PROBE_KEY,
        ) as [string, string][],
      highWater: async () => {
        const high = (table: Table) =>
          SEQUENCED.includes(table)
            ? `max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '${table}'), 0),
                   coalesce((SELECT max(id) FROM ${table}), 0))`
            : `coalesce((SELECT max(id) FROM ${table}), 0)`;
        return this.statement(
          `SELECT ${high('users')} AS users, ${high('links')} AS links, ${high('clicks')} AS clicks`,
        ).get() as HighWater;
      },
      // One statement, walked a chunk at a time: the log's tail is grouped once, not per chunk.
      async *linkCounts() {
        const query = side.statement(
          `${CLICKS_OF_LINKS} SELECT l.id, ${CLICKS_COLUMN} FROM links l ${CLICKS_JOINS} ORDER BY l.id`,
        ) as Statement<{ id: number; clicks: number }>;
        let chunk: LinkCount[] = [];
        for (const row of query.iterate()) {
          chunk.push([row.id, row.clicks]);
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
    };
  }

  private resetDerived(): void {
    this.db.transaction(() => {
      this.statement('DELETE FROM link_totals').run();
      this.statement('DELETE FROM counts.link_clicks').run();
      this.statement('DELETE FROM counts.rollup').run();
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
   * its user by id). Clicks have no sequence: SQLite takes the highest id plus one.
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
