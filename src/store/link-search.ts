// Searching the list of links (GET /api/links's filters and orders), as both stores see
// it: the search, the place a streamed list stops at, and what each store's SQL shares.
// A store prepares one statement per shape of search (which filters, which order), never
// one per request.

/** What a searched list is ordered by; ties are broken by id, in the same direction. */
export type LinkSort = 'created' | 'clicks' | 'code';

/**
 * GET /api/links with filters or another order: each filter given narrows the list,
 * together with the others and the owner's (as LinkQuery's).
 */
export interface LinkSearch {
  owner: number | null;
  /**
   * Text the short code or the target contains (letters A-Z in either case; `%`, `_` and
   * `\` are themselves), or a tag equal to it lower-cased.
   */
  text?: string;
  domainId?: number;
  /** A tag the link has, lower-cased. */
  tag?: string;
  sort: LinkSort;
  descending: boolean;
  limit: number;
  /** Links skipped first (absent: none); not with `after`. */
  offset?: number;
  /** Continue after this place of the same search (streaming a whole list), reading no total. */
  after?: SearchCursor;
}

/**
 * A place in a searched list: the sort key of its last link (created_at, the code, or
 * the clicks it was sorted by) and its id. Only the store that gave it reads it.
 */
export interface SearchCursor {
  key: number | string;
  id: number;
}

/** A page of a searched list. */
export interface FoundLinks<L> {
  links: L[];
  /**
   * How many links the filters let through, read with the page; undefined after a
   * cursor. With a text, counted up to COUNTED_AHEAD past the offset: when more match,
   * it is that bound and `bounded` is true.
   */
  total: number | undefined;
  /** Whether `total` is a lower bound: more links match than were counted. */
  bounded: boolean;
  /** Where the page ended, to read on from; undefined when it is empty. */
  last: SearchCursor | undefined;
}

/**
 * A search with a text counts the links it lets through up to this many past its offset.
 * Exact, a text that many links hold (a word in a fifth of a million targets) is checked
 * on every link for its total, which took 0.3 s on SQLite and 2 s on PostgreSQL for the
 * first page; counted up to 2,000 it takes a few milliseconds, and the total of every
 * page up to the offset's 2,000th match further on is still exact, so the next page's
 * link is right. The other filters are counted in indexes or totals, exactly.
 */
export const COUNTED_AHEAD = 2000;

/** The most matches a search's count reads before it stops (undefined: it counts all). */
export function countLimit(search: LinkSearch): number | undefined {
  return search.text === undefined ? undefined : (search.offset ?? 0) + COUNTED_AHEAD;
}

/** A row as a search reads it: the link and the key it was sorted by. */
export type Keyed<L> = L & { sortKey: number | string };

/**
 * The links of a page without their sort keys, and where it ended. `counted` is what the
 * count read: up to one past `limit` (countLimit) when it stopped there.
 */
export function foundLinks<L>(
  rows: readonly Keyed<L>[],
  counted: number | undefined,
  limit?: number,
): FoundLinks<L> {
  const links = rows.map(({ sortKey: _, ...link }) => link as L);
  const end = rows.at(-1) as (Keyed<L> & { id: number }) | undefined;
  const bounded = counted !== undefined && limit !== undefined && counted > limit;
  return {
    links,
    total: bounded ? limit : counted,
    bounded,
    last: end === undefined ? undefined : { key: end.sortKey, id: end.id },
  };
}

/** `LIKE … ESCAPE '\'` for "contains `text`": its wildcards and backslashes match themselves. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The tag `text` may name: tags are kept lower-cased. */
export function textTag(text: string): string {
  return text.toLowerCase();
}

/** The filters and order of a search, which decide its statement. */
export interface SearchShape {
  owner: boolean;
  text: boolean;
  domain: boolean;
  tag: boolean;
  sort: LinkSort;
  descending: boolean;
  after: boolean;
}

export function shapeOf(search: LinkSearch): SearchShape {
  return {
    owner: search.owner !== null,
    text: search.text !== undefined,
    domain: search.domainId !== undefined,
    tag: search.tag !== undefined,
    sort: search.sort,
    descending: search.descending,
    after: search.after !== undefined,
  };
}

