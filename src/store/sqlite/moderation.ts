// Moderation on SQLite: the admin role and disabled accounts (read with every token
// check), disabled links (with their link.updated messages), the database blocklist, and
// the admin API's reads across every owner. Searches are prepared once per shape (which
// filters are given); they are the operator's, not the redirect's, so a filter no index
// serves (a disabled link, an owner's e-mail) is checked link by link.

import type { Database, Statement } from 'bun:sqlite';
import { Dimension } from '../../domain/clicks.ts';
import type { UserSummary } from '../accounts.ts';
import { containsPattern } from '../link-search.ts';
import type {
  AdminLink,
  AdminLinkPage,
  AdminLinkSearch,
  BlockedHost,
  InstanceFigures,
  UserPage,
  UserSearch,
  UserStanding,
} from '../moderation.ts';
import type { LinkDetail } from '../store.ts';
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';
import { DETAIL_COLUMNS, detailOf, type StoredDetail } from './links.ts';
import { writeTransaction } from './open.ts';
import type { SqliteWebhooks } from './webhooks.ts';

/** A UserSummary as SQLite gives it: booleans as 0 and 1. */
type UserRow = Omit<UserSummary, 'admin' | 'password' | 'oidc'> & {
  admin: number;
  password: number;
  oidc: number;
};

export const USER_COLUMNS = `u.id, u.email, u.created_at AS createdAt,
  coalesce((SELECT links FROM link_totals WHERE owner = u.id), 0) AS links, u.admin,
  u.disabled_at AS disabledAt, u.password_hash <> '' AS password,
  u.oidc_subject IS NOT NULL AS oidc`;

export function userOf(row: UserRow): UserSummary {
  return { ...row, admin: row.admin !== 0, password: row.password !== 0, oidc: row.oidc !== 0 };
}

type AdminLinkRow = Omit<AdminLink, 'ownerEmail'> & { ownerEmail: string | null };

const ADMIN_LINK_COLUMNS = `l.id, l.user_id AS userId, l.domain_id AS domainId,
  l.original_url AS originalUrl, l.short_code AS shortCode, l.created_at AS createdAt,
  l.disabled_at AS disabledAt, l.disabled_reason AS disabledReason,
  (SELECT email FROM users WHERE id = l.user_id) AS ownerEmail, ${CLICKS_COLUMN}`;

/** The conditions of an admin link search, `$name`s bound by adminLinkValues. */
function adminLinkWhere(search: AdminLinkSearch): string {
  const where: string[] = [];
  if (search.text !== undefined) {
    where.push(
      `(l.short_code LIKE $pattern ESCAPE '\\' OR l.original_url LIKE $pattern ESCAPE '\\')`,
    );
  }
  if (search.ownerEmail !== undefined) {
    where.push(`l.user_id IN (SELECT id FROM users WHERE email LIKE $owner ESCAPE '\\')`);
  }
  if (search.domainId !== undefined) where.push('l.domain_id = $domain');
  if (search.disabled === true) where.push('l.disabled_at IS NOT NULL');
  if (search.disabled === false) where.push('l.disabled_at IS NULL');
  return where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
}

function adminLinkValues(search: AdminLinkSearch): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (search.text !== undefined) values.pattern = containsPattern(search.text);
  if (search.ownerEmail !== undefined) values.owner = containsPattern(search.ownerEmail);
  if (search.domainId !== undefined) values.domain = search.domainId;
  return values;
}

const shapeOf = (search: AdminLinkSearch): string =>
  [search.text, search.ownerEmail, search.domainId, search.disabled]
    .map((value) => (value === undefined ? '-' : typeof value === 'boolean' ? value : '+'))
    .join(':');

