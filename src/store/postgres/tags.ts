// Tags on PostgreSQL: the tag list, a tag's traffic, and tag_days (see the SQLite
// schema), the day counts summed per owner and tag that a tag's stats read, kept exact
// in the transaction of each change of what it sums.
//
// Several instances write at once, so what a sum moves must not change under it. The
// rollup adds a slice to the tags its links carry as it reads them; a change of a
// link's tags (or owner, or its removal) moves the link's rolled-up counts as it reads
// them. If the two overlapped, a slice could be added to a tag the link was just leaving
// and missed by the move. So one advisory lock orders them: each rollup step holds it
// shared from its start (steps run side by side), and each change takes it alone after
// locking the links rows it changes and before reading tags and day counts, so a change
// waits for the steps under way and the next steps wait for it. Taking it after the
// links rows (never before) keeps it out of any cycle with the click batches, which
// lock links rows and never this lock.

import type { SQL } from 'bun';
import { DayTally } from '../../analytics/fold.ts';
import type { DayCount } from '../../domain/clicks.ts';
import type { TagSummary, TagTraffic } from '../tags.ts';
import { pendingRow } from './pending-values.ts';

/** The advisory lock of tag_days ("kztg"); see above. */
const TAG_DAYS_LOCK = 0x6b7a7467;

/** Grouped rows fetched at a time: a flood of distinct values is never held at once. */
const PENDING_CHUNK = 2000;

const UPSERT = `ON CONFLICT (owner, tag, day, dimension, value)
  DO UPDATE SET clicks = tag_days.clicks + excluded.clicks`;

/**
 * tag_days summed from scratch, from the day counts and tags as they stand: what the 0007
 * migration filled it with, for a database whose day counts were written without it
 * (`kurz copy`, benchmarks).
 */
export const SUM_TAG_DAYS = `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
  SELECT coalesce(l.user_id, 0), g.tag, d.day, d.dimension, d.value, sum(d.clicks)
  FROM link_tags g JOIN links l ON l.id = g.link_id JOIN click_days d ON d.link_id = g.link_id
  GROUP BY 1, 2, 3, 4, 5`;

/** Taken by each rollup step, first: changes of tags wait for the steps under way. */
export async function shareTagDays(tx: SQL): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock_shared(${TAG_DAYS_LOCK})`;
}

/** Taken by a change of what tag_days sums, after the links rows it changes are locked. */
async function lockTagDays(tx: SQL): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${TAG_DAYS_LOCK})`;
}

/**
 * Adds a rollup slice's day counts (`values`: their ids in click_strings, 0 for none) to
 * the tags of their links, in the step's transaction, in one statement. Rows are summed
 * per key first (two links of one owner and tag share them) and locked in key order, so
 * two instances' steps cannot deadlock.
 */
export async function addTagDays(
  tx: SQL,
  days: readonly DayCount[],
  values: readonly number[],
): Promise<void> {
  await tx.unsafe(
    `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
     SELECT coalesce(l.user_id, 0), g.tag, d.day, d.dimension, d.value, sum(d.clicks)
     FROM unnest($1::int[], $2::int[], $3::smallint[], $4::int[], $5::bigint[])
       AS d(link_id, day, dimension, value, clicks)
     JOIN link_tags g ON g.link_id = d.link_id JOIN links l ON l.id = d.link_id
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
     ${UPSERT}`,
    [
      days.map((d) => d.linkId),
      days.map((d) => d.day),
      days.map((d) => d.dimension),
      values,
      days.map((d) => d.clicks),
    ],
  );
}

/**
 * Moves a link's rolled-up counts from the tags it has to `after` (none: it is being
 * removed), in the caller's transaction, which has locked the link's row and has not yet
 * changed link_tags. The tags it has are read here, after the lock: a read made while
 * waiting for the row may predate another change of them.
 */
export async function moveLinkTagDays(
  tx: SQL,
  linkId: number,
  owner: number | null,
  after: readonly string[],
): Promise<void> {
  await lockTagDays(tx);
  const rows: { tag: string }[] = await tx`SELECT tag FROM link_tags WHERE link_id = ${linkId}`;
  const before = rows.map((row) => row.tag);
  const lost = before.filter((tag) => !after.includes(tag));
  const gained = after.filter((tag) => !before.includes(tag));
  if (lost.length + gained.length === 0) return;
  const key = owner ?? 0;
  // One statement in key order, so it cannot deadlock with a step adding to the same rows.
  await tx`
    INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
    SELECT ${key}::int, m.tag, d.day, d.dimension, d.value, d.clicks * m.sign
    FROM click_days d
    CROSS JOIN unnest(${[...lost, ...gained]}::text[],
                      ${[...lost.map(() => -1), ...gained.map(() => 1)]}::int[]) AS m(tag, sign)
    WHERE d.link_id = ${linkId}
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (owner, tag, day, dimension, value)
    DO UPDATE SET clicks = tag_days.clicks + excluded.clicks`;
  if (lost.length > 0) {
    await tx`DELETE FROM tag_days WHERE owner = ${key} AND tag = ANY(${lost}::text[]) AND clicks = 0`;
  }
}