/** A shape as a key of the statements made for it (with what else the store varies). */
export function shapeKey(shape: SearchShape, ...more: (string | boolean)[]): string {
  return [
    shape.owner,
    shape.text,
    shape.domain,
    shape.tag,
    shape.sort,
    shape.descending,
    shape.after,
    ...more,
  ].join(':');
}

/** The values a search's statements take by name (`$owner`, …); only the shape's own are bound. */
export function searchValues(search: LinkSearch): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (search.owner !== null) values.owner = search.owner;
  if (search.text !== undefined) {
    values.pattern = containsPattern(search.text);
    values.textTag = textTag(search.text);
  }
  if (search.domainId !== undefined) values.domain = search.domainId;
  if (search.tag !== undefined) values.tag = search.tag;
  return values;
}

/**
 * Which links a page (or a count) of a search starts from: the walk of the order's own
 * index (every filter checked on each link passed, until the page is full), or the few
 * links one filter names (an owner's, a domain's, a tag's, or those holding a text's
 * trigrams), each checked and then sorted.
 */
export type Driver = 'walk' | 'owner' | 'domain' | 'tag' | 'text';

/** What a store can tell of a search's filters cheaply, before reading it. */
export interface FilterSizes {
  /** Every link. */
  links: number;
  /** The owner's links (from link_totals). */
  owner?: number;
  /** The domain's links (exact, or counted up to a bound past which it is common). */
  domain?: number;
  /** The tag's links. */
  tag?: number;
  /**
   * The links holding the text's trigrams or its tag, counted up to RARE_TEXT + 1;
   * undefined when no index serves the text (under 3 characters, or no trigram index).
   */
  text?: number;
}

/** A text whose trigrams more links hold than this is common: it is checked on a walk. */
export const RARE_TEXT = 2000;

/**
 * A walk's step costs less than a gathered link (an index entry and a probe, against a
 * lookup and a place in the sort), but a gather's cost is bounded by its size, while a
 * walk's grows with how much the filter and the order go together: on a million links,
 * an owner whose links were rarely clicked, or a tag only on links never clicked,
 * sorted by clicks, took seconds. So a gather is chosen up to this many times the
 * links a walk should pass (measured with bench/link-list.ts; 2 left those walks).
 */
const GATHER_BIAS = 4;
/** The smallest set of links one filter names, if any does. */
function smallestNamed(sizes: FilterSizes): { driver: Driver; size: number } | undefined {
  const named: [Driver, number | undefined][] = [
    ['owner', sizes.owner],
    ['domain', sizes.domain],
    ['tag', sizes.tag],
    ['text', sizes.text !== undefined && sizes.text <= RARE_TEXT ? sizes.text : undefined],
  ];
  let best: { driver: Driver; size: number } | undefined;
  for (const [driver, size] of named) {
    if (size !== undefined && (best === undefined || size < best.size)) best = { driver, size };
  }
  return best;
}

/**
 * The driver of a search's total: a small tag's or text's links (in tables of their
 * own), else the database's way, which counts an owner's or a domain's links in their
 * own index without looking each up.
 */
export function countDriver(sizes: FilterSizes): Driver {
  const named = smallestNamed(sizes);
  if (named === undefined || named.driver === 'owner' || named.driver === 'domain') return 'walk';
  return named.size * 2 < sizes.links ? named.driver : 'walk';
}

/**
 * The driver of a search's page. `matches` is how many links the search lets through,
 * or a bound of it: the walk passes about links / matches links per link of the page.
 * Ordered by creation, an owner's links and a domain's have an index of their own to
 * walk (the database takes the smaller).
 */
export function pageDriver(search: LinkSearch, sizes: FilterSizes, matches: number): Driver {
  const named = smallestNamed(sizes);
  if (named === undefined) return 'walk';
  const own = [sizes.owner, sizes.domain].filter((n): n is number => n !== undefined);
  const walked = search.sort === 'created' ? Math.min(sizes.links, ...own) : sizes.links;
  const passed = (((search.offset ?? 0) + search.limit) * walked) / Math.max(1, matches);
  return named.size < passed * GATHER_BIAS ? named.driver : 'walk';
}

/** The smallest set one filter names, as a bound of the links a search lets through. */
export function matchesBound(sizes: FilterSizes): number {
  return smallestNamed(sizes)?.size ?? sizes.links;
}
