// Moderation on PostgreSQL: the admin role and disabled accounts (read with every token
// check), disabled links (with their link.updated messages, announced on LINKS_CHANNEL
// in the same transaction, as updateLink does), the database blocklist every instance
// reads, and the admin API's reads across every owner. The searches are the operator's,
// not the redirect's: a filter no index serves (a disabled link, an owner's e-mail) is
// checked link by link.

import type { SQL } from 'bun';
import { Dimension } from '../../domain/clicks.ts';
import type { UserSummary } from '../accounts.ts';
import { containsPattern } from '../link-search.ts';
import type {
  AdminLinkPage,
  AdminLinkSearch,
  BlockedHost,
  InstanceFigures,
  UserPage,
  UserSearch,
  UserStanding,
} from '../moderation.ts';
import type { LinkDetail } from '../store.ts';
import { DETAIL_COLUMNS } from './links.ts';
import { BLOCKLIST_NOTICE, LINKS_CHANNEL, linkNotice } from './notices.ts';
import { reportLinkEvent } from './webhooks.ts';

/** A UserSummary's columns; `u` is the user's row. */
export const USER_COLUMNS = `u.id, u.email, u.created_at::float8 AS "createdAt",
  coalesce((SELECT links FROM link_totals WHERE owner = u.id), 0)::float8 AS links, u.admin,
  u.disabled_at::float8 AS "disabledAt", u.password_hash <> '' AS password,
  u.oidc_subject IS NOT NULL AS oidc`;

const ADMIN_LINK_COLUMNS = `l.id, l.user_id AS "userId", l.domain_id AS "domainId",
  l.original_url AS "originalUrl", l.short_code AS "shortCode",
  l.created_at::float8 AS "createdAt", l.disabled_at::float8 AS "disabledAt",
  l.disabled_reason AS "disabledReason",
  (SELECT email FROM users WHERE id = l.user_id) AS "ownerEmail",
  (SELECT coalesce(sum(c.clicks), 0)::float8 FROM link_clicks c WHERE c.link_id = l.id) AS clicks`;

