// Links on PostgreSQL: made (under their owners' quota, with their link.created messages
// and their notices in the same statement), listed in pages and chunks, found for
// redirects and `kurz import`, changed and removed. Several instances share the
// database: each change is announced on LINKS_CHANNEL in its own transaction, and
// every rule (one winner per code, the quota) is kept by PostgreSQL's locks and indexes.

import type { SQL } from 'bun';
import { applyChanges } from '../link-changes.ts';
import { codeKey, insertWithQuota, newLinkKey, ownersWithQuota } from '../link-quota.ts';
import { wantedNeedle } from '../outbox.ts';
import {
  type CodeHolder,
  type CreatedLink,
  DEFAULT_DOMAIN,
  type Link,
  type LinkChanges,
  type LinkChunkQuery,
  type LinkDetail,
  type LinkPage,
  type LinkQuery,
  type NewLink,
  type RedirectTarget,
  type StoreTotals,
} from '../store.ts';
import { LINKS_CHANNEL, linkNotice } from './notices.ts';
import { LINK_CLICK_TABLES } from './schema.ts';
import { moveLinkTagDays } from './tags.ts';
import { reportLinkEvent } from './webhooks.ts';

/** The columns of a LinkDetail; `l` is the link's row. */
export const DETAIL_COLUMNS = `l.id, l.user_id AS "userId", l.domain_id AS "domainId",
  l.original_url AS "originalUrl", l.short_code AS "shortCode",
  l.created_at::float8 AS "createdAt", l.source,
  l.expires_at::float8 AS "expiresAt", l.max_clicks AS "maxClicks",
  l.limited_clicks AS "limitedClicks", l.password_hash AS "passwordHash",
  l.rules, l.variants, l.preview, l.disabled_at::float8 AS "disabledAt",
  l.disabled_reason AS "disabledReason",
  ARRAY(SELECT t.tag FROM link_tags t WHERE t.link_id = l.id ORDER BY t.tag COLLATE "C") AS tags,
  (SELECT coalesce(sum(c.clicks), 0)::float8 FROM link_clicks c WHERE c.link_id = l.id) AS clicks`;

/** The batch's inserts under the quota (link-quota.ts), each one statement. */
async function insertLinks(
  sql: SQL,
  batch: readonly NewLink[],
  owned: Map<number, number>,
): Promise<CreatedLink[]> {
  const steps = insertWithQuota(batch, owned);
  let step = steps.next();
  while (!step.done) step = steps.next(await insertRows(sql, step.value));
  return step.value;
}

/**
 * One INSERT of links with distinct codes; the ids of those that took their code. The
 * same statement puts each link made in the outbox of its owner's webhooks that want
 * `link.created`.
 */