/** `blocklistChanged`: told after this process changed the blocklist (others: data_version). */
export function sqliteModeration(
  sqlite: Database,
  hooks: SqliteWebhooks,
  blocklistChanged: () => void,
) {
  const standing = sqlite.prepare<{ version: number; admin: number }, [number]>(
    'SELECT token_version AS version, admin FROM users WHERE id = ? AND disabled_at IS NULL',
  );
  const setAdmin = sqlite.prepare<unknown, [number, number]>(
    'UPDATE users SET admin = ? WHERE id = ?',
  );
  const setDisabled = sqlite.prepare<unknown, [number | null, number]>(
    'UPDATE users SET disabled_at = ? WHERE id = ?',
  );
  const user = sqlite.prepare<UserRow, [number]>(
    `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`,
  );
  const users = sqlite.prepare<UserRow, [string, number, number]>(
    `SELECT ${USER_COLUMNS} FROM users u WHERE u.email LIKE ? ESCAPE '\\'
     ORDER BY u.id LIMIT ? OFFSET ?`,
  );
  const userCount = sqlite.prepare<{ n: number }, [string]>(
    `SELECT count(*) AS n FROM users WHERE email LIKE ? ESCAPE '\\'`,
  );
  const linkById = sqlite.prepare<StoredDetail, [number]>(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = ?`,
  );
  const disableLink = sqlite.prepare<unknown, [number | null, string | null, number]>(
    'UPDATE links SET disabled_at = ?, disabled_reason = ? WHERE id = ?',
  );
  const figures = sqlite.prepare<Omit<InstanceFigures, 'clicksToday'>, []>(
    `SELECT (SELECT coalesce(sum(links), 0) FROM link_totals) AS links,
            (SELECT count(*) FROM users) AS users,
            (SELECT count(*) FROM reports WHERE resolved_at IS NULL) AS reportsWaiting,
            (SELECT count(*) FROM links WHERE disabled_at IS NOT NULL) AS disabledLinks,
            (SELECT count(*) FROM blocked_hosts) AS blockedHosts`,
  );
  // The day's rolled-up totals (people and bots), and the clicks still in the log.
  const clicksToday = sqlite.prepare<{ n: number }, [number, number]>(
    `SELECT (SELECT coalesce(sum(clicks), 0) FROM click_days
             WHERE day = ? AND dimension IN (${Dimension.humans}, ${Dimension.bots}))
          + (SELECT count(*) FROM clicks WHERE created_at >= ?) AS n`,
  );
  const blocked = sqlite.prepare<BlockedHost, []>(
    `SELECT host, reason, created_at AS createdAt, added_by AS addedBy
     FROM blocked_hosts ORDER BY host`,
  );
  const block = sqlite.prepare<unknown, [BlockedHost]>(
    `INSERT INTO blocked_hosts (host, reason, created_at, added_by)
     VALUES ($host, $reason, $createdAt, $addedBy) ON CONFLICT (host) DO NOTHING`,
  );
  const unblock = sqlite.prepare<unknown, [string]>('DELETE FROM blocked_hosts WHERE host = ?');
  const searches = new Map<
    string,
    { page: Statement<AdminLinkRow>; count: Statement<{ n: number }> }
  >();

  const statements = (search: AdminLinkSearch) => {
    const key = shapeOf(search);
    let found = searches.get(key);
    if (found === undefined) {
      const where = adminLinkWhere(search);
      found = {
        page: sqlite.prepare(
          `${CLICKS_OF_LINKS},
           page AS (SELECT id FROM links l ${where}
                    ORDER BY created_at DESC, id DESC LIMIT $limit OFFSET $offset)
           SELECT ${ADMIN_LINK_COLUMNS}
           FROM page JOIN links l ON l.id = page.id ${CLICKS_JOINS}
           ORDER BY l.created_at DESC, l.id DESC`,
        ),
        count: sqlite.prepare(`SELECT count(*) AS n FROM links l ${where}`),
      };
      searches.set(key, found);
    }
    return found;
  };

  return {
    operations: {
      standing(id: number): UserStanding | undefined {
        const row = standing.get(id);
        return row === null ? undefined : { version: row.version, admin: row.admin !== 0 };
      },
      setUserAdmin: (id: number, admin: boolean): boolean =>
        setAdmin.run(admin ? 1 : 0, id).changes > 0,
      setUserDisabled: (id: number, at: number | null): boolean =>
        setDisabled.run(at, id).changes > 0,
      findUser(id: number): UserSummary | undefined {
        const row = user.get(id);
        return row === null ? undefined : userOf(row);
      },
      searchUsers: sqlite.transaction(({ text, limit, offset }: UserSearch): UserPage => {
        const pattern = containsPattern(text ?? '');
        return {
          users: users.all(pattern, limit, offset).map(userOf),
          total: userCount.get(pattern)?.n ?? 0,
        };
      }),
      setLinkDisabled: writeTransaction(
        sqlite,
        (id: number, disabled: { at: number; reason: string | null } | null) => {
          const row = linkById.get(id);
          if (row === null) return undefined;
          disableLink.run(disabled?.at ?? null, disabled?.reason ?? null, id);
          const next: LinkDetail = {
            ...detailOf(row),
            disabledAt: disabled?.at ?? null,
            disabledReason: disabled?.reason ?? null,
          };
          hooks.linkEvent('link.updated', next, Date.now());
          return next;
        },
      ),
      searchAllLinks: sqlite.transaction((search: AdminLinkSearch): AdminLinkPage => {
        const { page, count } = statements(search);
        const values = adminLinkValues(search);
        return {
          links: page.all({ ...values, limit: search.limit, offset: search.offset }),
          total: count.get(values)?.n ?? 0,
        };
      }),
      figures: sqlite.transaction((since: number): InstanceFigures => {
        const day = Math.floor(since / 86_400_000);
        const rest = figures.get() as Omit<InstanceFigures, 'clicksToday'>;
        return { ...rest, clicksToday: clicksToday.get(day, since)?.n ?? 0 };
      }),
      listBlockedHosts: (): BlockedHost[] => blocked.all(),
      addBlockedHost(host: BlockedHost): boolean {
        const added = block.run(host).changes > 0;
        if (added) queueMicrotask(blocklistChanged);
        return added;
      },
      removeBlockedHost(host: string): boolean {
        const removed = unblock.run(host).changes > 0;
        if (removed) queueMicrotask(blocklistChanged);
        return removed;
      },
    },
    finalize(): void {
      for (const statement of [
        standing,
        setAdmin,
        setDisabled,
        user,
        users,
        userCount,
        linkById,
        disableLink,
        figures,
        clicksToday,
        blocked,
        block,
        unblock,
      ]) {
        statement.finalize();
      }
      for (const { page, count } of searches.values()) {
        page.finalize();
        count.finalize();
      }
    },
  };
}