/** The conditions of an admin link search, and their values ($1, $2, …). */
function adminLinkWhere(search: AdminLinkSearch): { where: string; values: (string | number)[] } {
  const where: string[] = [];
  const values: (string | number)[] = [];
  if (search.text !== undefined) {
    values.push(containsPattern(search.text));
    where.push(`(l.short_code ILIKE $${values.length} OR l.original_url ILIKE $${values.length})`);
  }
  if (search.ownerEmail !== undefined) {
    values.push(containsPattern(search.ownerEmail));
    where.push(`l.user_id IN (SELECT id FROM users WHERE email ILIKE $${values.length})`);
  }
  if (search.domainId !== undefined) {
    values.push(search.domainId);
    where.push(`l.domain_id = $${values.length}`);
  }
  if (search.disabled === true) where.push('l.disabled_at IS NOT NULL');
  if (search.disabled === false) where.push('l.disabled_at IS NULL');
  return { where: where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`, values };
}

export class PostgresModeration {
  constructor(private readonly client: SQL) {}

  async standing(id: number): Promise<UserStanding | undefined> {
    const [row]: UserStanding[] = await this.client`
      SELECT token_version AS version, admin FROM users WHERE id = ${id} AND disabled_at IS NULL`;
    return row;
  }

  async setUserAdmin(id: number, admin: boolean): Promise<boolean> {
    const rows = await this.client`UPDATE users SET admin = ${admin} WHERE id = ${id} RETURNING id`;
    return rows.length > 0;
  }

  async setUserDisabled(id: number, at: number | null): Promise<boolean> {
    const rows = await this
      .client`UPDATE users SET disabled_at = ${at} WHERE id = ${id} RETURNING id`;
    return rows.length > 0;
  }

  async findUser(id: number): Promise<UserSummary | undefined> {
    const [row]: UserSummary[] = await this.client.unsafe(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`,
      [id],
    );
    return row;
  }

  async searchUsers({ text, limit, offset }: UserSearch): Promise<UserPage> {
    const pattern = containsPattern(text ?? '');
    // One statement, so the page and its total come from one snapshot.
    const [row]: { total: number; users: UserSummary[] | null }[] = await this.client.unsafe(
      `SELECT (SELECT count(*)::float8 FROM users WHERE email ILIKE $1) AS total,
              (SELECT json_agg(p ORDER BY p.id) FROM (
                 SELECT ${USER_COLUMNS} FROM users u WHERE u.email ILIKE $1
                 ORDER BY u.id LIMIT $2 OFFSET $3) p) AS users`,
      [pattern, limit, offset],
    );
    return { users: row?.users ?? [], total: row?.total ?? 0 };
  }

  /** The row is locked while it changes; the change is announced when it commits. */
  setLinkDisabled(
    id: number,
    disabled: { at: number; reason: string | null } | null,
  ): Promise<LinkDetail | undefined> {
    return this.client.begin(async (tx) => {
      const [current]: LinkDetail[] = await tx.unsafe(
        `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = $1 FOR UPDATE`,
        [id],
      );
      if (current === undefined) return undefined;
      const next: LinkDetail = {
        ...current,
        disabledAt: disabled?.at ?? null,
        disabledReason: disabled?.reason ?? null,
      };
      await tx`UPDATE links SET disabled_at = ${next.disabledAt},
                 disabled_reason = ${next.disabledReason} WHERE id = ${id}`;
      await reportLinkEvent(tx, 'link.updated', next, Date.now());
      await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${linkNotice(next.domainId, next.shortCode)})`;
      return next;
    });
  }

  async searchAllLinks(search: AdminLinkSearch): Promise<AdminLinkPage> {
    const { where, values } = adminLinkWhere(search);
    const n = values.length;
    const [row]: { total: number; links: AdminLinkPage['links'] | null }[] =
      await this.client.unsafe(
        `SELECT (SELECT count(*)::float8 FROM links l ${where}) AS total,
                (SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
                   SELECT ${ADMIN_LINK_COLUMNS}
                   FROM (SELECT id FROM links l ${where}
                         ORDER BY created_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}) page
                   JOIN links l ON l.id = page.id) p) AS links`,
        [...values, search.limit, search.offset],
      );
    return { links: row?.links ?? [], total: row?.total ?? 0 };
  }

  async figures(since: number): Promise<InstanceFigures> {
    const day = Math.floor(since / 86_400_000);
    // The day's rolled-up totals (people and bots), and the clicks still in the log.
    const [row]: InstanceFigures[] = await this.client`
      SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals) AS links,
             ((SELECT coalesce(sum(clicks), 0) FROM click_days
               WHERE day = ${day} AND dimension IN (${Dimension.humans}, ${Dimension.bots}))
              + (SELECT count(*) FROM clicks WHERE created_at >= ${since}))::float8 AS "clicksToday",
             (SELECT count(*)::float8 FROM users) AS users,
             (SELECT count(*)::float8 FROM reports WHERE resolved_at IS NULL) AS "reportsWaiting",
             (SELECT count(*)::float8 FROM links WHERE disabled_at IS NOT NULL) AS "disabledLinks",
             (SELECT count(*)::float8 FROM blocked_hosts) AS "blockedHosts"`;
    return row as InstanceFigures;
  }

  listBlockedHosts(): Promise<BlockedHost[]> {
    return this.client`SELECT host, reason, created_at::float8 AS "createdAt",
        added_by AS "addedBy" FROM blocked_hosts ORDER BY host COLLATE "C"`;
  }

  /** Announced in the same statement, so every instance reads the list again once it commits. */
  async addBlockedHost(host: BlockedHost): Promise<boolean> {
    const rows = await this.client`
      WITH added AS (
        INSERT INTO blocked_hosts (host, reason, created_at, added_by)
        VALUES (${host.host}, ${host.reason}, ${host.createdAt}, ${host.addedBy})
        ON CONFLICT (host) DO NOTHING RETURNING host)
      SELECT host, pg_notify(${LINKS_CHANNEL}, ${BLOCKLIST_NOTICE}) FROM added`;
    return rows.length > 0;
  }

  async removeBlockedHost(host: string): Promise<boolean> {
    const rows = await this.client`
      WITH removed AS (DELETE FROM blocked_hosts WHERE host = ${host} RETURNING host)
      SELECT host, pg_notify(${LINKS_CHANNEL}, ${BLOCKLIST_NOTICE}) FROM removed`;
    return rows.length > 0;
  }
}
