// Webhooks and their outbox on SQLite: registrations, the messages a change puts in the
// outbox (called by the store inside the change's own transaction), and the sender's
// claims. One process writes a SQLite database, so a transaction alone makes each
// step exact; statements are prepared once, as everywhere in this store.

import type { Database, SQLQueryBindings, Statement } from 'bun:sqlite';
import {
  type ClickEventRecord,
  clickEventRecord,
  clicksEventRecord,
  type DeliveryType,
  linkEventRecord,
  type WebhookEvent,
} from '../../domain/webhooks.ts';
import { eventsOf, eventsText, MERGE_MESSAGES, mergeClicks, wantedNeedle } from '../outbox.ts';
import {
  type Click,
  type DeliveryOutcome,
  type DeliveryRecord,
  type DueDelivery,
  type LinkDetail,
  type NewWebhook,
  WEBHOOK_LIMIT_REACHED,
  type Webhook,
} from '../store.ts';

type WebhookRow = Omit<Webhook, 'events'> & { events: string };

const toWebhook = (row: WebhookRow): Webhook => ({ ...row, events: eventsOf(row.events) });

const WEBHOOK_COLUMNS = 'id, user_id AS userId, url, secret, events, created_at AS createdAt';
const DELIVERY_COLUMNS = `id, webhook_id AS webhookId, type, created_at AS createdAt, attempts,
  next_attempt_at AS nextAttemptAt, delivered_at AS deliveredAt, last_status AS lastStatus,
  last_error AS lastError`;

