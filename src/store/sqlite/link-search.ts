// Searching the links on SQLite (GET /api/links's filters and orders): a statement per
// shape of search and driver (store/link-search.ts), prepared on first use. The page is
// cut first and only its rows are joined to their counts and settings, as in links.ts.
//
// Click counts live in the counts file (click-counts.ts), where a link has a row only
// once a click of it was rolled up. Ordered by clicks, a walk is therefore two walks: the
// counts' index on clicks (links with a row), and the links without one (0 clicks) by id;
// each in order, one after the other. The order uses the rolled-up counts, so it lags
// the newest clicks by the rollup's second; the clicks shown add the log's tail.
//
// SQLite keeps no statistics of how common a tag or a text is: the store reads what it
// needs to choose (the owner's links in link_totals, the domain's and the tag's in
// their indexes, a text's in the trigram index link_search of migration 0008, up to
// RARE_TEXT) in the same read transaction as the page. A common text has no cheaper way to its total than checking
// every link.

import type { Database, Statement } from 'bun:sqlite';
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
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';
import { detailOf, type StoredDetail, TAGS_COLUMN } from './links.ts';

/** Larger than any id: the bound of a walk that has not started. */
const NO_BOUND = Number.MAX_SAFE_INTEGER;

/** Trigrams of a text looked up in link_search: more narrow the links little further. */
const TRIGRAMS = 8;

const LINK_COLUMNS = `l.id, l.user_id AS userId, l.domain_id AS domainId,
  l.original_url AS originalUrl, l.short_code AS shortCode, l.created_at AS createdAt`;
const DETAIL_COLUMNS = `${LINK_COLUMNS}, l.source, l.expires_at AS expiresAt,
  l.max_clicks AS maxClicks, l.limited_clicks AS limitedClicks,
  l.password_hash AS passwordHash, l.rules, l.variants, l.preview,
  l.disabled_at AS disabledAt, l.disabled_reason AS disabledReason, ${TAGS_COLUMN}`;

/** "Contains the text, or has it as a tag": the pattern is escaped by containsPattern. */
const TEXT_MATCH = `(l.short_code LIKE $pattern ESCAPE '\\' OR l.original_url LIKE $pattern ESCAPE '\\'
  OR EXISTS (SELECT 1 FROM link_tags tt WHERE tt.link_id = l.id AND tt.tag = $textTag))`;

/**
 * The ids of the links each driver starts from: CROSS JOIN keeps the order written, so
 * they are the outer loop. A text's are a superset (they hold its trigrams), each
 * checked against TEXT_MATCH.
 */
const NAMED: Record<Exclude<Driver, 'walk'>, string> = {
  owner: '(SELECT id FROM links WHERE user_id = $owner)',
  domain: '(SELECT id FROM links WHERE domain_id = $domain)',
  tag: '(SELECT link_id AS id FROM link_tags WHERE tag = $tag)',
  text: `(SELECT rowid AS id FROM link_search WHERE link_search MATCH $trigrams
          UNION SELECT link_id FROM link_tags WHERE tag = $textTag)`,
};

/**
 * Where the links of a shape come from (as `l`), and what each must meet. `columns`: the
 * caller reads more of a link than its id. When it does not and no filter is left to
 * check, a driver's ids are the links themselves (a tag's go with their link), and no
 * link is looked up: a tag's ten thousand links sorted by clicks are only their counts.
 */
function source(
  shape: SearchShape,
  driver: Driver,
  columns = true,
): { from: string; where: string[] } {
  const where: string[] = [];
  if (shape.owner) where.push('l.user_id = $owner');
  if (shape.domain) where.push('l.domain_id = $domain');
  if (shape.tag && driver !== 'tag') {
    where.push('EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = $tag)');
  }
  if (shape.text) where.push(TEXT_MATCH);
  if (driver === 'walk') return { from: 'links l', where };
  const idsOnly = !columns && where.length === 0;
  const from = idsOnly
    ? `${NAMED[driver]} l`
    : `${NAMED[driver]} m CROSS JOIN links l ON l.id = m.id`;
  return { from, where };
}

const clause = (where: readonly string[]) =>
  where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;

/** How many links a shape lets through. */
function countSql(shape: SearchShape, driver: Driver): string {
  if (!shape.text && !shape.domain && !shape.tag) {
    return shape.owner
      ? 'SELECT coalesce(sum(links), 0) AS n FROM link_totals WHERE owner = $owner'
      : 'SELECT coalesce(sum(links), 0) AS n FROM link_totals';
  }
  // Tags are removed with their link: the tag's index alone counts its links.
  if (shape.tag && !shape.owner && !shape.text && !shape.domain) {
    return 'SELECT count(*) AS n FROM link_tags WHERE tag = $tag';
  }
  const { from, where } = source(shape, driver, false);
  // A text's matches are counted up to $countLimit (countLimit, one past its bound).
  if (shape.text) {
    return `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} ${clause(where)} LIMIT $countLimit)`;
  }
  return `SELECT count(*) AS n FROM ${from} ${clause(where)}`;
}

