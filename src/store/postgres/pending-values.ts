// pending_values on PostgreSQL: the counts of the clicks still in the log, by link, day,
// log column, raw value and shard (see schema.ts). The click batch's statement adds to
// them (click-log.ts), the rollup takes away from them (analytics.ts), and stats read
// them, shards summed, instead of the log.

import type { SQL } from 'bun';
import { LOG_COLUMNS, type LogColumn, PendingTally, type ValueCount } from '../../domain/clicks.ts';

const CODES = new Map<LogColumn, number>(LOG_COLUMNS.map((column, code) => [column, code]));

const KEY = 'link_id, day, log_column, has_value, value, shard';

/**
 * Adds a batch's counts, from arrays starting at parameter `$first` (see pendingParams),
 * to the shard `$shard`: a CTE of the click batch's statement. Rows are locked in key
 * order, as link_clicks' are, so two batches can never deadlock on them.
 */
export function addPending(first: number, shard: number): string {
  const p = (i: number) => `$${first + i}`;
  return `pending AS (
    INSERT INTO pending_values (${KEY}, clicks)
    SELECT l, d, c, h, v, $${shard}::smallint, n
    FROM unnest(${p(0)}::int[], ${p(1)}::int[], ${p(2)}::smallint[], ${p(3)}::boolean[],
                ${p(4)}::text[], ${p(5)}::bigint[]) AS t(l, d, c, h, v, n)
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (${KEY}) DO UPDATE SET clicks = pending_values.clicks + excluded.clicks
  )`;
}

/** The counts of clicks as six parameter arrays, one element per distinct key. */
export function pendingParams(clicks: Iterable<Parameters<PendingTally['add']>[0]>): unknown[] {
  const tally = new PendingTally();
  for (const click of clicks) tally.add(click);
  const rows = tally.rows();
  return [
    rows.map((r) => r.linkId),
    rows.map((r) => r.day),
    rows.map((r) => CODES.get(r.column) as number),
    rows.map((r) => r.value !== null),
    rows.map((r) => r.value ?? ''),
    rows.map((r) => r.clicks),
  ];
}

/**
 * Takes away (negated counts in) the counts of clicks leaving the log, each from the
 * shard its batch added it to, in key order; returns the keys left at zero or below (a
 * deleted link's counts are gone already: its late clicks leave a negative row).
 */
const TAKE = `
  WITH taken AS (
    INSERT INTO pending_values (${KEY}, clicks)
    SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[], $4::boolean[], $5::text[],
                         $6::smallint[], $7::bigint[])
    ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (${KEY}) DO UPDATE SET clicks = pending_values.clicks + excluded.clicks
    RETURNING ${KEY}, clicks)
  SELECT ${KEY} FROM taken WHERE clicks <= 0`;

/** Removes rows the transaction left at zero (it holds their locks: no batch added since). */
const REMOVE_EMPTY = `
  DELETE FROM pending_values
  WHERE (${KEY}) IN (SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[],
                                          $4::boolean[], $5::text[], $6::smallint[]))
    AND clicks <= 0`;

type Leaving = Parameters<PendingTally['add']>[0] & { shard: number };

/** Takes the counts of `clicks`, leaving the log, out of pending_values, in `tx`. */
export async function takePending(tx: SQL, clicks: readonly Leaving[]): Promise<void> {
  const shards = new Map<number, PendingTally>();
  for (const click of clicks) {
    let tally = shards.get(click.shard);
    if (tally === undefined) {
      tally = new PendingTally();
      shards.set(click.shard, tally);
    }
    tally.add(click);
  }
  const key = { links: [] as number[], days: [] as number[], codes: [] as number[] };
  const more = { has: [] as boolean[], values: [] as string[], shards: [] as number[] };
  const taken: number[] = [];
  for (const [shard, tally] of shards) {
    for (const row of tally.rows()) {
      key.links.push(row.linkId);
      key.days.push(row.day);
      key.codes.push(CODES.get(row.column) as number);
      more.has.push(row.value !== null);
      more.values.push(row.value ?? '');
      more.shards.push(shard);
      taken.push(-row.clicks);
    }
  }
  const empty: Record<string, unknown>[] = await tx.unsafe(TAKE, [
    key.links,
    key.days,
    key.codes,
    more.has,
    more.values,
    more.shards,
    taken,
  ]);
  if (empty.length === 0) return;
  await tx.unsafe(REMOVE_EMPTY, [
    empty.map((r) => r.link_id),
    empty.map((r) => r.day),
    empty.map((r) => r.log_column),
    empty.map((r) => r.has_value),
    empty.map((r) => r.value),
    empty.map((r) => r.shard),
  ]);
}

/** A link's counts over [$2, $3], shards summed, as stats fold them. */
export const READ_PENDING = `
  SELECT day, log_column AS code, CASE WHEN has_value THEN value END AS value,
         sum(clicks)::float8 AS clicks
  FROM pending_values WHERE link_id = $1 AND day BETWEEN $2 AND $3
  GROUP BY day, log_column, has_value, value`;

/** A row of READ_PENDING as the fold takes it. */
export function pendingRow(row: {
  day: number;
  code: number;
  value: string | null;
  clicks: number;
}): ValueCount {
  return {
    day: row.day,
    column: LOG_COLUMNS[row.code] as LogColumn,
    value: row.value,
    clicks: row.clicks,
  };
}

/**
 * Counts of the whole log, grouped in SQL, in shard 0 (where the log's clicks were put):
 * what the 0005 migration filled the table with, for a database whose log was written
 * without them (`kurz copy`, benchmarks).
 */
export const COUNT_THE_LOG = `INSERT INTO pending_values (${KEY}, clicks)
  ${LOG_COLUMNS.map((column, code) => {
    const name = column.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const where =
      column === 'source' || column === 'querySource' ? `WHERE ${name} IS NOT NULL` : '';
    return `SELECT link_id, (created_at / 86400000)::int, ${code}, ${name} IS NOT NULL,
              coalesce(${name}, ''), 0, count(*) FROM clicks ${where} GROUP BY 1, 2, 5, 4`;
  }).join(' UNION ALL ')}`;
