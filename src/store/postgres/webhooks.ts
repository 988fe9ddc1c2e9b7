// Webhooks and their outbox on PostgreSQL: registrations, the outbox messages a change
// writes in its own statement or transaction, and the sender's claims. Several instances
// share the database: which webhooks want an event is read in the change's transaction
// (a webhook registered on one instance counts on every other at once), a quota is held
// by an advisory lock, and senders claim messages with FOR UPDATE SKIP LOCKED and a
// lease, so two instances never send one message at the same time.

import type { SQL } from 'bun';
import { type DeliveryType, linkEventRecord, type WebhookEvent } from '../../domain/webhooks.ts';
import { eventsOf, eventsText, MERGE_MESSAGES, mergeClicks, wantedNeedle } from '../outbox.ts';
import {
  type DeliveryOutcome,
  type DeliveryRecord,
  type DueDelivery,
  type LinkDetail,
  type NewWebhook,
  WEBHOOK_LIMIT_REACHED,
  type Webhook,
} from '../store.ts';

/** The advisory lock class of webhook quotas (the second key is the owner, 0 for none). */
const WEBHOOK_QUOTA_LOCK = 0x6b7a7768;

/** The webhooks of the owner `owner` (an SQL expression) that want the event `needle` names. */
const wantingOf = (owner: string, needle: string) =>
  `(w.user_id = ${owner} OR (w.user_id IS NULL AND ${owner} IS NULL))
   AND strpos(',' || w.events || ',', ${needle}) > 0`;

/**
 * The `clicks` messages of a click batch, as a CTE of the batch's statement ($1 to $7:
 * the clicks' columns; $11: now): for each webhook that wants clicks, its owner's clicks
 * of the batch, in batch order, as domain/webhooks.ts's clickEventRecord writes them. With no
 * webhook that wants clicks, the WHERE (a one-time filter) stops it before any click is
 * read; it is spelled so that PostgreSQL answers it from the partial index
 * webhooks_clicks (an EXISTS is planned as a scan of every webhook, which the planner
 * expects to meet one that wants clicks soon).
 */
export const CLICKS_OUTBOX = `outbox AS (
    INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
    SELECT w.id, 'clicks', json_build_object('clicks', json_agg(json_build_object(
             'code', l.short_code,
             'at', to_char(timestamp 'epoch' + c.created_at * interval '1 millisecond',
                           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'referrer', c.referrer, 'country', c.country, 'source', c.source,
             'query_source', c.query_source, 'user_agent', c.user_agent) ORDER BY c.n))::text,
           $11, $11
    FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                $7::text[])
         WITH ORDINALITY AS c(link_id, source, query_source, referrer, user_agent, created_at,
                              country, n)
    JOIN links l ON l.id = c.link_id
    JOIN webhooks w ON ${wantingOf('l.user_id', `'${wantedNeedle('clicks')}'`)}
    WHERE (SELECT 1 FROM webhooks WHERE strpos(',' || events || ',', ',clicks,') > 0
           ORDER BY user_id LIMIT 1) IS NOT NULL
    GROUP BY w.id
  )`;

/** Puts a link event in the outbox of its owner's webhooks that want it, in `tx`. */
export async function reportLinkEvent(
  tx: SQL,
  event: WebhookEvent,
  link: LinkDetail,
  now: number,
): Promise<void> {
  await tx.unsafe(
    `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
     SELECT w.id, $1, $2, $3, $3 FROM webhooks w WHERE ${wantingOf('$4::int', '$5')}`,
    [event, linkEventRecord(link), now, link.userId, wantedNeedle(event)],
  );
}

const WEBHOOK_COLUMNS = `id, user_id AS "userId", url, secret, events,
  created_at::float8 AS "createdAt"`;
const DELIVERY_COLUMNS = `id::float8 AS id, webhook_id AS "webhookId", type,
  created_at::float8 AS "createdAt", attempts, next_attempt_at::float8 AS "nextAttemptAt",
  delivered_at::float8 AS "deliveredAt", last_status AS "lastStatus", last_error AS "lastError"`;

type WebhookRow = Omit<Webhook, 'events'> & { events: string };
const toWebhook = (row: WebhookRow): Webhook => ({ ...row, events: eventsOf(row.events) });

/** Registrations and the sender's side of the outbox; each call one statement or transaction. */
export class PostgresWebhooks {
  constructor(private readonly client: SQL) {}