/** The ids and sort keys of a page in one order (created, code, or clicks sorted here). */
function orderedPage(shape: SearchShape, driver: Driver): string {
  // Sorted by clicks, the page reads only ids and counts.
  const { from, where } = source(shape, driver, shape.sort !== 'clicks');
  // Walked by code, the code's index (migration 0009) is named: with a domain or an
  // owner given, the planner would take that filter's own index and sort all its links.
  const index = driver === 'walk' && shape.sort === 'code' ? 'INDEXED BY links_code_domain' : '';
  const dir = shape.descending ? 'DESC' : 'ASC';
  const key = { created: 'l.created_at', code: 'l.short_code', clicks: 'coalesce(k.clicks, 0)' }[
    shape.sort
  ];
  const counts =
    shape.sort === 'clicks' ? 'LEFT JOIN counts.link_clicks k ON k.link_id = l.id' : '';
  if (shape.after) where.push(`(${key}, l.id) ${shape.descending ? '<' : '>'} ($key, $id)`);
  return `SELECT l.id, ${key} AS sortKey FROM ${from} ${index} ${counts} ${clause(where)}
    ORDER BY ${key} ${dir}, l.id ${dir} LIMIT $limit OFFSET $offset`;
}

/** The ids and rolled-up clicks of a page walked by clicks: links with counts, then none. */
function clicksWalk(shape: SearchShape): string {
  const dir = shape.descending ? 'DESC' : 'ASC';
  const cmp = shape.descending ? '<' : '>';
  const counted = source(shape, 'walk').where;
  counted.unshift('k.clicks > 0');
  if (shape.after) counted.push(`(k.clicks, k.link_id) ${cmp} ($key, $id)`);
  const uncounted = source(shape, 'walk').where;
  uncounted.push(
    'NOT EXISTS (SELECT 1 FROM counts.link_clicks z WHERE z.link_id = l.id AND z.clicks > 0)',
    `l.id ${cmp} $idBound`,
  );
  const withCounts = `SELECT * FROM (SELECT k.link_id AS id, k.clicks AS sortKey
    FROM counts.link_clicks k JOIN links l ON l.id = k.link_id ${clause(counted)}
    ORDER BY k.clicks ${dir}, k.link_id ${dir})`;
  const withNone = `SELECT * FROM (SELECT l.id, 0 AS sortKey FROM links l ${clause(uncounted)}
    ORDER BY l.id ${dir})`;
  // Each walk keeps its order; UNION ALL runs them one after the other, until the page is full.
  const [first, second] = shape.descending ? [withCounts, withNone] : [withNone, withCounts];
  return `${first} UNION ALL ${second} LIMIT $limit OFFSET $offset`;
}

/** The page's links with their exact clicks (rolled up plus the log's tail), in its order. */
function pageSql(shape: SearchShape, driver: Driver, details: boolean): string {
  const ids =
    shape.sort === 'clicks' && driver === 'walk' ? clicksWalk(shape) : orderedPage(shape, driver);
  const dir = shape.descending ? 'DESC' : 'ASC';
  return `${CLICKS_OF_LINKS}, page AS (${ids})
    SELECT ${details ? DETAIL_COLUMNS : LINK_COLUMNS}, ${CLICKS_COLUMN}, page.sortKey AS sortKey
    FROM page JOIN links l ON l.id = page.id ${CLICKS_JOINS}
    ORDER BY page.sortKey ${dir}, page.id ${dir}`;
}

/**
 * The MATCH of link_search for a text: up to TRIGRAMS of its trigrams, spread over it,
 * each quoted; undefined when it has none (under 3 characters) or holds control
 * characters, which FTS5's query syntax does not take.
 */
export function trigramMatch(text: string): string | undefined {
  const chars = [...text];
  if (chars.length < 3 || /\p{Cc}/u.test(text)) return undefined;
  const all = chars.slice(2).map((_, i) => chars.slice(i, i + 3).join(''));
  const step = Math.max(1, (all.length - 1) / (TRIGRAMS - 1));
  const picked = new Set<string>();
  for (let i = 0; i < all.length && picked.size < TRIGRAMS; i += step) {
    picked.add(all[Math.round(i)] as string);
  }
  picked.add(all.at(-1) as string);
  return [...picked].map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');
}

