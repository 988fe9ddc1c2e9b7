// Links on SQLite: made (under their owners' quota, with their link.created messages),
// listed in pages and chunks, found for redirects and `kurz import`, changed and
// removed, each in one transaction with its outbox messages. Reads of counts add the
// click log's tail to the counts file (click-counts.ts).

import type { Database } from 'bun:sqlite';
import { applyChanges } from '../link-changes.ts';
import { codeKey, insertWithQuota, newLinkKey, ownersWithQuota } from '../link-quota.ts';
import { createdDetail } from '../outbox.ts';
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
} from '../store.ts';
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';
import { writeTransaction } from './open.ts';
import { LINK_CLICK_TABLES } from './schema.ts';
import type { SqliteTags } from './tags.ts';
import type { SqliteWebhooks } from './webhooks.ts';

/**
 * Newest-first pages of links with their click counts, and the totals beside them.
 * The page is cut from the index first, and counts are joined to its rows only, so a
 * large OFFSET skips index entries rather than joining every skipped link.
 */
function linkLists(sqlite: Database) {
  const page = (where: string) => `${CLICKS_OF_LINKS},
    page AS (SELECT id FROM links ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?)
    SELECT l.id, l.user_id AS userId, l.domain_id AS domainId, l.original_url AS originalUrl,
           l.short_code AS shortCode, l.created_at AS createdAt, ${CLICKS_COLUMN}
    FROM page JOIN links l ON l.id = page.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  return {
    all: sqlite.prepare<Link, [number, number]>(page('')),
    ofUser: sqlite.prepare<Link, [number, number, number]>(page('WHERE user_id = ?')),
    totalAll: sqlite.prepare<{ n: number }, []>(
      'SELECT coalesce(sum(links), 0) AS n FROM link_totals',
    ),
    totalOfUser: sqlite.prepare<{ n: number }, [number]>(
      'SELECT coalesce(sum(links), 0) AS n FROM link_totals WHERE owner = ?',
    ),
  };
}

/**
 * The links after a cursor, newest first, with their counts: the next chunk of a streamed
 * list. The row-value comparison walks the same (created_at DESC, id DESC) indexes as the
 * pages, starting at the cursor rather than skipping to it.
 */
function linkChunks(sqlite: Database) {
  const chunk = (where: string) => `${CLICKS_OF_LINKS},
    chunk AS (SELECT id FROM links WHERE ${where}(created_at, id) < (?, ?)
              ORDER BY created_at DESC, id DESC LIMIT ?)
    SELECT l.id, l.user_id AS userId, l.domain_id AS domainId, l.original_url AS originalUrl,
           l.short_code AS shortCode, l.created_at AS createdAt, ${CLICKS_COLUMN}
    FROM chunk JOIN links l ON l.id = chunk.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  const details = (where: string) => `${CLICKS_OF_LINKS},
    chunk AS (SELECT id FROM links WHERE ${where}(created_at, id) < (?, ?)
              ORDER BY created_at DESC, id DESC LIMIT ?)
    SELECT l.id, l.user_id AS userId, l.domain_id AS domainId, l.original_url AS originalUrl,
           l.short_code AS shortCode, l.created_at AS createdAt, l.source,
           l.expires_at AS expiresAt, l.max_clicks AS maxClicks,
           l.limited_clicks AS limitedClicks, l.password_hash AS passwordHash, l.rules,
           l.variants, l.preview, l.disabled_at AS disabledAt,
           l.disabled_reason AS disabledReason, ${TAGS_COLUMN}, ${CLICKS_COLUMN}
    FROM chunk JOIN links l ON l.id = chunk.id ${CLICKS_JOINS}
    ORDER BY l.created_at DESC, l.id DESC`;
  return {
    all: sqlite.prepare<Link, [number, number, number]>(chunk('')),
    ofUser: sqlite.prepare<Link, [number, number, number, number]>(chunk('user_id = ? AND ')),
    details: sqlite.prepare<StoredDetail, [number, number, number]>(details('')),
    detailsOfUser: sqlite.prepare<StoredDetail, [number, number, number, number]>(
      details('user_id = ? AND '),
    ),
  };
}