async function insertRows(sql: SQL, links: readonly NewLink[]): Promise<Map<string, number>> {
  if (links.length === 0) return new Map();
  const codes = links.map((l) => l.shortCode);
  const domains = links.map((l) => l.domainId ?? DEFAULT_DOMAIN);
  // Tags as one row per (link's key, tag), joined to the links the insert made.
  const tagKeys = links.flatMap((l) => (l.tags ?? []).map(() => newLinkKey(l)));
  const tags = links.flatMap((l) => l.tags ?? []);
  const now = Date.now();
  const rows: { id: number; domain_id: number; short_code: string }[] = await sql`
    WITH added AS (
      INSERT INTO links (user_id, domain_id, original_url, short_code, source, created_at,
                         expires_at, max_clicks, limited_clicks, password_hash, rules,
                         variants, preview, disabled_at, disabled_reason)
      SELECT * FROM unnest(${links.map((l) => l.userId)}::int[], ${domains}::int[],
                           ${links.map((l) => l.originalUrl)}::text[],
                           ${codes}::text[], ${links.map((l) => l.source)}::text[],
                           ${links.map((l) => l.createdAt)}::bigint[],
                           ${links.map((l) => l.expiresAt ?? null)}::bigint[],
                           ${links.map((l) => l.maxClicks ?? null)}::int[],
                           ${links.map((l) => l.limitedClicks ?? 0)}::int[],
                           ${links.map((l) => l.passwordHash ?? null)}::text[],
                           ${links.map((l) => l.rules ?? null)}::text[],
                           ${links.map((l) => l.variants ?? null)}::text[],
                           ${links.map((l) => l.preview ?? null)}::text[],
                           ${links.map((l) => l.disabledAt ?? null)}::bigint[],
                           ${links.map((l) => l.disabledReason ?? null)}::text[])
      ON CONFLICT (domain_id, short_code) DO NOTHING
      RETURNING id, domain_id, short_code, user_id, original_url, source, created_at,
                expires_at, max_clicks, password_hash, rules, variants, preview,
                disabled_at, disabled_reason, domain_id || '/' || short_code AS key
    ), batch_tags AS (
      SELECT * FROM unnest(${tagKeys}::text[], ${tags}::text[]) AS p(key, tag)
    ), outbox AS (
      INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
      -- The link.created record, as linkEventRecord writes createdDetail's: row_to_json
      -- writes the columns in order, compactly, as JSON.stringify does. Made in SQL, and
      -- only for links some webhook wants, so a batch's links are not sent twice.
      SELECT w.id, 'link.created',
             (SELECT row_to_json(r)::text FROM (
                SELECT a.id, a.user_id AS "userId", a.domain_id AS "domainId",
                       a.original_url AS "originalUrl", a.short_code AS "shortCode",
                       a.created_at AS "createdAt", 0 AS clicks, a.source,
                       a.expires_at AS "expiresAt", a.max_clicks AS "maxClicks",
                       0 AS "limitedClicks", a.password_hash IS NOT NULL AS "passwordProtected",
                       t.tags, a.rules, a.variants, a.preview, a.disabled_at AS "disabledAt",
                       a.disabled_reason AS "disabledReason") r),
             ${now}::bigint, ${now}::bigint
      FROM added a
      JOIN webhooks w ON (w.user_id = a.user_id OR (w.user_id IS NULL AND a.user_id IS NULL))
        AND strpos(',' || w.events || ',', ${wantedNeedle('link.created')}) > 0
      CROSS JOIN LATERAL (SELECT ARRAY(SELECT t.tag FROM batch_tags t WHERE t.key = a.key
                                       ORDER BY t.tag COLLATE "C") AS tags) t
    ), tagged AS (
      INSERT INTO link_tags (link_id, tag)
      SELECT a.id, t.tag FROM added a JOIN batch_tags t ON t.key = a.key
      ON CONFLICT DO NOTHING
    )
    -- The notice as linkNotice() writes it: the code alone on the default domain.
    SELECT id, domain_id, short_code,
           pg_notify(${LINKS_CHANNEL}, CASE WHEN domain_id = 0 THEN short_code
                                            ELSE domain_id || '/' || short_code END)
    FROM added`;
  return new Map(rows.map((row) => [codeKey(row.domain_id, row.short_code), row.id]));
}

/** The link operations of the store, each one statement or transaction on the pool. */
export class PostgresLinks {
  /** `created`: told once links were made (committed), for the upkeep of the search indexes. */
  constructor(
    private readonly client: SQL,
    private readonly created: () => void = () => {},
  ) {}

  async totals(): Promise<StoreTotals> {
    const [row]: StoreTotals[] = await this.client`
      SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals) AS links,
             (SELECT count(*)::float8 FROM users) AS users`;
    return row ?? { links: 0, users: 0 };
  }

  /**
   * One transaction for the batch, and in it one INSERT for all its links (each takes
   * its code or not: the unique index decides, across instances too). The codes taken
   * are announced in the same statement, delivered when it commits, so other instances
   * stop believing them unknown. Owners with a quota are locked first (their users rows,
   * in id order, so two instances cannot deadlock) and their totals read, so concurrent
   * creates on any instance cannot pass the quota together.
   */
  async createLinks(batch: readonly NewLink[]): Promise<CreatedLink[]> {
    const limited = ownersWithQuota(batch);
    const made =
      limited.length === 0
        ? await insertLinks(this.client, batch, new Map())
        : await this.client.begin(async (tx) => {
            await tx`SELECT id FROM users WHERE id IN ${tx(limited)} ORDER BY id FOR UPDATE`;
            const totals: { owner: number; links: number }[] =
              await tx`SELECT owner, links::float8 AS links FROM link_totals WHERE owner IN ${tx(limited)}`;
            const owned = new Map(limited.map((owner) => [owner, 0]));
            for (const row of totals) owned.set(row.owner, row.links);
            return insertLinks(tx, batch, owned);
          });
    this.created();
    return made;
  }

