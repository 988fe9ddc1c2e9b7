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
  /** How many links the filters let through, read with the page; undefined after a cursor. */
  total: number | undefined;
  /** Where the page ended, to read on from; undefined when it is empty. */
  last: SearchCursor | undefined;
}

/** A row as a search reads it: the link and the key it was sorted by. */
export type Keyed<L> = L & { sortKey: number | string };

/** The links of a page without their sort keys, and where it ended. */
export function foundLinks<L>(rows: readonly Keyed<L>[], total: number | undefined): FoundLinks<L> {
  const links = rows.map(({ sortKey: _, ...link }) => link as L);
  const end = rows.at(-1) as (Keyed<L> & { id: number }) | undefined;
  return { links, total, last: end === undefined ? undefined : { key: end.sortKey, id: end.id } };
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
