// Searching the links on PostgreSQL (GET /api/links's filters and orders): one statement
// reads the page and the total from one snapshot, as listLinks does; its text is made
// once per shape of search, so the client prepares it once. The page is cut first and
// only its rows get their counts and settings.
//
// PostgreSQL's statistics know how common a tag or an owner is, so the planner chooses
// between walking the order's index and gathering the few links a filter names; ordered
// by clicks, the walk is over link_click_order (see schema.ts), which the analytics
// rollup keeps, so the order lags the newest clicks by the rollup's second. The clicks
// shown are the exact sums of link_clicks.

import type { SQL } from 'bun';
import {
  type FoundLinks,
  foundLinks,
  type Keyed,
  type LinkSearch,
  type SearchShape,
  searchValues,
  shapeKey,
  shapeOf,
} from '../link-search.ts';
import type { Link, LinkDetail } from '../store.ts';

const LINK_COLUMNS = `l.id, l.user_id AS "userId", l.domain_id AS "domainId",
  l.original_url AS "originalUrl", l.short_code AS "shortCode", l.created_at AS "createdAt",
  (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks`;
const DETAIL_COLUMNS = `${LINK_COLUMNS}, l.source, l.expires_at AS "expiresAt",
  l.max_clicks AS "maxClicks", l.limited_clicks AS "limitedClicks",
  l.password_hash AS "passwordHash",
  ARRAY(SELECT t.tag FROM link_tags t WHERE t.link_id = l.id ORDER BY t.tag) AS tags`;

/** "Contains the text, or has it as a tag": the pattern is escaped by containsPattern. */
const TEXT_MATCH = `(l.short_code ILIKE $pattern ESCAPE '\\' OR l.original_url ILIKE $pattern ESCAPE '\\'
  OR EXISTS (SELECT 1 FROM link_tags tt WHERE tt.link_id = l.id AND tt.tag = $textTag))`;

function conditions(shape: SearchShape): string[] {
  const where: string[] = [];
  if (shape.owner) where.push('l.user_id = $owner');
  if (shape.domain) where.push('l.domain_id = $domain');
  if (shape.tag) {
    where.push('EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = $tag)');
  }
  if (shape.text) where.push(TEXT_MATCH);
  return where;
}

const clause = (where: readonly string[]) =>
  where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;

/** How many links a shape lets through. */
function countSql(shape: SearchShape): string {
  if (!shape.text && !shape.domain && !shape.tag) {
    return shape.owner
      ? 'SELECT coalesce(sum(links), 0) FROM link_totals WHERE owner = $owner'
      : 'SELECT coalesce(sum(links), 0) FROM link_totals';
  }
  // Tags are removed with their link: the tag's index alone counts its links.
  if (shape.tag && !shape.owner && !shape.text && !shape.domain) {
    return 'SELECT count(*) FROM link_tags WHERE tag = $tag';
  }
  return `SELECT count(*) FROM links l ${clause(conditions(shape))}`;
}

/** Each order: what it sorts by (and compares a cursor's key with), and what it walks. */
const ORDERS = {
  created: { key: 'l.created_at', cursor: '$key::bigint', from: 'links l' },
  // Code bytes, as SQLite compares them: links_code is in collation C.
  code: { key: 'l.short_code COLLATE "C"', cursor: '$key::text', from: 'links l' },
  clicks: {
    key: 'o.clicks',
    cursor: '$key::bigint',
    from: 'link_click_order o JOIN links l ON l.id = o.link_id',
  },
};

/** The page's ids and sort keys, then its links (or details) with their counts, in order. */
function pageSql(shape: SearchShape, details: boolean): string {
  const order = ORDERS[shape.sort];
  const dir = shape.descending ? 'DESC' : 'ASC';
  const where = conditions(shape);
  if (shape.after) {
    where.push(`(${order.key}, l.id) ${shape.descending ? '<' : '>'} (${order.cursor}, $id::int)`);
  }
  const key = shape.sort === 'code' ? 'p."sortKey" COLLATE "C"' : 'p."sortKey"';
  return `SELECT json_agg(p ORDER BY ${key} ${dir}, p.id ${dir}) FROM (
      SELECT ${details ? DETAIL_COLUMNS : LINK_COLUMNS}, page."sortKey"
      FROM (SELECT l.id, ${shape.sort === 'code' ? 'l.short_code' : order.key} AS "sortKey"
            FROM ${order.from} ${clause(where)}
            ORDER BY ${order.key} ${dir}, l.id ${dir} LIMIT $limit OFFSET $offset) page
      JOIN links l ON l.id = page.id
    ) p`;
}

/** A statement's text with `$name`s numbered, and the names in their order. */
interface Numbered {
  text: string;
  names: string[];
}

function numbered(sql: string): Numbered {
  const names: string[] = [];
  const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
    let n = names.indexOf(name);
    if (n === -1) n = names.push(name) - 1;
    return `$${n + 1}`;
  });
  return { text, names };
}

/** Searches over the pool; each shape's text is made once. */
export class PostgresLinkSearch {
  private readonly statements = new Map<string, Numbered>();

  constructor(private readonly client: SQL) {}

  searchLinks(search: LinkSearch): Promise<FoundLinks<Link>> {
    return this.read<Link>(search, false);
  }

  searchLinkDetails(search: LinkSearch): Promise<FoundLinks<LinkDetail>> {
    return this.read<LinkDetail>(search, true);
  }

  private async read<L>(search: LinkSearch, details: boolean): Promise<FoundLinks<L>> {
    const shape = shapeOf(search);
    const key = shapeKey(shape, details);
    let statement = this.statements.get(key);
    if (statement === undefined) {
      const total = shape.after ? 'NULL' : `(${countSql(shape)})::float8`;
      statement = numbered(`SELECT ${total} AS total, (${pageSql(shape, details)}) AS links`);
      this.statements.set(key, statement);
    }
    const values: Record<string, string | number> = {
      ...searchValues(search),
      limit: search.limit,
      offset: search.offset ?? 0,
    };
    if (search.after !== undefined) {
      values.key = search.after.key;
      values.id = search.after.id;
    }
    const [row]: { total: number | null; links: Keyed<L>[] | null }[] = await this.client.unsafe(
      statement.text,
      statement.names.map((name) => values[name]),
    );
    return foundLinks(row?.links ?? [], row?.total ?? undefined);
  }
}