  async listLinks({ owner, limit, offset }: LinkQuery): Promise<LinkPage> {
    // One statement, so the page and its total come from one snapshot. The page is cut
    // from the index first and counts are summed for its rows only, so a deep OFFSET
    // skips index entries rather than counting the clicks of every skipped link. NULL
    // is PostgreSQL's "no limit".
    const rows = limit ?? null;
    const [result]: { total: number; links: Link[] | null }[] =
      owner === null
        ? await this.client`
            SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals) AS total,
                   (SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
                      SELECT l.id, l.user_id AS "userId", l.domain_id AS "domainId", l.original_url AS "originalUrl",
                             l.short_code AS "shortCode", l.created_at AS "createdAt",
                             (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                      FROM (SELECT id FROM links ORDER BY created_at DESC, id DESC
                            LIMIT ${rows} OFFSET ${offset}) page
                      JOIN links l ON l.id = page.id
                   ) p) AS links`
        : await this.client`
            SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals WHERE owner = ${owner}) AS total,
                   (SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
                      SELECT l.id, l.user_id AS "userId", l.domain_id AS "domainId", l.original_url AS "originalUrl",
                             l.short_code AS "shortCode", l.created_at AS "createdAt",
                             (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                      FROM (SELECT id FROM links WHERE user_id = ${owner}
                            ORDER BY created_at DESC, id DESC LIMIT ${rows} OFFSET ${offset}) page
                      JOIN links l ON l.id = page.id
                   ) p) AS links`;
    return { links: result?.links ?? [], total: result?.total ?? 0 };
  }

  async listLinksAfter({ owner, after, limit }: LinkChunkQuery): Promise<Link[]> {
    const [result]: { links: Link[] | null }[] =
      owner === null
        ? await this.client`
            SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) AS links FROM (
              SELECT l.id, l.user_id AS "userId", l.domain_id AS "domainId", l.original_url AS "originalUrl",
                     l.short_code AS "shortCode", l.created_at AS "createdAt",
                     (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
              FROM links l WHERE (l.created_at, l.id) < (${after.createdAt}, ${after.id})
              ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit}
            ) p`
        : await this.client`
            SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) AS links FROM (
              SELECT l.id, l.user_id AS "userId", l.domain_id AS "domainId", l.original_url AS "originalUrl",
                     l.short_code AS "shortCode", l.created_at AS "createdAt",
                     (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
              FROM links l WHERE l.user_id = ${owner} AND (l.created_at, l.id) < (${after.createdAt}, ${after.id})
              ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit}
            ) p`;
    return result?.links ?? [];
  }