/**
 * The links holding codes, or made at given times, for `kurz import`: a whole batch's
 * values go in as one JSON array (json_each), so one statement serves any batch size.
 * Each value is a probe of the code's unique index, or of links_user_newest.
 */
function codeHolders(sqlite: Database) {
  const columns = `domain_id AS domainId, short_code AS shortCode, user_id AS userId,
    original_url AS originalUrl, created_at AS createdAt`;
  return {
    byCodes: sqlite.prepare<CodeHolder, [number, string]>(
      `SELECT ${columns} FROM links
       WHERE domain_id = ? AND short_code IN (SELECT value FROM json_each(?))`,
    ),
    ownersAt: sqlite.prepare<CodeHolder, [number, string]>(
      `SELECT ${columns} FROM links
       WHERE user_id = ? AND created_at IN (SELECT value FROM json_each(?))`,
    ),
    protectedIds: sqlite.prepare<{ id: number }, [string]>(
      `SELECT id FROM links
       WHERE id IN (SELECT value FROM json_each(?)) AND password_hash IS NOT NULL`,
    ),
    noOnesAt: sqlite.prepare<CodeHolder, [string]>(
      `SELECT ${columns} FROM links
       WHERE user_id IS NULL AND created_at IN (SELECT value FROM json_each(?))`,
    ),
  };
}

/** A link's tags, as a JSON array in alphabetical order (StoredDetail's `tags`). */
export const TAGS_COLUMN = `(SELECT json_group_array(tag) FROM
  (SELECT tag FROM link_tags WHERE link_id = l.id ORDER BY tag)) AS tags`;

/** A LinkDetail as a row holds it: its tags as JSON text. */
export type StoredDetail = Omit<LinkDetail, 'tags'> & { tags: string };

/** The LinkDetail of a row read with TAGS_COLUMN. */
export function detailOf(row: StoredDetail): LinkDetail {
  return { ...row, tags: JSON.parse(row.tags) };
}

/** The columns of a LinkDetail, with the clicks the counts file and the log's tail hold. */
export const DETAIL_COLUMNS = `l.id, l.user_id AS userId, l.domain_id AS domainId,
  l.original_url AS originalUrl, l.short_code AS shortCode, l.created_at AS createdAt,
  l.source, l.expires_at AS expiresAt, l.max_clicks AS maxClicks,
  l.limited_clicks AS limitedClicks, l.password_hash AS passwordHash, l.rules, l.variants,
  l.preview, l.disabled_at AS disabledAt, l.disabled_reason AS disabledReason, ${TAGS_COLUMN},
  coalesce((SELECT clicks FROM counts.link_clicks WHERE link_id = l.id), 0)
  + (SELECT count(*) FROM clicks WHERE link_id = l.id
     AND id > (SELECT coalesce(max(through), 0) FROM counts.rollup)) AS clicks`;

/** Writes a link's tags: the whole set, replacing any before it. */
function linkTagWriter(sqlite: Database) {
  const clear = sqlite.prepare<unknown, [number]>('DELETE FROM link_tags WHERE link_id = ?');
  const add = sqlite.prepare<unknown, [number, string]>(
    'INSERT OR IGNORE INTO link_tags (link_id, tag) VALUES (?, ?)',
  );
  return {
    /** Adds the tags of a link just made (it has none yet). */
    add(linkId: number, tags: readonly string[] | undefined): void {
      for (const tag of tags ?? []) add.run(linkId, tag);
    },
    replace(linkId: number, tags: readonly string[]): void {
      clear.run(linkId);
      for (const tag of tags) add.run(linkId, tag);
    },
    statements: [clear, add],
  };
}

