// The optional paging of GET /api/links: ?limit=1..1000 and ?offset>=0.

import { badRequest, Messages } from '../domain/errors.ts';

export const MAX_PAGE = 1000;

export interface Page {
  limit: number | undefined;
  offset: number;
}

/** Reads limit and offset from a query string; each absent means "no limit" / 0. */
export function parsePage(params: URLSearchParams): Page {
  const limit = one(params, 'limit');
  const offset = one(params, 'offset');
  return {
    limit: limit === undefined ? undefined : parseLimit(limit),
    offset: offset === undefined ? 0 : parseOffset(offset),
  };
}

/** A page size: 1 to 1000, in digits. */
export function parseLimit(value: string): number {
  const n = /^\d{1,4}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > MAX_PAGE) throw badRequest(Messages.pageRule);
  return n;
}

/** Links to skip: 0 or more, in digits (at most 15, so the number stays exact). */
export function parseOffset(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw badRequest(Messages.pageRule);
  return Number(value);
}

function one(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw badRequest(Messages.pageRule);
  return values[0];
}

/**
 * The RFC 8288 Link header for the next page, when more remain after this one; `filters`
 * (`&q=…`, already encoded) keeps the list's filters in it.
 */
export function nextPageLink(page: Page, total: number, filters = ''): string | undefined {
  if (page.limit === undefined || page.offset + page.limit >= total) return undefined;
  return `</api/links?limit=${page.limit}&offset=${page.offset + page.limit}${filters}>; rel="next"`;
}
