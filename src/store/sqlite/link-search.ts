// Searching the links on SQLite (GET /api/links's filters and orders): a statement per
// shape of search, prepared on first use. The page is cut first and only its rows are
// joined to their counts and settings, as in links.ts.
//
// Click counts live in the counts file (click-counts.ts), where a link has a row only
// once a click of it was rolled up. Ordered by clicks, a list is therefore two walks: the
// counts' index on clicks (links with a row), and the links without one (0 clicks) by id;
// each in order, one after the other. The order uses the rolled-up counts, so it lags
// the newest clicks by the rollup's second; the clicks shown add the log's tail.
//
// SQLite keeps no statistics of how common a tag is, so the store chooses for it: a rare
// tag's links are read from the tag's index and sorted; a common tag is looked up link
// by link while the order's own index is walked, which stops once the page is full.

import type { Database, Statement } from 'bun:sqlite';
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
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';
import { detailOf, type StoredDetail, TAGS_COLUMN } from './links.ts';

/**
 * A link found by id costs about as much as this many steps along an index: reading a
 * rare tag's links and sorting them beats walking the order when they are this many
 * times fewer than the links the walk would pass.
 */
const LOOKUP_STEPS = 4;

/** Larger than any id: the bound of a walk that has not started. */
const NO_BOUND = Number.MAX_SAFE_INTEGER;

const LINK_COLUMNS = `l.id, l.user_id AS userId, l.domain_id AS domainId,
  l.original_url AS originalUrl, l.short_code AS shortCode, l.created_at AS createdAt`;
const DETAIL_COLUMNS = `${LINK_COLUMNS}, l.source, l.expires_at AS expiresAt,
  l.max_clicks AS maxClicks, l.limited_clicks AS limitedClicks,
  l.password_hash AS passwordHash, ${TAGS_COLUMN}`;

/** "Contains the text, or has it as a tag": the pattern is escaped by containsPattern. */
const TEXT_MATCH = `(l.short_code LIKE $pattern ESCAPE '\\' OR l.original_url LIKE $pattern ESCAPE '\\'
  OR EXISTS (SELECT 1 FROM link_tags tt WHERE tt.link_id = l.id AND tt.tag = $textTag))`;

/** Where the links of a shape come from: all links, or a tag's (`byTag`), and what they must meet. */
function source(shape: SearchShape, byTag: boolean): { from: string; where: string[] } {
  const where: string[] = [];
  if (byTag) where.push('t.tag = $tag');
  if (shape.owner) where.push('l.user_id = $owner');
  if (shape.domain) where.push('l.domain_id = $domain');
  if (shape.tag && !byTag) {
    where.push('EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = $tag)');
  }
  if (shape.text) where.push(TEXT_MATCH);
  // CROSS JOIN: SQLite keeps the order written, so the tag's index is the outer loop.
  const from = byTag ? 'link_tags t CROSS JOIN links l ON l.id = t.link_id' : 'links l';
  return { from, where };
}

const clause = (where: readonly string[]) =>
  where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;

/** How many links a shape lets through. */
function countSql(shape: SearchShape, byTag: boolean): string {
  if (!shape.text && !shape.domain && !shape.tag) {
    return shape.owner
      ? 'SELECT coalesce(sum(links), 0) AS n FROM link_totals WHERE owner = $owner'
      : 'SELECT coalesce(sum(links), 0) AS n FROM link_totals';
  }
  // Tags are removed with their link: the tag's index alone counts its links.
  if (shape.tag && !shape.owner && !shape.text && !shape.domain) {
    return 'SELECT count(*) AS n FROM link_tags WHERE tag = $tag';
  }
  const { from, where } = source(shape, byTag);
  return `SELECT count(*) AS n FROM ${from} ${clause(where)}`;
}

