// The analytics side of the PostgreSQL store. The click log (`clicks`) is a queue: each
// instance's rollup takes a chunk of it (SKIP LOCKED, so instances share the work and
// never take the same clicks), and in the same transaction deletes it, writes compact
// click records, adds to the day rollups (and to their tags' sums, tags.ts) and takes
// the chunk's counts out of pending_values. A crash rolls all of it back: no click is lost or counted twice.
// Counts (link_clicks) are kept at click time and not touched; the list's order by
// clicks (link_click_order) is set from them for the links whose clicks moved.

import type { SQL } from 'bun';
import { DayTally } from '../../analytics/fold.ts';
import { describeAgent } from '../../analytics/user-agents.ts';
import type { ClickRow, DayCount } from '../../domain/clicks.ts';
import { InternedIds } from '../interned-ids.ts';
import type { LinkTraffic } from '../store.ts';
import { pendingRow, READ_PENDING, takePending } from './pending-values.ts';
import { addTagDays, shareTagDays } from './tags.ts';

const RAW_COLUMNS = `id::float8 AS id, link_id AS "linkId", created_at::float8 AS "createdAt",
  source, query_source AS "querySource", referrer, user_agent AS "userAgent", country, route`;

/**
 * Takes, deletes and returns up to $1 clicks of the log, oldest first, skipping any
 * another instance holds, each with the shard of pending_values its batch counted it in.
 */
const TAKE_CLICKS = `
  DELETE FROM clicks WHERE id IN (
    SELECT id FROM clicks ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  RETURNING ${RAW_COLUMNS}, shard`;

/** Grouped rows fetched at a time: a flood of distinct values is never held at once. */
const PENDING_CHUNK = 2000;

export class PostgresAnalytics {
  private readonly strings = new InternedIds();
  private readonly agents = new InternedIds();

  /**
   * Moves up to `limit` clicks in one transaction; returns how many it took (fewer than
   * `limit`: the log had no more that no other instance held).
   */
  async step(client: SQL, limit: number): Promise<number> {
    const fresh = { strings: new Map<string, number>(), agents: new Map<string, number>() };
    const taken = await client.begin(async (tx) => {
      await shareTagDays(tx);
      const rows: (ClickRow & { shard: number })[] = await tx.unsafe(TAKE_CLICKS, [limit]);
      if (rows.length === 0) return 0;
      await this.record(tx, rows, fresh);
      // Every click leaving the log leaves its counts, a deleted link's too. Last, so the
      // rows click batches add to are locked by this transaction only until its commit.
      await takePending(tx, rows);
      return rows.length;
    });
    this.strings.remember(fresh.strings);
    this.agents.remember(fresh.agents);
    return taken;
  }

  /** Writes the records and day counts of clicks taken out of the log, in `tx`. */
  private async record(
    tx: SQL,
    rows: readonly ClickRow[],
    fresh: { strings: Map<string, number>; agents: Map<string, number> },
  ): Promise<void> {
    // Clicks committed just after their link was deleted are dropped here.
    const linkIds = [...new Set(rows.map((row) => row.linkId))];
    const live: { id: number }[] = await tx`SELECT id FROM links WHERE id = ANY(${linkIds}::int[])`;
    const alive = new Set(live.map((row) => row.id));
    const kept = rows.filter((row) => alive.has(row.linkId));
    if (kept.length === 0) return;
    const tally = new DayTally();
    for (const row of kept) tally.add(row);
    const strings = new Set(tally.values());
    for (const row of kept) {
      for (const value of [row.source, row.querySource, row.referrer]) {
        if (value !== null) strings.add(value);
      }
    }
    await this.intern(tx, strings, fresh.strings);
    await this.internAgents(
      tx,
      new Set(kept.map((row) => row.userAgent).filter((ua): ua is string => ua !== null)),
      fresh.agents,
    );
    const id = (value: string | null, cache: InternedIds, extra: Map<string, number>) =>
      value === null ? null : (cache.get(value) ?? extra.get(value) ?? null);
    await tx`
        INSERT INTO click_records (id, link_id, created_at, source, query_source, referrer, agent,
                                   country, route)
        SELECT * FROM unnest(${kept.map((r) => r.id)}::bigint[], ${kept.map((r) => r.linkId)}::int[],
                             ${kept.map((r) => r.createdAt)}::bigint[],
                             ${kept.map((r) => id(r.source, this.strings, fresh.strings))}::int[],
                             ${kept.map((r) => id(r.querySource, this.strings, fresh.strings))}::int[],
                             ${kept.map((r) => id(r.referrer, this.strings, fresh.strings))}::int[],
                             ${kept.map((r) => id(r.userAgent, this.agents, fresh.agents))}::int[],
                             ${kept.map((r) => r.country)}::text[],
                             ${kept.map((r) => r.route ?? null)}::text[])`;
    const days = tally.rows();
    const values = days.map((d) =>
      d.value === '' ? 0 : (id(d.value, this.strings, fresh.strings) as number),
    );
    // In key order, so two instances adding to the same rows cannot deadlock.
    await tx`
        INSERT INTO click_days (link_id, day, dimension, value, clicks)
        SELECT * FROM unnest(${days.map((d) => d.linkId)}::int[], ${days.map((d) => d.day)}::int[],
                             ${days.map((d) => d.dimension)}::smallint[], ${values}::int[],
                             ${days.map((d) => d.clicks)}::bigint[])
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (link_id, day, dimension, value)
        DO UPDATE SET clicks = click_days.clicks + excluded.clicks`;
    await addTagDays(tx, days, values);
    // The list's order by clicks takes each moved link's count as it is now (a link
    // deleted meanwhile may leave a row, which no list joins). In link order, as above.
    const moved = [...new Set(kept.map((row) => row.linkId))].sort((a, b) => a - b);
    await tx`
        INSERT INTO link_click_order (link_id, clicks)
        SELECT link_id, sum(clicks) FROM link_clicks WHERE link_id = ANY(${moved}::int[])
        GROUP BY link_id ORDER BY link_id
        ON CONFLICT (link_id) DO UPDATE SET clicks = excluded.clicks`;
  }