type Values = Record<string, string | number>;

/** Where the walk of links without counts starts (its ids compared with `l.id <` or `>`). */
function uncountedBound(search: LinkSearch): number {
  const after = search.after;
  // Descending, that walk comes second: from the start, or after the cursor once in it.
  if (search.descending) return after !== undefined && after.key === 0 ? after.id : NO_BOUND;
  // Ascending it comes first: from the start, after the cursor, or done once past it.
  if (after === undefined) return 0;
  return after.key === 0 ? after.id : NO_BOUND;
}

/** A domain's links are counted up to this many for the choice of driver (more: common). */
const COMMON_DOMAIN = 100_000;

/** What the sizes of a search's filters are read with (each a count of an index). */
const SIZES = {
  links: 'SELECT coalesce(sum(links), 0) AS n FROM link_totals',
  owner: 'SELECT coalesce(sum(links), 0) AS n FROM link_totals WHERE owner = $owner',
  domain: `SELECT count(*) AS n FROM (SELECT 1 FROM links WHERE domain_id = $domain
                                     LIMIT ${COMMON_DOMAIN})`,
  tag: 'SELECT count(*) AS n FROM link_tags WHERE tag = $tag',
  text: `SELECT
    (SELECT count(*) FROM (SELECT 1 FROM link_search WHERE link_search MATCH $trigrams
                           LIMIT ${RARE_TEXT + 1}))
    + (SELECT count(*) FROM (SELECT 1 FROM link_tags WHERE tag = $textTag
                             LIMIT ${RARE_TEXT + 1})) AS n`,
};

/** Searches on one connection; statements are prepared per shape on first use. */
export function sqliteLinkSearch(sqlite: Database) {
  const statements = new Map<string, Statement>();
  const prepared = <Row>(key: string, sql: () => string): Statement<Row, [Values]> => {
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = sqlite.prepare(sql());
      statements.set(key, statement);
    }
    return statement as Statement<Row, [Values]>;
  };
  const size = (name: keyof typeof SIZES, values: Values): number =>
    prepared<{ n: number }>(`size:${name}`, () => SIZES[name]).get(values)?.n ?? 0;

  function sizesOf(search: LinkSearch, values: Values): FilterSizes {
    const sizes: FilterSizes = { links: size('links', values) };
    if (search.owner !== null) sizes.owner = size('owner', values);
    if (search.domainId !== undefined) sizes.domain = size('domain', values);
    if (search.tag !== undefined) sizes.tag = size('tag', values);
    const trigrams = search.text === undefined ? undefined : trigramMatch(search.text);
    if (trigrams !== undefined) {
      values.trigrams = trigrams;
      sizes.text = size('text', values);
    }
    return sizes;
  }

  function read<Row>(search: LinkSearch, details: boolean) {
    const shape = shapeOf(search);
    const values: Values = { ...searchValues(search), limit: search.limit };
    values.offset = search.offset ?? 0;
    if (search.after !== undefined) {
      values.key = search.after.key;
      values.id = search.after.id;
    }
    if (shape.sort === 'clicks') values.idBound = uncountedBound(search);
    const counting = countLimit(search);
    if (counting !== undefined) values.countLimit = counting + 1;
    const sizes = sizesOf(search, values);
    let total: number | undefined;
    if (!shape.after) {
      const driver = countDriver(sizes);
      total = prepared<{ n: number }>(shapeKey(shape, 'count', driver), () =>
        countSql(shape, driver),
      ).get(values)?.n;
    }
    const driver = pageDriver(search, sizes, total ?? matchesBound(sizes));
    const rows = prepared<Keyed<Row>>(shapeKey(shape, 'page', driver, details), () =>
      pageSql(shape, driver, details),
    ).all(values);
    return { rows, total: shape.after ? undefined : (total ?? 0), counting };
  }

  const operations = {
    /** A page and its total from one read transaction, so the two agree. */
    searchLinks: sqlite.transaction((search: LinkSearch): FoundLinks<Link> => {
      const { rows, total, counting } = read<Link>(search, false);
      return foundLinks(rows, total, counting);
    }),
    searchLinkDetails: sqlite.transaction((search: LinkSearch): FoundLinks<LinkDetail> => {
      const { rows, total, counting } = read<StoredDetail>(search, true);
      const found = foundLinks(rows, total, counting);
      return { ...found, links: found.links.map(detailOf) };
    }),
  };
  return {
    operations,
    finalize(): void {
      for (const statement of statements.values()) statement.finalize();
      statements.clear();
    },
  };
}
