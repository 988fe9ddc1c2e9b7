// Target-URL rules for a new link, and the form a URL takes in a Location header.

import { badRequest, Messages } from './errors.ts';

export const URL_MAX_LENGTH = 8192;
// Any whitespace (ASCII or Unicode) or control character makes a URL invalid.
const FORBIDDEN_CHARS = /[\s\p{Cc}]/u;
const NON_ASCII_RUN = /[^\p{ASCII}]+/gu;

/** Parses the `url` of a create request, checking in the order decisions.md gives. */
export function parseTargetUrl(value: unknown): string {
  if (typeof value !== 'string') throw badRequest(Messages.urlRequired);
  if (!value.startsWith('http://') && !value.startsWith('https://')) {
    throw badRequest(Messages.urlScheme);
  }
  if (
    value.length > URL_MAX_LENGTH ||
    FORBIDDEN_CHARS.test(value) ||
    !value.isWellFormed() ||
    !hasHost(value)
  ) {
    throw badRequest(Messages.urlInvalid);
  }
  return value;
}

/** Absolute, with a non-empty authority (WHATWG would read `http:///x` as host "x"). */
function hasHost(value: string): boolean {
  const authority = value.slice(value.indexOf('//') + 2);
  if (authority === '' || '/?#'.includes(authority[0] as string)) return false;
  const parsed = URL.parse(value);
  return parsed !== null && parsed.hostname !== '';
}

/**
 * The stored URL as a Location header value: byte for byte, except that non-ASCII
 * characters are percent-encoded as UTF-8, since a header cannot carry them raw.
 */
export function toLocationHeader(url: string): string {
  return url.replace(NON_ASCII_RUN, encodeURIComponent);
}
