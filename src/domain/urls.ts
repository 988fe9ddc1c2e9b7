// Target-URL rules for a new link, and the form a URL takes in a Location header.

import { badRequest, Messages } from './errors.ts';

export const URL_MAX_LENGTH = 8192;
// Any whitespace (ASCII or Unicode) or control character makes a URL invalid.
const FORBIDDEN_CHARS = /[\s\p{Cc}]/u;
const NON_ASCII_RUN = /[^\p{ASCII}]+/gu;

/** Parses the `url` of a create request, checking in the order the API documents. */
export function parseTargetUrl(value: unknown): string {
  if (typeof value !== 'string') throw badRequest(Messages.urlRequired);
  if (!value.startsWith('http://') && !value.startsWith('https://')) {
    throw badRequest(Messages.urlScheme);
  }
  if (
    value.length > URL_MAX_LENGTH ||
    FORBIDDEN_CHARS.test(value) ||
    !value.isWellFormed() ||
    !hasPlainAuthority(value)
  ) {
    throw badRequest(Messages.urlInvalid);
  }
  return value;
}

/** Where the authority of an http(s) URL ends, as RFC 3986 reads it. */
const AUTHORITY_END = /[/?#]/;

/**
 * Absolute, with a non-empty authority (WHATWG would read `http:///x` as host "x"),
 * and nothing in it that browsers and other clients read differently: user-info
 * (`https://bank.example@evil.example/` shows one host and goes to another) or a
 * backslash, which WHATWG reads as `/` and RFC 3986 clients as part of the authority,
 * so that `http://a\@b/` goes to a in a browser and to b in curl.
 */
function hasPlainAuthority(value: string): boolean {
  const rest = value.slice(value.indexOf('//') + 2);
  const end = rest.search(AUTHORITY_END);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority === '' || authority.includes('@') || authority.includes('\\')) return false;
  const parsed = URL.parse(value);
  return (
    parsed !== null && parsed.hostname !== '' && parsed.username === '' && parsed.password === ''
  );
}

/**
 * The stored URL as a Location header value: byte for byte, except that non-ASCII
 * characters are percent-encoded as UTF-8, since a header cannot carry them raw.
 */
export function toLocationHeader(url: string): string {
  return url.replace(NON_ASCII_RUN, encodeURIComponent);
}