type LinkTagWriter = ReturnType<typeof linkTagWriter>;

/**
 * Reading, changing and removing one link. A removed link's rows of the counts file
 * stay (a few bytes; ids are never reused): writing that file here would wait on the
 * rollup's open transaction there.
 */
function linkManagement(
  sqlite: Database,
  hooks: SqliteWebhooks,
  tags: LinkTagWriter,
  tagDays: SqliteTags,
) {
  const byCode = sqlite.prepare<StoredDetail, [number, string]>(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.domain_id = ? AND l.short_code = ?`,
  );
  const byId = sqlite.prepare<StoredDetail, [number]>(
    `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = ?`,
  );
  const detailById = (id: number): LinkDetail | undefined => {
    const row = byId.get(id);
    return row === null ? undefined : detailOf(row);
  };
  const write = sqlite.prepare<
    unknown,
    [
      string,
      number | null,
      number | null,
      number,
      string | null,
      string | null,
      string | null,
      string | null,
      number,
    ]
  >(
    `UPDATE links SET original_url = ?, expires_at = ?, max_clicks = ?, limited_clicks = ?,
       password_hash = ?, rules = ?, variants = ?, preview = ? WHERE id = ?`,
  );
  const removals = [
    'DELETE FROM links WHERE id = ?',
    ...LINK_CLICK_TABLES.map((table) => `DELETE FROM ${table} WHERE link_id = ?`),
  ].map((text) => sqlite.prepare<unknown, [number]>(text));
  /** Removes a link and what belongs to it, telling its webhooks of it as it was. */
  const removeOne = (id: number, now: number): boolean => {
    const gone = detailById(id);
    if (gone === undefined) return false;
    hooks.linkEvent('link.deleted', gone, now);
    tagDays.moveLink(id, gone.userId, gone.tags, []);
    for (const statement of removals) statement.run(id);
    return true;
  };
  return {
    byCode(domainId: number, code: string): LinkDetail | undefined {
      const row = byCode.get(domainId, code);
      return row === null ? undefined : detailOf(row);
    },
    update: writeTransaction(sqlite, (id: number, changes: LinkChanges): LinkDetail | undefined => {
      const current = detailById(id);
      if (current === undefined) return undefined;
      const next = applyChanges(current, changes);
      write.run(
        next.originalUrl,
        next.expiresAt,
        next.maxClicks,
        next.limitedClicks,
        next.passwordHash,
        next.rules,
        next.variants,
        next.preview,
        id,
      );
      if (changes.tags !== undefined) {
        tagDays.moveLink(id, next.userId, current.tags, next.tags);
        tags.replace(id, next.tags);
      }
      hooks.linkEvent('link.updated', next, Date.now());
      return next;
    }),
    remove: writeTransaction(sqlite, (id: number): boolean => removeOne(id, Date.now())),
    /** Removes links inside a transaction of the caller's. */
    removeOne,
    finalize() {
      for (const statement of [byCode, byId, write, ...removals]) statement.finalize();
    },
  };
}

/**
 * Rows per INSERT, largest first. A statement's run has a fixed cost beside its rows (its
 * trigger program, its RETURNING table) that was most of a link's insert: a thousand
 * links took about 50 ms one statement each, 15 ms a hundred a statement (1,000
 * parameters), measured on the 2-vCPU VM. A batch is cut into as many of the largest as
 * fit, then smaller ones.
 */
const ROWS_PER_INSERT = [100, 10, 1] as const;

type LinkRow = [
  number | null,
  number,
  string,
  string,
  string | null,
  number,
  number | null,
  number | null,
  number,
  string | null,
  string | null,
  string | null,
  string | null,
  number | null,
  string | null,
];

function rowOf(link: NewLink): LinkRow {
  return [
    link.userId,
    link.domainId ?? DEFAULT_DOMAIN,
    link.originalUrl,
    link.shortCode,
    link.source,
    link.createdAt,
    link.expiresAt ?? null,
    link.maxClicks ?? null,
    link.limitedClicks ?? 0,
    link.passwordHash ?? null,
    link.rules ?? null,
    link.variants ?? null,
    link.preview ?? null,
    link.disabledAt ?? null,
    link.disabledReason ?? null,
  ];
}

/** Inserts of links, several rows a statement; a code already taken makes no row (no error). */
function linkInserts(sqlite: Database) {
  const statements = ROWS_PER_INSERT.map((rows) =>
    sqlite.prepare<{ id: number; domainId: number; shortCode: string }, LinkRow[number][]>(
      `INSERT INTO links (user_id, domain_id, original_url, short_code, source, created_at,
         expires_at, max_clicks, limited_clicks, password_hash, rules, variants, preview,
         disabled_at, disabled_reason)
       VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (domain_id, short_code) DO NOTHING
       RETURNING id, domain_id AS domainId, short_code AS shortCode`,
    ),
  );
  // The links just made enter the search index (link_search, migration 0009) in one
  // statement: the ids an insert gives run from the largest before it upwards, and one
  // process writes the file, so every id from the first made to the last is one of them.
  const index = sqlite.prepare<unknown, [number, number]>(
    `INSERT INTO link_search (rowid, short_code, original_url)
     SELECT id, short_code, original_url FROM links WHERE id BETWEEN ? AND ?`,
  );
  return {
    statements: [...statements, index],
    /** The ids of the links made (in the batch's order, so ids rise with it), by codeKey; indexed for search. */
    insert(batch: readonly NewLink[]): Map<string, number> {
      const made = new Map<string, number>();
      let first = Number.POSITIVE_INFINITY;
      let last = 0;
      let at = 0;
      ROWS_PER_INSERT.forEach((rows, i) => {
        const statement = statements[i] as (typeof statements)[number];
        for (; at + rows <= batch.length; at += rows) {
          const values = batch.slice(at, at + rows).flatMap(rowOf);
          for (const row of statement.all(...values)) {
            made.set(codeKey(row.domainId, row.shortCode), row.id);
            if (row.id < first) first = row.id;
            if (row.id > last) last = row.id;
          }
        }
      });
      if (made.size > 0) index.run(first, last);
      return made;
    },
  };
}

/** The link operations of the store; the façade runs each through its guards. */
export function sqliteLinks(sqlite: Database, hooks: SqliteWebhooks, tagDays: SqliteTags) {
  const lists = linkLists(sqlite);
  const tags = linkTagWriter(sqlite);
  const manage = linkManagement(sqlite, hooks, tags, tagDays);
  // Prepared on first use: most runs never stream a whole list or import.
  let chunks: ReturnType<typeof linkChunks> | undefined;
  let holders: ReturnType<typeof codeHolders> | undefined;
  const inserts = linkInserts(sqlite);
  const linkByCode = sqlite.prepare<RedirectTarget, [number, string]>(
    `SELECT l.id, l.user_id AS userId, l.original_url AS originalUrl, l.source,
       l.expires_at AS expiresAt, l.max_clicks AS maxClicks, l.limited_clicks AS limitedClicks,
       l.password_hash AS passwordHash, l.rules, l.variants, l.preview,
       l.disabled_at AS disabledAt, l.disabled_reason AS disabledReason,
       u.created_at AS ownerSince
     FROM links l LEFT JOIN users u ON u.id = l.user_id
     WHERE l.domain_id = ? AND l.short_code = ?`,
  );

  /** Inserts links with distinct codes, each with its tags and link.created messages; the ids made. */
  const insertRows = (batch: readonly NewLink[], now: number): Map<string, number> => {
    const made = inserts.insert(batch);
    const kept: [NewLink, number][] = [];
    for (const link of batch) {
      const id = made.get(newLinkKey(link));
      if (id === undefined) continue;
      tags.add(id, link.tags);
      kept.push([link, id]);
    }
    hooks.linksCreated(
      kept,
      ([link]) => link.userId,
      ([link, id]) => createdDetail(link, id),
      now,
    );
    return made;
  };

  const operations = {
    // The quota is read from link_totals inside the inserting transaction; one process
    // writes a SQLite database, so concurrent creates cannot pass it together.
    createLinks: writeTransaction(sqlite, (batch: readonly NewLink[]): CreatedLink[] => {
      const now = Date.now();
      const owned = new Map<number, number>();
      for (const owner of ownersWithQuota(batch)) {
        owned.set(owner, lists.totalOfUser.get(owner)?.n ?? 0);
      }
      const steps = insertWithQuota(batch, owned);
      let step = steps.next();
      while (!step.done) step = steps.next(insertRows(step.value, now));
      return step.value;
    }),

    // A page and its total are read in one transaction, so they agree with each other.
    listLinks: sqlite.transaction(({ owner, limit, offset }: LinkQuery): LinkPage => {
      // LIMIT -1 is SQLite for "no limit".
      const rows = limit ?? -1;
      if (owner === null) {
        return { links: lists.all.all(rows, offset), total: lists.totalAll.get()?.n ?? 0 };
      }
      return {
        links: lists.ofUser.all(owner, rows, offset),
        total: lists.totalOfUser.get(owner)?.n ?? 0,
      };
    }),

    listLinksAfter({ owner, after, limit }: LinkChunkQuery): Link[] {
      chunks ??= linkChunks(sqlite);
      return owner === null
        ? chunks.all.all(after.createdAt, after.id, limit)
        : chunks.ofUser.all(owner, after.createdAt, after.id, limit);
    },

    listLinkDetailsAfter({ owner, after, limit }: LinkChunkQuery): LinkDetail[] {
      chunks ??= linkChunks(sqlite);
      const rows =
        owner === null
          ? chunks.details.all(after.createdAt, after.id, limit)
          : chunks.detailsOfUser.all(owner, after.createdAt, after.id, limit);
      return rows.map(detailOf);
    },

    findLinksByCodes(codes: readonly string[], domainId = DEFAULT_DOMAIN): CodeHolder[] {
      holders ??= codeHolders(sqlite);
      return holders.byCodes.all(domainId, JSON.stringify(codes));
    },

    protectedLinkIds(ids: readonly number[]): number[] {
      holders ??= codeHolders(sqlite);
      return holders.protectedIds.all(JSON.stringify(ids)).map((row) => row.id);
    },

    findLinksCreatedAt(owner: number | null, times: readonly number[]): CodeHolder[] {
      holders ??= codeHolders(sqlite);
      const at = JSON.stringify(times);
      return owner === null ? holders.noOnesAt.all(at) : holders.ownersAt.all(owner, at);
    },

    findLinkByCode: (code: string, domainId = DEFAULT_DOMAIN): RedirectTarget | undefined =>
      linkByCode.get(domainId, code) ?? undefined,
    findLinkDetail: (code: string, domainId = DEFAULT_DOMAIN): LinkDetail | undefined =>
      manage.byCode(domainId, code),
    updateLink: (id: number, changes: LinkChanges) => manage.update(id, changes),
    deleteLink: (id: number) => manage.remove(id),
  };
  return {
    operations,
    /** Removes a link inside the caller's transaction (a domain's removal). */
    removeLink: manage.removeOne,
    /** Finalizes its statements, so the file really closes. */
    finalize(): void {
      const statements = [
        ...inserts.statements,
        linkByCode,
        ...tags.statements,
        ...Object.values(lists),
        ...Object.values(chunks ?? {}),
        ...Object.values(holders ?? {}),
      ];
      for (const statement of statements) statement.finalize();
      manage.finalize();
    },
  };
}
