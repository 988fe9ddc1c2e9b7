// pending_values on SQLite: the counts of the clicks still in the log, by link, day, log
// column and raw value (see schema.ts). Click batches add to them and the rollup takes
// away from them, each in its own transaction; stats read them instead of the log.

import type { Database, Statement } from 'bun:sqlite';
import {
  LOG_COLUMNS,
  type LogColumn,
  type PendingCount,
  type ValueCount,
} from '../../domain/clicks.ts';

const CODES = new Map<LogColumn, number>(LOG_COLUMNS.map((column, code) => [column, code]));

/** Keys per multi-row upsert, as click rows go in (see click-log.ts). */
const CHUNK = 16;
const COLUMNS = '(link_id, day, log_column, has_value, value, clicks)';
const ROW = '(?, ?, ?, ?, ?, ?)';
const FIELDS = 6;
const UPSERT = `ON CONFLICT (link_id, day, log_column, has_value, value)
  DO UPDATE SET clicks = clicks + excluded.clicks`;
const KEY = 'link_id = ? AND day = ? AND log_column = ? AND has_value = ? AND value = ?';

/**
 * Counts of the whole log, grouped in SQL: what the 0005 migration filled the table
 * with, for a database whose log was written without them (`kurz copy`, benchmarks).
 */
export const COUNT_THE_LOG = `INSERT INTO pending_values ${COLUMNS}
  ${LOG_COLUMNS.map((column, code) => {
    const name = column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const where =
      column === 'source' || column === 'querySource' ? `WHERE ${name} IS NOT NULL` : '';
    return `SELECT link_id, CAST(created_at / 86400000 AS INTEGER), ${code}, ${name} IS NOT NULL,
              coalesce(${name}, ''), count(*) FROM clicks ${where} GROUP BY 1, 2, 5, 4`;
  }).join(' UNION ALL ')}`;

export class SqlitePendingValues {
  private readonly statements: Statement[] = [];
  private readonly addOne;
  private readonly addChunk;
  private readonly takeOne;
  private readonly removeEmpty;
  private readonly read;
  private readonly values: (string | number)[] = new Array(CHUNK * FIELDS);

  constructor(sqlite: Database) {
    const prepare = <R, P extends import('bun:sqlite').SQLQueryBindings[]>(text: string) => {
      const statement = sqlite.prepare<R, P>(text);
      this.statements.push(statement as unknown as Statement);
      return statement;
    };
    this.addOne = prepare<unknown, [number, number, number, number, string, number]>(
      `INSERT INTO pending_values ${COLUMNS} VALUES ${ROW} ${UPSERT}`,
    );
    this.addChunk = prepare<unknown, (string | number)[]>(
      `INSERT INTO pending_values ${COLUMNS} VALUES ${Array(CHUNK).fill(ROW).join(', ')} ${UPSERT}`,
    );
    this.takeOne = prepare<{ clicks: number }, [number, number, number, number, number, string]>(
      `UPDATE pending_values SET clicks = clicks - ? WHERE ${KEY} RETURNING clicks`,
    );
    this.removeEmpty = prepare<unknown, [number, number, number, number, string]>(
      `DELETE FROM pending_values WHERE ${KEY}`,
    );
    this.read = prepare<
      { day: number; code: number; value: string | null; clicks: number },
      [number, number, number]
    >(
      `SELECT day, log_column AS code, CASE WHEN has_value THEN value END AS value, clicks
       FROM pending_values WHERE link_id = ? AND day BETWEEN ? AND ?`,
    );
  }

  /** Adds counts (in the caller's transaction). */
  add(rows: readonly PendingCount[]): void {
    const values = this.values;
    let i = 0;
    for (; i + CHUNK <= rows.length; i += CHUNK) {
      for (let j = 0; j < CHUNK; j++) {
        const row = rows[i + j] as PendingCount;
        const o = j * FIELDS;
        values[o] = row.linkId;
        values[o + 1] = row.day;
        values[o + 2] = CODES.get(row.column) as number;
        values[o + 3] = row.value === null ? 0 : 1;
        values[o + 4] = row.value ?? '';
        values[o + 5] = row.clicks;
      }
      this.addChunk.run(...values);
    }
    for (; i < rows.length; i++) {
      const row = rows[i] as PendingCount;
      const code = CODES.get(row.column) as number;
      this.addOne.run(
        row.linkId,
        row.day,
        code,
        row.value === null ? 0 : 1,
        row.value ?? '',
        row.clicks,
      );
    }
  }

  /**
   * Takes away the counts of clicks leaving the log (in the caller's transaction), and
   * the rows left at zero. A key already gone (its link deleted) is skipped.
   */
  take(rows: readonly PendingCount[]): void {
    for (const row of rows) {
      const code = CODES.get(row.column) as number;
      const has = row.value === null ? 0 : 1;
      const value = row.value ?? '';
      const left = this.takeOne.get(row.clicks, row.linkId, row.day, code, has, value);
      if (left !== null && left.clicks <= 0)
        this.removeEmpty.run(row.linkId, row.day, code, has, value);
    }
  }

  /** Calls `each` with every count of a link in [fromDay, toDay]. */
  forEach(linkId: number, fromDay: number, toDay: number, each: (row: ValueCount) => void): void {
    for (const row of this.read.iterate(linkId, fromDay, toDay)) {
      each({
        day: row.day,
        column: LOG_COLUMNS[row.code] as LogColumn,
        value: row.value,
        clicks: row.clicks,
      });
    }
  }

  finalize(): void {
    for (const statement of this.statements) statement.finalize();
  }
}
