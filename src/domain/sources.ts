// Click-source labels: given at creation, or (accounts mode) as `?source=` on a redirect.

import { badRequest, Messages } from './errors.ts';

export const SOURCE_MAX_LENGTH = 255;
/** A referrer is kept as scheme://host/path: where a click came from, not what it carried. */
export const REFERRER_MAX_LENGTH = 255;
/** Enough for the browser, system and device a user agent names; the rest is padding. */
export const USER_AGENT_MAX_LENGTH = 256;

/** Parses the optional `source` of a create request; `null` is taken as absent. */
export function parseSource(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || codePointLength(value) > SOURCE_MAX_LENGTH) {
    throw badRequest(Messages.sourceRule);
  }
  return storable(value);
}

const NUL = /\0/g;

/**
 * A label as every database can keep it: U+0000 and unpaired surrogates (which JSON
 * and URLs can carry, but PostgreSQL's text cannot hold) become U+FFFD, so the same
 * label is stored, and counted, the same way on SQLite and PostgreSQL.
 */
export function storable(value: string): string {
  const text = value.isWellFormed() ? value : value.toWellFormed();
  return text.includes('\0') ? text.replace(NUL, '\uFFFD') : text;
}

/**
 * The `Referer` of a click as it is kept: without its query and fragment (they hold
 * search terms, session ids and tokens of the referring page, useless for counting
 * and a privacy risk to keep), cut to REFERRER_MAX_LENGTH. String work only: it runs
 * per click.
 */
export function clickReferrer(value: string): string {
  const q = value.indexOf('?');
  const h = value.indexOf('#');
  const end = q === -1 ? h : h === -1 ? q : Math.min(q, h);
  return cut(end === -1 ? value : value.slice(0, end), REFERRER_MAX_LENGTH);
}

/** The `User-Agent` of a click as it is kept. */
export function clickUserAgent(value: string): string {
  return cut(value, USER_AGENT_MAX_LENGTH);
}

/** Cuts a value to at most `max` code points, never splitting a surrogate pair. */
export function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  return Array.from(value).slice(0, max).join('');
}

export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
