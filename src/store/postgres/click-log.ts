// The click log on PostgreSQL: the redirects' batches, each one statement (records,
// sharded counts and outbox messages), or one transaction when links with max_clicks
// are clicked; clicks `kurz import` appends (the same statement: the sequence and the
// shards serve any writer); and the steps the click pipeline (clicks/pipeline.ts) takes.

import type { SQL } from 'bun';
import type { ClickSteps } from '../../clicks/pipeline.ts';
import { shareLimits } from '../click-limits.ts';
import type { Click, RefusedClicks } from '../store.ts';
import type { PostgresAnalytics } from './analytics.ts';
import { addPending, pendingParams } from './pending-values.ts';
import { CLICKS_OUTBOX } from './webhooks.ts';

/** Shards of each link's click count (see link_clicks in schema.ts). */
const COUNT_SHARDS = 16;

/**
 * The click batch's one statement: the records go in as arrays (unnest), the counts,
 * summed per link by the caller, are added to one shard each, as are the counts of
 * pending_values, summed per key by the caller, and the webhooks that want clicks get
 * their messages (CLICKS_OUTBOX). A constant text run with `unsafe`, so
 * the client prepares it once and does no template work per batch.
 */
const RECORD_CLICKS = `
  WITH added AS (
    INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at, country,
                        route, shard)
    SELECT *, $8::smallint FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[],
                                       $6::bigint[], $7::text[], $18::text[])
  ), ${addPending(12, 8)}, ${CLICKS_OUTBOX}
  INSERT INTO link_clicks (link_id, shard, clicks)
  SELECT link, $8::smallint, n FROM unnest($9::int[], $10::bigint[]) AS t(link, n)
  ORDER BY link
  ON CONFLICT (link_id, shard) DO UPDATE SET clicks = link_clicks.clicks + excluded.clicks`;

/** The parameters of RECORD_CLICKS for a batch. */
function clickParams(batch: readonly Click[], shard: number): unknown[] {
  const n = batch.length;
  const linkIds = new Array<number>(n);
  const sources = new Array<string | null>(n);
  const querySources = new Array<string | null>(n);
  const referrers = new Array<string | null>(n);
  const userAgents = new Array<string | null>(n);
  const times = new Array<number>(n);
  const countries = new Array<string | null>(n);
  const routes = new Array<string | null>(n);
  const perLink = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const c = batch[i] as Click;
    linkIds[i] = c.linkId;
    sources[i] = c.source;
    querySources[i] = c.querySource;
    referrers[i] = c.referrer;
    userAgents[i] = c.userAgent;
    times[i] = c.createdAt;
    countries[i] = c.country;
    routes[i] = c.route ?? null;
    perLink.set(c.linkId, (perLink.get(c.linkId) ?? 0) + 1);
  }
  // Counters in link order, so that two batches can never deadlock on them.
  const links = [...perLink.keys()].sort((a, b) => a - b);
  const counts = links.map((id) => perLink.get(id) as number);
  const params: unknown[] = [linkIds, sources, querySources, referrers, userAgents, times];
  params.push(countries, shard, links, counts, Date.now(), ...pendingParams(batch));
  // $18, after pending_values' six ($12 to $17).
  params.push(routes);
  return params;
}

/**
 * A batch with clicks of limited links: their rows are locked (in id order, as the
 * counters are, so batches cannot deadlock), each keeps as many clicks as its
 * max_clicks leaves room for, and the rest are refused. The lock makes the limit
 * exact across instances: the next batch reads the room this one left.
 */
async function recordLimited(
  tx: SQL,
  batch: readonly Click[],
  shard: number,
): Promise<RefusedClicks> {
  const ids = [...new Set(batch.filter((c) => c.limited).map((c) => c.linkId))].sort(
    (a, b) => a - b,
  );
  const rows: { id: number; max: number | null; used: number }[] = await tx`
    SELECT id, max_clicks AS max, limited_clicks AS used FROM links
    WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
  // A link gone since it was looked up has no row, and no room: its clicks are refused.
  const room = new Map<number, number>();
  for (const row of rows) room.set(row.id, row.max === null ? Infinity : row.max - row.used);
  const { stored, refused, counted } = shareLimits(batch, (linkId) => room.get(linkId) ?? 0);
  if (counted.size > 0) {
    await tx`
      UPDATE links SET limited_clicks = limited_clicks + v.n
      FROM unnest(${[...counted.keys()]}::int[], ${[...counted.values()]}::int[]) AS v(id, n)
      WHERE links.id = v.id`;
  }
  if (stored.length > 0) await tx.unsafe(RECORD_CLICKS, clickParams(stored, shard));
  return refused;
}

/** Writing clicks; `wrote` is told of each batch (the pipeline's flood rule). */
export class PostgresClicks {
  /** The last shard of click counts taken, starting anywhere. */
  private shard = Math.floor(Math.random() * COUNT_SHARDS);

  constructor(
    private readonly client: SQL,
    private readonly wrote: (clicks: number) => void,
  ) {}

  /**
   * The hot write: the whole batch in one statement, so one round trip and one commit.
   * The records go in as arrays (unnest), and the same statement adds each link's
   * clicks to one shard of its count, chosen at random per batch, so instances
   * committing at once rarely touch the same counter row; rows are locked in link
   * order, so two batches can never deadlock.
   */
  async recordClicks(batch: readonly Click[]): Promise<RefusedClicks> {
    this.wrote(batch.length);
    let limited = false;
    for (let i = 0; i < batch.length; i++) if ((batch[i] as Click).limited) limited = true;
    if (!limited) {
      await this.client.unsafe(RECORD_CLICKS, clickParams(batch, this.nextShard()));
      return undefined;
    }
    return this.client.begin((tx) => recordLimited(tx, batch, this.nextShard()));
  }

  /** The same statement as recordClicks: PostgreSQL's sequence and sharded counts serve any writer. */
  async importClicks(batch: readonly Click[]): Promise<void> {
    if (batch.length === 0) return;
    await this.client.unsafe(RECORD_CLICKS, clickParams(batch, this.nextShard()));
  }

  /** The next shard of click counts; batches in flight at once take different ones. */
  private readonly nextShard = (): number => {
    this.shard = (this.shard + 1) % COUNT_SHARDS;
    return this.shard;
  };
}

/** The log's backlog from its first and last ids (the primary key's ends: no scan). */
const BACKLOG = 'SELECT coalesce(max(id) - min(id) + 1, 0)::float8 AS n FROM clicks';

/** The pipeline's steps on PostgreSQL; instances share the log (SKIP LOCKED, see analytics.ts). */
export function postgresClickSteps(client: SQL, analytics: PostgresAnalytics): ClickSteps {
  return {
    move: (limit) => analytics.step(client, limit),
    async backlog() {
      const [row]: { n: number }[] = await client.unsafe(BACKLOG);
      return row?.n ?? 0;
    },
    prune: (before, limit) => analytics.prune(client, before, limit),
  };
}