  /** Day counts of the range and the link's clicks still in the log, from one snapshot. */
  traffic(client: SQL, linkId: number, fromDay: number, toDay: number): Promise<LinkTraffic> {
    return client.begin('isolation level repeatable read read only', async (tx) => {
      const days: DayCount[] = await tx`
        SELECT d.link_id AS "linkId", d.day, d.dimension, coalesce(s.value, '') AS value,
               d.clicks::float8 AS clicks
        FROM click_days d LEFT JOIN click_strings s ON s.id = d.value
        WHERE d.link_id = ${linkId} AND d.day BETWEEN ${fromDay} AND ${toDay}`;
      // The log's clicks as pending_values counts them: each distinct value is classified once.
      const pending = new DayTally();
      await tx.unsafe(`DECLARE pending NO SCROLL CURSOR FOR ${READ_PENDING}`, [
        linkId,
        fromDay,
        toDay,
      ]);
      for (;;) {
        const chunk: Parameters<typeof pendingRow>[0][] = await tx.unsafe(
          `FETCH ${PENDING_CHUNK} FROM pending`,
        );
        for (const row of chunk) pending.addValue(linkId, pendingRow(row));
        if (chunk.length < PENDING_CHUNK) break;
      }
      return { days, pending: pending.rows() };
    });
  }

  /**
   * Records and clicks still in the log with ids after `afterId`, in id order. Ids are
   * handed out before commit, so a click may reach the log after clicks with higher
   * ids were moved: both are read together, in one order, from one snapshot.
   */
  async rows(client: SQL, linkId: number, afterId: number, limit: number): Promise<ClickRow[]> {
    return client`
      SELECT * FROM (
        SELECT r.id::float8 AS id, r.link_id AS "linkId", r.created_at::float8 AS "createdAt",
               s.value AS source, q.value AS "querySource", f.value AS referrer,
               a.value AS "userAgent", r.country, r.route
        FROM click_records r
        LEFT JOIN click_strings s ON s.id = r.source
        LEFT JOIN click_strings q ON q.id = r.query_source
        LEFT JOIN click_strings f ON f.id = r.referrer
        LEFT JOIN click_agents a ON a.id = r.agent
        WHERE r.link_id = ${linkId} AND r.id > ${afterId}
        UNION ALL
        SELECT id::float8, link_id, created_at::float8, source, query_source, referrer,
               user_agent, country, route
        FROM clicks WHERE link_id = ${linkId} AND id > ${afterId}
      ) rows ORDER BY id LIMIT ${limit}`;
  }

  /** Removes up to `limit` records made before `before`; the BRIN index finds them. */
  async prune(client: SQL, before: number, limit: number): Promise<number> {
    const result = await client`
      DELETE FROM click_records WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM click_records WHERE created_at < ${before} LIMIT ${limit}))`;
    return result.count;
  }

  private async intern(tx: SQL, values: Set<string>, fresh: Map<string, number>): Promise<void> {
    const missing = [...values].filter((value) => !this.strings.has(value)).sort();
    if (missing.length === 0) return;
    await tx`
      INSERT INTO click_strings (value) SELECT unnest(${missing}::text[]) ORDER BY 1
      ON CONFLICT (value) DO NOTHING`;
    const rows: { id: number; value: string }[] =
      await tx`SELECT id, value FROM click_strings WHERE value = ANY(${missing}::text[])`;
    for (const row of rows) fresh.set(row.value, row.id);
  }

  private async internAgents(tx: SQL, values: Set<string>, fresh: Map<string, number>) {
    const missing = [...values].filter((value) => !this.agents.has(value)).sort();
    if (missing.length === 0) return;
    const info = missing.map(describeAgent);
    await tx`
      INSERT INTO click_agents (value, browser, os, device, bot)
      SELECT * FROM unnest(${missing}::text[], ${info.map((a) => a.browser)}::text[],
                           ${info.map((a) => a.os)}::text[], ${info.map((a) => a.device)}::text[],
                           ${info.map((a) => a.bot)}::boolean[])
      ORDER BY 1
      ON CONFLICT (value) DO NOTHING`;
    const rows: { id: number; value: string }[] =
      await tx`SELECT id, value FROM click_agents WHERE value = ANY(${missing}::text[])`;
    for (const row of rows) fresh.set(row.value, row.id);
  }
}