export function sqliteWebhooks(sqlite: Database) {
  const statements: Statement[] = [];
  function prepare<R, P extends SQLQueryBindings[]>(text: string) {
    const statement = sqlite.prepare<R, P>(text);
    statements.push(statement as unknown as Statement);
    return statement;
  }

  // Spelled as the partial index webhooks_clicks is, so that SQLite reads that index
  // (empty unless some webhook wants clicks) rather than every webhook.
  const clicksWanted = prepare<{ yes: number }, []>(
    `SELECT EXISTS (SELECT 1 FROM webhooks WHERE instr(',' || events || ',', ',clicks,') > 0) AS yes`,
  );
  const wanting = prepare<{ id: number }, [number | null, string]>(
    `SELECT id FROM webhooks WHERE user_id IS ? AND instr(',' || events || ',', ?) > 0`,
  );
  const enqueue = prepare<unknown, [number, string, string, number, number]>(
    `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const linkOf = prepare<{ userId: number | null; code: string }, [number]>(
    'SELECT user_id AS userId, short_code AS code FROM links WHERE id = ?',
  );
  const count = prepare<{ n: number }, [number | null]>(
    'SELECT count(*) AS n FROM webhooks WHERE user_id IS ?',
  );
  const insertWebhook = prepare<WebhookRow, [number | null, string, string, string, number]>(
    `INSERT INTO webhooks (user_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?)
     RETURNING ${WEBHOOK_COLUMNS}`,
  );
  const ofOwner = prepare<WebhookRow, [number | null]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE user_id IS ? ORDER BY id`,
  );
  const byId = prepare<WebhookRow, [number, number | null]>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND user_id IS ?`,
  );
  const removeWebhook = prepare<unknown, [number, number | null]>(
    'DELETE FROM webhooks WHERE id = ? AND user_id IS ?',
  );
  const latest = prepare<DeliveryRecord, [number, number]>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
  );
  const added = prepare<DeliveryRecord, [number, string, string, number, number]>(
    `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?) RETURNING ${DELIVERY_COLUMNS}`,
  );
  // In the order of the due index; equal moments in id order, as the index keeps them.
  const due = prepare<DueDelivery, [number, number]>(
    `SELECT d.id, d.webhook_id AS webhookId, d.type, d.payload, d.created_at AS createdAt,
            d.attempts, w.url, w.secret
     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?`,
  );
  const untriedClicks = prepare<{ id: number; payload: string }, [number, number, number, number]>(
    `SELECT id, payload FROM webhook_deliveries
     WHERE webhook_id = ? AND type = 'clicks' AND attempts = 0 AND id > ? AND next_attempt_at <= ?
     ORDER BY id LIMIT ?`,
  );
  const setPayload = prepare<unknown, [string, number]>(
    'UPDATE webhook_deliveries SET payload = ? WHERE id = ?',
  );
  const removeDelivery = prepare<unknown, [number]>('DELETE FROM webhook_deliveries WHERE id = ?');
  const release = prepare<unknown, [number]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ?1 WHERE next_attempt_at > ?1',
  );
  const lease = prepare<unknown, [number, number]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?',
  );
  const finish = prepare<
    unknown,
    [number | null, string | null, number | null, number | null, number]
  >(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
       delivered_at = ?, next_attempt_at = ? WHERE id = ?`,
  );
  const prune = prepare<unknown, [number, number]>(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE next_attempt_at IS NULL AND created_at < ? LIMIT ?)`,
  );

  /** Puts `payload` in the outbox of each of `owner`'s webhooks that want `event`. */
  function report(event: WebhookEvent, owner: number | null, payload: () => string, now: number) {
    const hooks = wanting.all(owner, wantedNeedle(event));
    if (hooks.length === 0) return;
    const data = payload();
    for (const hook of hooks) enqueue.run(hook.id, event, data, now, now);
  }

  return {
    /**
     * Whether any webhook wants clicks. A batch with none leaves the outbox alone and
     * costs this one read of an index; the store asks it in the same synchronous run as
     * the batch's transaction, so no webhook can be added in between.
     */
    wantsClicks(): boolean {
      return clicksWanted.get()?.yes === 1;
    },

    /** Puts a link event in the outbox of its owner's webhooks that want it. */
    linkEvent(event: WebhookEvent, link: LinkDetail, now: number): void {
      report(event, link.userId, () => linkEventRecord(link), now);
    },

    /**
     * Puts the links of a batch just made in the outbox of their owners' webhooks that
     * want link.created, asking once per owner which those are (a bulk call's thousand
     * links have one owner). `detail` is called only for a link some webhook wants.
     */
    linksCreated<L>(
      links: Iterable<L>,
      ownerOf: (link: L) => number | null,
      detail: (link: L) => LinkDetail,
      now: number,
    ): void {
      const hooksOf = new Map<number | null, { id: number }[]>();
      for (const link of links) {
        const owner = ownerOf(link);
        let hooks = hooksOf.get(owner);
        if (hooks === undefined) {
          hooks = wanting.all(owner, wantedNeedle('link.created'));
          hooksOf.set(owner, hooks);
        }
        if (hooks.length === 0) continue;
        const data = linkEventRecord(detail(link));
        for (const hook of hooks) enqueue.run(hook.id, 'link.created', data, now, now);
      }
    },

    /** Puts each owner's clicks of a committed batch in the outbox of their webhooks that want clicks. */
    clicks(batch: readonly Click[], now: number): void {
      const owners = new Map<number, { owner: number | null; code: string } | null>();
      const byOwner = new Map<number | null, ClickEventRecord[]>();
      const needle = wantedNeedle('clicks');
      const hooked = new Map<number | null, boolean>();
      for (const click of batch) {
        let link = owners.get(click.linkId);
        if (link === undefined) {
          const row = linkOf.get(click.linkId);
          link = row === null ? null : { owner: row.userId, code: row.code };
          owners.set(click.linkId, link);
        }
        if (link === null) continue;
        let wanted = hooked.get(link.owner);
        if (wanted === undefined) {
          wanted = wanting.get(link.owner, needle) !== null;
          hooked.set(link.owner, wanted);
        }
        if (!wanted) continue;
        let clicks = byOwner.get(link.owner);
        if (clicks === undefined) {
          clicks = [];
          byOwner.set(link.owner, clicks);
        }
        clicks.push(clickEventRecord(link.code, click));
      }
      for (const [owner, clicks] of byOwner) {
        report('clicks', owner, () => clicksEventRecord(clicks), now);
      }
    },

    /** What the store offers of webhooks, each run through its guards. */
    operations: {
      createWebhook: sqlite.transaction(
        (hook: NewWebhook, limit: number): Webhook | typeof WEBHOOK_LIMIT_REACHED => {
          if ((count.get(hook.userId)?.n ?? 0) >= limit) return WEBHOOK_LIMIT_REACHED;
          const row = insertWebhook.get(
            hook.userId,
            hook.url,
            hook.secret,
            eventsText(hook.events),
            hook.createdAt,
          );
          if (row === null) throw new Error('webhook not stored');
          return toWebhook(row);
        },
      ),

      listWebhooks(owner: number | null): Webhook[] {
        return ofOwner.all(owner).map(toWebhook);
      },

      findWebhook(id: number, owner: number | null): Webhook | undefined {
        const row = byId.get(id, owner);
        return row === null ? undefined : toWebhook(row);
      },

      deleteWebhook(id: number, owner: number | null): boolean {
        return removeWebhook.run(id, owner).changes > 0;
      },

      listDeliveries(webhookId: number, limit: number): DeliveryRecord[] {
        return latest.all(webhookId, limit);
      },

      addDelivery(
        webhookId: number,
        type: DeliveryType,
        payload: string,
        now: number,
      ): DeliveryRecord {
        const row = added.get(webhookId, type, payload, now, now);
        if (row === null) throw new Error('delivery not stored');
        return row;
      },

      releaseDeliveries: (now: number): number => release.run(now).changes,
      claimDeliveries: sqlite.transaction(
        (now: number, limit: number, leaseMs: number): DueDelivery[] => {
          const claimed: DueDelivery[] = [];
          const merged = new Set<number>();
          for (const message of due.all(now, limit)) {
            if (merged.has(message.id)) continue;
            if (message.type === 'clicks' && message.attempts === 0) {
              const later = untriedClicks.all(message.webhookId, message.id, now, MERGE_MESSAGES);
              const merge = mergeClicks(message.payload, later);
              if (merge !== undefined) {
                setPayload.run(merge.payload, message.id);
                for (const id of merge.merged) {
                  removeDelivery.run(id);
                  merged.add(id);
                }
                message.payload = merge.payload;
              }
            }
            lease.run(now + leaseMs, message.id);
            claimed.push(message);
          }
          return claimed;
        },
      ),

      finishDelivery(outcome: DeliveryOutcome): void {
        finish.run(
          outcome.status,
          outcome.error,
          outcome.delivered ? outcome.at : null,
          outcome.delivered ? null : outcome.nextAttemptAt,
          outcome.id,
        );
      },
    },

    /** Removes up to `slice` finished messages made before `before`; how many. */
    prune(before: number, slice: number): number {
      return prune.run(before, slice).changes;
    },

    finalize(): void {
      for (const statement of statements) statement.finalize();
    },
  };
}

export type SqliteWebhooks = ReturnType<typeof sqliteWebhooks>;
