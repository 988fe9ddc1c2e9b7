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
  const page = {
    limit: limit === undefined ? undefined : whole(limit),
    offset: offset === undefined ? 0 : whole(offset),
  };
  if (page.limit !== undefined && (page.limit < 1 || page.limit > MAX_PAGE)) {
    throw badRequest(Messages.pageRule);
  }
  return page;
}

function one(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw badRequest(Messages.pageRule);
  return values[0];
}

function whole(value: string): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(n)) throw badRequest(Messages.pageRule);
  return n;
}

/** The RFC 8288 Link header for the next page, when more remain after this one. */
export function nextPageLink(page: Page, total: number): string | undefined {
  if (page.limit === undefined || page.offset + page.limit >= total) return undefined;
  return `</api/links?limit=${page.limit}&offset=${page.offset + page.limit}>; rel="next"`;
}