/**
 * A user's removal, after their links rows are changed: their sums go with their links,
 * or, when the links are kept for no one, move to owner 0 with them.
 */
export async function removeUserTagDays(tx: SQL, userId: number, kept: boolean): Promise<void> {
  await lockTagDays(tx);
  if (kept) {
    await tx`
      INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
      SELECT 0, tag, day, dimension, value, clicks FROM tag_days WHERE owner = ${userId}
      ORDER BY 2, 3, 4, 5
      ON CONFLICT (owner, tag, day, dimension, value)
      DO UPDATE SET clicks = tag_days.clicks + excluded.clicks`;
  }
  await tx`DELETE FROM tag_days WHERE owner = ${userId}`;
}

/** The links carrying a tag ($1) and their clicks, per owner (0: no one's); $2 the owner. */
const CARRIERS = (where: string) => `
  SELECT coalesce(l.user_id, 0) AS owner, count(*)::float8 AS links,
         coalesce(sum(c.n), 0)::float8 AS clicks
  FROM link_tags g JOIN links l ON l.id = g.link_id
  LEFT JOIN LATERAL (SELECT sum(clicks) AS n FROM link_clicks WHERE link_id = g.link_id) c ON true
  WHERE g.tag = $1 ${where} GROUP BY 1`;

/** Pending counts of the links carrying a tag ($1) over [$2, $3], links summed; $4 the owner. */
const PENDING = (where: string) => `
  SELECT p.day, p.log_column AS code, CASE WHEN p.has_value THEN p.value END AS value,
         sum(p.clicks)::float8 AS clicks
  FROM link_tags g JOIN links l ON l.id = g.link_id
  JOIN pending_values p ON p.link_id = g.link_id AND p.day BETWEEN $2 AND $3
  WHERE g.tag = $1 ${where}
  GROUP BY p.day, p.log_column, p.has_value, p.value`;

/** What the tag routes read. */
export class PostgresTags {
  constructor(private readonly client: SQL) {}

  /** Every tag of the owner's links (null: of every link), in code-unit order (as on SQLite). */
  listTags(owner: number | null): Promise<TagSummary[]> {
    const where = owner === null ? '' : 'WHERE l.user_id = $1';
    return this.client.unsafe(
      `SELECT g.tag, count(*)::float8 AS links, coalesce(sum(c.n), 0)::float8 AS clicks
       FROM link_tags g JOIN links l ON l.id = g.link_id
       LEFT JOIN LATERAL (SELECT sum(clicks) AS n FROM link_clicks WHERE link_id = g.link_id) c
         ON true
       ${where} GROUP BY g.tag ORDER BY g.tag COLLATE "C"`,
      owner === null ? [] : [owner],
    );
  }

  /** A tag's traffic, from one snapshot. */
  tagTraffic(
    tag: string,
    owner: number | null,
    fromDay: number,
    toDay: number,
  ): Promise<TagTraffic | undefined> {
    const mine = owner === null ? '' : 'AND l.user_id = $4';
    return this.client.begin('isolation level repeatable read read only', async (tx) => {
      const owners: { owner: number; links: number; clicks: number }[] = await tx.unsafe(
        owner === null ? CARRIERS('') : CARRIERS('AND l.user_id = $2'),
        owner === null ? [tag] : [tag, owner],
      );
      if (owners.length === 0) return undefined;
      const days: DayCount[] = await tx`
        SELECT 0 AS "linkId", d.day, d.dimension, coalesce(s.value, '') AS value,
               d.clicks::float8 AS clicks
        FROM tag_days d LEFT JOIN click_strings s ON s.id = d.value
        WHERE d.owner = ANY(${owners.map((row) => row.owner)}::int[]) AND d.tag = ${tag}
          AND d.day BETWEEN ${fromDay} AND ${toDay} AND d.clicks <> 0`;
      // The log's clicks as pending_values counts them: each distinct value is classified once.
      const pending = new DayTally();
      await tx.unsafe(
        `DECLARE pending NO SCROLL CURSOR FOR ${PENDING(mine)}`,
        owner === null ? [tag, fromDay, toDay] : [tag, fromDay, toDay, owner],
      );
      for (;;) {
        const chunk: Parameters<typeof pendingRow>[0][] = await tx.unsafe(
          `FETCH ${PENDING_CHUNK} FROM pending`,
        );
        for (const row of chunk) pending.addValue(0, pendingRow(row));
        if (chunk.length < PENDING_CHUNK) break;
      }
      return {
        links: owners.reduce((sum, row) => sum + row.links, 0),
        clicks: owners.reduce((sum, row) => sum + row.clicks, 0),
        days,
        pending: pending.rows(),
      };
    });
  }
}