  async listLinkDetailsAfter({ owner, after, limit }: LinkChunkQuery): Promise<LinkDetail[]> {
    return owner === null
      ? await this.client.unsafe(
          `SELECT ${DETAIL_COLUMNS} FROM links l WHERE (l.created_at, l.id) < ($1, $2)
             ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
          [after.createdAt, after.id, limit],
        )
      : await this.client.unsafe(
          `SELECT ${DETAIL_COLUMNS} FROM links l
             WHERE l.user_id = $1 AND (l.created_at, l.id) < ($2, $3)
             ORDER BY l.created_at DESC, l.id DESC LIMIT $4`,
          [owner, after.createdAt, after.id, limit],
        );
  }

  /** Codes go in as one array: one statement and one index probe per code, whatever the batch. */
  async findLinksByCodes(
    codes: readonly string[],
    domainId = DEFAULT_DOMAIN,
  ): Promise<CodeHolder[]> {
    return await this.client`
    SELECT domain_id AS "domainId", short_code AS "shortCode", user_id AS "userId",
           original_url AS "originalUrl", created_at::float8 AS "createdAt"
    FROM links WHERE domain_id = ${domainId} AND short_code = ANY(${codes}::text[])`;
  }

  async protectedLinkIds(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows: { id: number }[] = await this.client`
      SELECT id FROM links WHERE id = ANY(${ids}::int[]) AND password_hash IS NOT NULL`;
    return rows.map((row) => row.id);
  }

  async findLinksCreatedAt(owner: number | null, times: readonly number[]): Promise<CodeHolder[]> {
    // Two statements rather than IS NOT DISTINCT FROM, which no index serves.
    return owner === null
      ? this.client`
            SELECT domain_id AS "domainId", short_code AS "shortCode", user_id AS "userId",
                   original_url AS "originalUrl", created_at::float8 AS "createdAt"
            FROM links WHERE user_id IS NULL AND created_at = ANY(${times}::bigint[])`
      : this.client`
            SELECT domain_id AS "domainId", short_code AS "shortCode", user_id AS "userId",
                   original_url AS "originalUrl", created_at::float8 AS "createdAt"
            FROM links WHERE user_id = ${owner} AND created_at = ANY(${times}::bigint[])`;
  }

  async findLinkByCode(
    code: string,
    domainId = DEFAULT_DOMAIN,
  ): Promise<RedirectTarget | undefined> {
    const [row]: RedirectTarget[] = await this.client`
      SELECT l.id, l.user_id AS "userId", l.original_url AS "originalUrl", l.source,
             l.expires_at::float8 AS "expiresAt", l.max_clicks AS "maxClicks",
             l.limited_clicks AS "limitedClicks", l.password_hash AS "passwordHash",
             l.rules, l.variants, l.preview, l.disabled_at::float8 AS "disabledAt",
             l.disabled_reason AS "disabledReason", u.created_at::float8 AS "ownerSince"
      FROM links l LEFT JOIN users u ON u.id = l.user_id
      WHERE l.domain_id = ${domainId} AND l.short_code = ${code}`;
    return row;
  }

  async findLinkDetail(code: string, domainId = DEFAULT_DOMAIN): Promise<LinkDetail | undefined> {
    const [row]: LinkDetail[] = await this.client.unsafe(
      `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.domain_id = $1 AND l.short_code = $2`,
      [domainId, code],
    );
    return row;
  }

  /**
   * The link's row is locked while its new state is worked out (a new max_clicks counts
   * from the clicks committed so far), and the change is announced in the transaction,
   * so every instance hears of it once it commits.
   */
  async updateLink(id: number, changes: LinkChanges): Promise<LinkDetail | undefined> {
    return this.client.begin(async (tx) => {
      const [current]: LinkDetail[] = await tx.unsafe(
        `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = $1 FOR UPDATE`,
        [id],
      );
      if (current === undefined) return undefined;
      const next = applyChanges(current, changes);
      await tx`
        UPDATE links SET original_url = ${next.originalUrl}, expires_at = ${next.expiresAt},
               max_clicks = ${next.maxClicks}, limited_clicks = ${next.limitedClicks},
               password_hash = ${next.passwordHash}, rules = ${next.rules},
               variants = ${next.variants}, preview = ${next.preview}
        WHERE id = ${id}`;
      if (changes.tags !== undefined) {
        await moveLinkTagDays(tx, id, next.userId, next.tags);
        await tx`DELETE FROM link_tags WHERE link_id = ${id}`;
        if (next.tags.length > 0) {
          await tx`INSERT INTO link_tags (link_id, tag) SELECT ${id}, unnest(${next.tags}::text[])`;
        }
      }
      await reportLinkEvent(tx, 'link.updated', next, Date.now());
      await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${linkNotice(next.domainId, next.shortCode)})`;
      return next;
    });
  }

  /**
   * The link, its click records, counts and rollups, in one transaction; announced. The
   * link is read first (and locked): a webhook is told of it as it was.
   */
  async deleteLink(id: number): Promise<boolean> {
    return this.client.begin((tx) => removeLink(tx, id, Date.now()));
  }
}

/**
 * Removes a link inside a transaction: its row (read first, and locked: a webhook is
 * told of it as it was), its click records, counts, rollups and tags; announced.
 */
export async function removeLink(tx: SQL, id: number, now: number): Promise<boolean> {
  const [link]: LinkDetail[] = await tx.unsafe(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = $1 FOR UPDATE`,
    [id],
  );
  if (link === undefined) return false;
  await reportLinkEvent(tx, 'link.deleted', link, now);
  await moveLinkTagDays(tx, id, link.userId, []);
  const [gone]: { short_code: string; domain_id: number }[] =
    await tx`DELETE FROM links WHERE id = ${id} RETURNING short_code, domain_id`;
  if (gone === undefined) return false;
  for (const table of LINK_CLICK_TABLES) {
    await tx.unsafe(`DELETE FROM ${table} WHERE link_id = $1`, [id]);
  }
  await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${linkNotice(gone.domain_id, gone.short_code)})`;
  return true;
}
