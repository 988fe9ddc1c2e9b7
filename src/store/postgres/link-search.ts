// Searching the links on PostgreSQL (GET /api/links's filters and orders): one statement
// reads the page and the total from one snapshot, as listLinks does; its text is made
// once per shape of search, so the client prepares it once. The page is cut first and
// only its rows get their counts and settings.
//
// Which links a page starts from is chosen as on SQLite (store/link-search.ts), from
// sizes read first: the owner's, the domain's and the tag's from the totals triggers
// keep, a rare text's links through the trigram indexes of pg_trgm (when it could be
// installed). The planner's statistics alone walked an order far past its estimate when
// a filter and the order go together (a user whose links are rarely clicked). Ordered
// by clicks, the walk is over link_click_order (see schema.ts), which the analytics
// rollup keeps, so the order lags the newest clicks by the rollup's second. The clicks
// shown are the exact sums of link_clicks.

import type { SQL } from 'bun';
import {
  countDriver,
  countLimit,
  type Driver,
  type FilterSizes,
  type FoundLinks,
  foundLinks,
  type Keyed,
  type LinkSearch,
  matchesBound,
  pageDriver,
  RARE_TEXT,
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
  l.password_hash AS "passwordHash", l.rules, l.variants, l.preview,
  l.disabled_at AS "disabledAt", l.disabled_reason AS "disabledReason",
  ARRAY(SELECT t.tag FROM link_tags t WHERE t.link_id = l.id ORDER BY t.tag) AS tags`;

/**
 * "Contains the text, or has it as a tag": the pattern is escaped by containsPattern, `\`
 * being PostgreSQL's escape already. Checked on each link a page or count passes; the
 * few links holding a rare text are gathered through the trigram indexes (NAMED).
 */
const TEXT_MATCH = `(l.short_code ILIKE $pattern OR l.original_url ILIKE $pattern
  OR EXISTS (SELECT 1 FROM link_tags tt WHERE tt.link_id = l.id AND tt.tag = $textTag))`;

/** What each link must meet; a tag's own links (driver `tag`) need not be checked for it. */
function conditions(shape: SearchShape, driver: Driver): string[] {
  const where: string[] = [];
  if (shape.owner) where.push('l.user_id = $owner');
  if (shape.domain) where.push('l.domain_id = $domain');
  if (shape.tag && driver !== 'tag') {
    where.push('EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = $tag)');
  }
  if (shape.text) where.push(TEXT_MATCH);
  return where;
}

const clause = (where: readonly string[]) =>
  where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;

/**
 * The ids of the links each named driver starts from. OFFSET 0 keeps the planner from
 * merging them into the query, which it would then walk in order after all: its
 * statistics cannot see that an owner's or a tag's links are few among the first of an
 * order (they are independent of it no more than the data makes them).
 */
const NAMED: Record<Exclude<Driver, 'walk'>, string> = {
  owner: '(SELECT id FROM links WHERE user_id = $owner OFFSET 0)',
  domain: '(SELECT id FROM links WHERE domain_id = $domain OFFSET 0)',
  tag: '(SELECT link_id AS id FROM link_tags WHERE tag = $tag OFFSET 0)',
  // A rare text's links, found once through the trigram indexes by sizesSql (a moment
  // before the page: a link made in between waits for the next request).
  text: '(SELECT unnest($textIds::int[]) AS id)',
};

/**
 * A tag's links for a page, gathered into an array and unnested: a set whose size the
 * planner does not know (it takes ten), so it looks each link up by its id. Counting
 * a tag's ten thousand links right, it would rather hash them against a scan of every
 * link (160 ms on a million, against 20). A count reads the tag's links as NAMED does,
 * so that its LIMIT stops the read early.
 */
const GATHERED_TAG = '(SELECT unnest(ARRAY(SELECT link_id FROM link_tags WHERE tag = $tag)) AS id)';

/**
 * The links a driver starts from, as `l` (and `o`, the order by clicks). When the caller
 * reads no more of a link than its id and no filter is left to check (`idsOnly`), a
 * driver's ids are the links themselves (a tag's go with their link), and no link is
 * looked up: a tag's ten thousand links sorted by clicks are only their places in the order.
 */
function source(driver: Driver, sort: SearchShape['sort'], idsOnly = false, page = false): string {
  const order = sort === 'clicks' ? ' JOIN link_click_order o ON o.link_id = l.id' : '';
  if (driver === 'walk') return `links l${order}`;
  const ids = page && driver === 'tag' ? GATHERED_TAG : NAMED[driver];
  if (idsOnly) return `${ids} l${order}`;
  return `${ids} m JOIN links l ON l.id = m.id${order}`;
}

/** How many links a shape lets through. */
function countSql(shape: SearchShape, driver: Driver): string {
  if (!shape.text && !shape.domain && !shape.tag) {
    return shape.owner
      ? 'SELECT coalesce(sum(links), 0) FROM link_totals WHERE owner = $owner'
      : 'SELECT coalesce(sum(links), 0) FROM link_totals';
  }
  // One domain's or one tag's: the totals the triggers of migration 0008 keep.
  if (shape.domain && !shape.owner && !shape.text && !shape.tag) {
    return 'SELECT coalesce(sum(links), 0) FROM domain_totals WHERE domain_id = $domain';
  }
  if (shape.tag && !shape.owner && !shape.text && !shape.domain) {
    return 'SELECT coalesce(sum(links), 0) FROM tag_totals WHERE tag = $tag';
  }
  const where = conditions(shape, driver);
  const matching = `${source(driver, 'created', where.length === 0)} ${clause(where)}`;
  // A text's matches are counted up to $countLimit (countLimit, one past its bound).
  if (shape.text) return `SELECT count(*) FROM (SELECT 1 FROM ${matching} LIMIT $countLimit) c`;
  return `SELECT count(*) FROM ${matching}`;
}

/**
 * Each order: what it sorts by, then by which id (the columns of the index it walks, so
 * a cursor's comparison starts the walk where it stopped), and what a cursor's key is.
 */
const ORDERS = {
  created: { key: 'l.created_at', id: 'l.id', cursor: '$key::bigint' },
  // Code bytes, as SQLite compares them: links_code is in collation C.
  code: { key: 'l.short_code COLLATE "C"', id: 'l.id', cursor: '$key::text' },
  clicks: { key: 'o.clicks', id: 'o.link_id', cursor: '$key::bigint' },
};

/** The page's ids and sort keys, then its links (or details) with their counts, in order. */
function pageSql(shape: SearchShape, driver: Driver, details: boolean): string {
  const order = ORDERS[shape.sort];
  const dir = shape.descending ? 'DESC' : 'ASC';
  const where = conditions(shape, driver);
  // Sorted by clicks, the page reads only ids and places in the order.
  const idsOnly = shape.sort === 'clicks' && where.length === 0;
  if (shape.after) {
    const cmp = shape.descending ? '<' : '>';
    where.push(`(${order.key}, ${order.id}) ${cmp} (${order.cursor}, $id::int)`);
  }
  const key = shape.sort === 'code' ? 'p."sortKey" COLLATE "C"' : 'p."sortKey"';
  return `SELECT json_agg(p ORDER BY ${key} ${dir}, p.id ${dir}) FROM (
      SELECT ${details ? DETAIL_COLUMNS : LINK_COLUMNS}, page."sortKey"
      FROM (SELECT l.id, ${shape.sort === 'code' ? 'l.short_code' : order.key} AS "sortKey"
            FROM ${source(driver, shape.sort, idsOnly, true)} ${clause(where)}
            ORDER BY ${order.key} ${dir}, ${order.id} ${dir} LIMIT $limit OFFSET $offset) page
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

/** The sizes of a search's filters, in one statement (`$name`s as the search's). */
function sizesSql(search: LinkSearch, text: boolean): string {
  const parts = ['(SELECT coalesce(sum(links), 0) FROM link_totals)::float8 AS links'];
  if (search.owner !== null) {
    parts.push(
      '(SELECT coalesce(sum(links), 0) FROM link_totals WHERE owner = $owner)::float8 AS owner',
    );
  }
  if (search.domainId !== undefined) {
    parts.push(
      '(SELECT coalesce(sum(links), 0) FROM domain_totals WHERE domain_id = $domain)::float8 AS domain',
    );
  }
  if (search.tag !== undefined) {
    parts.push('(SELECT coalesce(sum(links), 0) FROM tag_totals WHERE tag = $tag)::float8 AS tag');
  }
  // The links holding the text or having it as a tag, up to past RARE_TEXT: when they are
  // no more, the page and the total are read from them, without the indexes again.
  if (text) {
    // Each part is cut before the two are merged, so a common text stops early.
    parts.push(`ARRAY(
      SELECT id FROM (SELECT id FROM links
                      WHERE short_code ILIKE $pattern OR original_url ILIKE $pattern
                      LIMIT ${RARE_TEXT + 1}) x
      UNION SELECT link_id FROM (SELECT link_id FROM link_tags WHERE tag = $textTag
                                 LIMIT ${RARE_TEXT + 1}) y) AS "textIds"`);
  }
  return `SELECT ${parts.join(', ')}`;
}

/** Searches over the pool; each statement's text is made once. */
export class PostgresLinkSearch {
  private readonly statements = new Map<string, Numbered>();
  /** Whether migration 0008 could make the trigram indexes (pg_trgm installed). */
  private trigramIndexes: Promise<boolean> | undefined;

  constructor(private readonly client: SQL) {}

  searchLinks(search: LinkSearch): Promise<FoundLinks<Link>> {
    return this.read<Link>(search, false);
  }

  searchLinkDetails(search: LinkSearch): Promise<FoundLinks<LinkDetail>> {
    return this.read<LinkDetail>(search, true);
  }

  private statement(key: string, sql: () => string): Numbered {
    let statement = this.statements.get(key);
    if (statement === undefined) {
      statement = numbered(sql());
      this.statements.set(key, statement);
    }
    return statement;
  }

  private async run<Row>(statement: Numbered, values: Record<string, unknown>): Promise<Row[]> {
    return this.client.unsafe(
      statement.text,
      statement.names.map((name) => values[name]),
    );
  }

  /** Whether a text can be looked up in the trigram indexes: 3 characters, and the indexes. */
  private async indexed(text: string | undefined): Promise<boolean> {
    if (text === undefined || [...text].length < 3) return false;
    this.trigramIndexes ??= this.client`
      SELECT EXISTS (SELECT 1 FROM pg_indexes
                     WHERE schemaname = current_schema() AND indexname = 'links_url_trgm') AS present`
      .then((rows: { present: boolean }[]) => rows[0]?.present === true)
      .catch((error: unknown) => {
        this.trigramIndexes = undefined;
        throw error;
      });
    return this.trigramIndexes;
  }

  private async read<L>(search: LinkSearch, details: boolean): Promise<FoundLinks<L>> {
    const shape = shapeOf(search);
    const values: Record<string, string | number | number[]> = {
      ...searchValues(search),
      limit: search.limit,
      offset: search.offset ?? 0,
    };
    if (search.after !== undefined) {
      values.key = search.after.key;
      values.id = search.after.id;
    }
    const counting = countLimit(search);
    if (counting !== undefined) values.countLimit = counting + 1;
    const text = await this.indexed(search.text);
    const named =
      search.owner !== null || search.domainId !== undefined || search.tag !== undefined || text;
    let sizes: FilterSizes = { links: 0 };
    if (named) {
      const key = `sizes:${shape.owner}:${shape.domain}:${shape.tag}:${text}`;
      const [row] = await this.run<FilterSizes & { textIds?: number[] }>(
        this.statement(key, () => sizesSql(search, text)),
        values,
      );
      const { textIds, ...counted }: FilterSizes & { textIds?: number[] } = row ?? sizes;
      sizes = counted;
      if (textIds !== undefined) {
        sizes.text = textIds.length;
        values.textIds = textIds;
      }
    }
    const count = named ? countDriver(sizes) : 'walk';
    const page = named ? pageDriver(search, sizes, matchesBound(sizes)) : 'walk';
    const statement = this.statement(shapeKey(shape, details, count, page), () => {
      const total = shape.after ? 'NULL' : `(${countSql(shape, count)})::float8`;
      return `SELECT ${total} AS total, (${pageSql(shape, page, details)}) AS links`;
    });
    const [row] = await this.run<{ total: number | null; links: Keyed<L>[] | null }>(
      statement,
      values,
    );
    return foundLinks(row?.links ?? [], row?.total ?? undefined, counting);
  }
}