/** The ids and sort keys of a page walking one order (created, code, or clicks sorted here). */
function orderedPage(shape: SearchShape, byTag: boolean): string {
  const { from, where } = source(shape, byTag);
  const dir = shape.descending ? 'DESC' : 'ASC';
  const key = { created: 'l.created_at', code: 'l.short_code', clicks: 'coalesce(k.clicks, 0)' }[
    shape.sort
  ];
  const counts =
    shape.sort === 'clicks' ? 'LEFT JOIN counts.link_clicks k ON k.link_id = l.id' : '';
  if (shape.after) where.push(`(${key}, l.id) ${shape.descending ? '<' : '>'} ($key, $id)`);
  return `SELECT l.id, ${key} AS sortKey FROM ${from} ${counts} ${clause(where)}
    ORDER BY ${key} ${dir}, l.id ${dir} LIMIT $limit OFFSET $offset`;
}

/** The ids and rolled-up clicks of a page by clicks: links with counts, and those with none. */
function clicksPage(shape: SearchShape): string {
  const dir = shape.descending ? 'DESC' : 'ASC';
  const cmp = shape.descending ? '<' : '>';
  const counted = source(shape, false).where;
  counted.unshift('k.clicks > 0');
  if (shape.after) counted.push(`(k.clicks, k.link_id) ${cmp} ($key, $id)`);
  const uncounted = source(shape, false).where;
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
function pageSql(shape: SearchShape, byTag: boolean, details: boolean): string {
  const ids = shape.sort === 'clicks' && !byTag ? clicksPage(shape) : orderedPage(shape, byTag);
  const dir = shape.descending ? 'DESC' : 'ASC';
  return `${CLICKS_OF_LINKS}, page AS (${ids})
    SELECT ${details ? DETAIL_COLUMNS : LINK_COLUMNS}, ${CLICKS_COLUMN}, page.sortKey AS sortKey
    FROM page JOIN links l ON l.id = page.id ${CLICKS_JOINS}
    ORDER BY page.sortKey ${dir}, page.id ${dir}`;
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
  const count = (shape: SearchShape, byTag: boolean, values: Values): number =>
    prepared<{ n: number }>(shapeKey(shape, 'count', byTag), () => countSql(shape, byTag)).get(
      values,
    )?.n ?? 0;

  /** The links a walk in order would pass (the owner's, or all), and the tag's. */
  const sizes = (search: LinkSearch, values: Values) => {
    const tagOnly = { ...shapeOf(search), text: false, domain: false };
    return {
      space: count({ ...tagOnly, tag: false }, false, values),
      tagged: count({ ...tagOnly, owner: false }, false, values),
    };
  };

  function read<Row>(search: LinkSearch, details: boolean) {
    const shape = shapeOf(search);
    const offset = search.offset ?? 0;
    const values: Values = { ...searchValues(search), limit: search.limit, offset };
    if (search.after !== undefined) {
      values.key = search.after.key;
      values.id = search.after.id;
    }
    if (shape.sort === 'clicks') values.idBound = uncountedBound(search);
    let total: number | undefined;
    let byTag = false;
    if (shape.tag) {
      const { space, tagged } = sizes(search, values);
      if (!shape.after) total = count(shape, tagged * LOOKUP_STEPS < space, values);
      // The walk passes about space / matches links per link of the page.
      const matches = Math.max(1, total ?? tagged);
      byTag = tagged * LOOKUP_STEPS < ((offset + search.limit) * space) / matches;
    } else if (!shape.after) {
      total = count(shape, false, values);
    }
    const rows = prepared<Keyed<Row>>(shapeKey(shape, 'page', byTag, details), () =>
      pageSql(shape, byTag, details),
    ).all(values);
    return { rows, total };
  }

  const operations = {
    /** A page and its total from one read transaction, so the two agree. */
    searchLinks: sqlite.transaction((search: LinkSearch): FoundLinks<Link> => {
      const { rows, total } = read<Link>(search, false);
      return foundLinks(rows, total);
    }),
    searchLinkDetails: sqlite.transaction((search: LinkSearch): FoundLinks<LinkDetail> => {
      const { rows, total } = read<StoredDetail>(search, true);
      const found = foundLinks(rows, total);
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
