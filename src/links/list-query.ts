// The filters, order and view of GET /api/links: ?q=, ?domain=, ?tag=, ?sort=, ?order=
// and ?view=full, each optional. Without any of them the list is the one it always was
// (every link of the caller, newest first); with any, the store searches it.

import { badRequest, type Message, Messages } from '../domain/errors.ts';
import { parseTag } from '../domain/tags.ts';
import type { LinkSort } from '../store/link-search.ts';

/** The longest `q`, in characters. */
export const LIST_QUERY_MAX_LENGTH = 200;
export const LIST_SORTS = ['created', 'clicks', 'code'] as const satisfies readonly LinkSort[];
export const LIST_ORDERS = ['asc', 'desc'] as const;

/** The parameters this module reads, in the order they are checked and linked. */
const NAMES = ['q', 'domain', 'tag', 'sort', 'order', 'view'] as const;

export interface ListSearch {
  text?: string;
  domainId?: number;
  tag?: string;
  sort: LinkSort;
  descending: boolean;
  /** view=full: each link with its settings, as GET /api/links/{code} shows it. */
  full: boolean;
  /** The parameters as given, for the next page's link (`&q=…&tag=…`). */
  query: string;
}

/** `q`: 1 to 200 characters (a character outside the BMP counts once). */
export function parseListText(value: string): string {
  const length = [...value].length;
  if (length < 1 || length > LIST_QUERY_MAX_LENGTH) throw badRequest(Messages.listQueryRule);
  return value;
}

export function parseListSort(value: string): LinkSort {
  if (!(LIST_SORTS as readonly string[]).includes(value)) throw badRequest(Messages.listSortRule);
  return value as LinkSort;
}

export function parseListOrder(value: string): boolean {
  if (!(LIST_ORDERS as readonly string[]).includes(value)) throw badRequest(Messages.listSortRule);
  return value === 'desc';
}

export function parseListView(value: string): true {
  if (value !== 'full') throw badRequest(Messages.listViewRule);
  return true;
}

/** A parameter's one value; given twice, it breaks its rule. */
function one(params: URLSearchParams, name: string, message: Message): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw badRequest(message);
  return values[0];
}

const MESSAGES = {
  q: Messages.listQueryRule,
  domain: Messages.unknownDomain,
  tag: Messages.tagRule,
  sort: Messages.listSortRule,
  order: Messages.listSortRule,
  view: Messages.listViewRule,
} as const;

/**
 * The search a query string asks for, or undefined when it names none of the list's
 * filters, orders or views. `domainOf` gives the id of a short domain named by its host
 * or base URL (undefined: none is). Checked in order: q, domain, tag, sort, order, view.
 * Ordered by code the default order is ascending, by created or clicks descending.
 */
export function parseListSearch(
  params: URLSearchParams,
  domainOf: (name: string) => number | undefined,
): ListSearch | undefined {
  if (!NAMES.some((name) => params.has(name))) return undefined;
  const given: [string, string][] = [];
  /** A parameter's value, checked as given once; kept for the next page's link. */
  const read = (name: (typeof NAMES)[number]) => {
    const value = one(params, name, MESSAGES[name]);
    if (value !== undefined) given.push([name, value]);
    return value;
  };
  const q = read('q');
  const text = q === undefined ? undefined : parseListText(q);
  const domain = read('domain');
  const domainId = domain === undefined ? undefined : domainOf(domain);
  if (domain !== undefined && domainId === undefined) throw badRequest(Messages.unknownDomain);
  const tagName = read('tag');
  const tag = tagName === undefined ? undefined : parseTag(tagName);
  const sortName = read('sort');
  const sort = sortName === undefined ? 'created' : parseListSort(sortName);
  const order = read('order');
  const descending = order === undefined ? sort !== 'code' : parseListOrder(order);
  const view = read('view');
  const full = view === undefined ? false : parseListView(view);
  const query = given.map(([name, value]) => `&${name}=${encodeURIComponent(value)}`).join('');
  return { text, domainId, tag, sort, descending, full, query };
}