  createWebhook(hook: NewWebhook, limit: number): Promise<Webhook | typeof WEBHOOK_LIMIT_REACHED> {
    return this.client.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${WEBHOOK_QUOTA_LOCK}, ${hook.userId ?? 0})`;
      const [owned]: { n: number }[] = await tx`
        SELECT count(*)::int AS n FROM webhooks WHERE user_id IS NOT DISTINCT FROM ${hook.userId}::int`;
      if ((owned?.n ?? 0) >= limit) return WEBHOOK_LIMIT_REACHED;
      const [row]: WebhookRow[] = await tx.unsafe(
        `INSERT INTO webhooks (user_id, url, secret, events, created_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${WEBHOOK_COLUMNS}`,
        [hook.userId, hook.url, hook.secret, eventsText(hook.events), hook.createdAt],
      );
      return toWebhook(row as WebhookRow);
    });
  }

  async listWebhooks(owner: number | null): Promise<Webhook[]> {
    const rows: WebhookRow[] = await this.client.unsafe(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE user_id IS NOT DISTINCT FROM $1::int ORDER BY id`,
      [owner],
    );
    return rows.map(toWebhook);
  }

  async findWebhook(id: number, owner: number | null): Promise<Webhook | undefined> {
    const [row]: WebhookRow[] = await this.client.unsafe(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks
       WHERE id = $1 AND user_id IS NOT DISTINCT FROM $2::int`,
      [id, owner],
    );
    return row === undefined ? undefined : toWebhook(row);
  }

  async deleteWebhook(id: number, owner: number | null): Promise<boolean> {
    const gone = await this.client`
      DELETE FROM webhooks WHERE id = ${id} AND user_id IS NOT DISTINCT FROM ${owner}::int
      RETURNING id`;
    return gone.length > 0;
  }

  listDeliveries(webhookId: number, limit: number): Promise<DeliveryRecord[]> {
    return this.client.unsafe(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1
       ORDER BY id DESC LIMIT $2`,
      [webhookId, limit],
    );
  }

  async addDelivery(
    webhookId: number,
    type: DeliveryType,
    payload: string,
    now: number,
  ): Promise<DeliveryRecord> {
    const [row]: DeliveryRecord[] = await this.client.unsafe(
      `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $4) RETURNING ${DELIVERY_COLUMNS}`,
      [webhookId, type, payload, now],
    );
    return row as DeliveryRecord;
  }

  /**
   * One transaction: the due messages are locked, skipping those another sender holds;
   * untried clicks messages take in their webhook's later ones; every claimed message is
   * leased (its next attempt moved past the lease) and the locks go at commit.
   */
  claimDeliveries(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.client.begin(async (tx) => {
      const due: DueDelivery[] = await tx`
        SELECT d.id::float8 AS id, d.webhook_id AS "webhookId", d.type, d.payload,
               d.created_at::float8 AS "createdAt", d.attempts, w.url, w.secret
        FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.next_attempt_at <= ${now}
        ORDER BY d.next_attempt_at LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED`;
      const claimed: DueDelivery[] = [];
      const merged = new Set<number>();
      for (const message of due) {
        if (merged.has(message.id)) continue;
        if (message.type === 'clicks' && message.attempts === 0) {
          const later: { id: number; payload: string }[] = await tx`
            SELECT id::float8 AS id, payload FROM webhook_deliveries
            WHERE webhook_id = ${message.webhookId} AND type = 'clicks' AND attempts = 0
              AND id > ${message.id} AND next_attempt_at <= ${now}
            ORDER BY id LIMIT ${MERGE_MESSAGES}
            FOR UPDATE SKIP LOCKED`;
          const merge = mergeClicks(message.payload, later);
          if (merge !== undefined) {
            await tx`UPDATE webhook_deliveries SET payload = ${merge.payload} WHERE id = ${message.id}`;
            await tx`DELETE FROM webhook_deliveries WHERE id = ANY(${merge.merged}::bigint[])`;
            for (const id of merge.merged) merged.add(id);
            message.payload = merge.payload;
          }
        }
        claimed.push(message);
      }
      if (claimed.length > 0) {
        const ids = claimed.map((message) => message.id);
        await tx`
          UPDATE webhook_deliveries SET next_attempt_at = ${now + leaseMs}
          WHERE id = ANY(${ids}::bigint[])`;
      }
      return claimed;
    });
  }

  async finishDelivery(outcome: DeliveryOutcome): Promise<void> {
    await this.client`
      UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${outcome.status},
             last_error = ${outcome.error},
             delivered_at = ${outcome.delivered ? outcome.at : null}::bigint,
             next_attempt_at = ${outcome.delivered ? null : outcome.nextAttemptAt}::bigint
      WHERE id = ${outcome.id}`;
  }
}

/** Removes up to `slice` finished messages made before `before`; how many. */
export async function pruneDeliveries(client: SQL, before: number, slice: number): Promise<number> {
  const gone = await client`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries
      WHERE next_attempt_at IS NULL AND created_at < ${before} LIMIT ${slice})
    RETURNING id`;
  return gone.length;
}
