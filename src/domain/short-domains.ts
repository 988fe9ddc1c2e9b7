// What a short domain is, as an operator gives it: a base URL (scheme, host, optional
// port, nothing after), in the one canonical form hosts.ts gives every host, and the
// answers a domain may set for its bare `/` and its unknown codes.

import { badRequest, Messages } from './errors.ts';
import { DEFAULT_PORTS, normalizeHost, urlHost, type WebScheme } from './hosts.ts';
import { parseTargetUrl } from './urls.ts';

/** Longer than any real base URL (a hostname is at most 253 characters), short enough to read. */
export const DOMAIN_URL_MAX_LENGTH = 300;
/** RFC 1035's limit on a whole name, checked on its ASCII (punycode) form. */
const HOSTNAME_MAX_LENGTH = 253;

/**
 * `http(s)://authority` and at most a lone `/`. The authority holds no user-info (`@`),
 * backslash or whitespace, so nothing in it reads differently to a browser and to curl;
 * an empty `?` or `#`, which the URL parser would drop silently, is refused here.
 */
const BASE_URL_SHAPE = /^https?:\/\/[^\s/?#@\\]+\/?$/i;

/** A domain as stored: its base URL and the canonical host a request's Host is matched with. */
export interface DomainName {
  /** `scheme://host[:port]`: lower case, IDN in punycode, no default port, no trailing dot. */
  baseUrl: string;
  /** `hostname[:port]`, as `urlHost` gives it. */
  host: string;
}

/**
 * Parses a domain's base URL (`https://go.example.com`, `http://[::1]:8080/`). Refused,
 * with Messages.domainRule: another scheme, user-info, a path, a query, a fragment, no
 * host, and a port that is the other scheme's default (https on 80, http on 443): a Host
 * header does not say the scheme, so such a domain could never be told from its host alone.
 */
export function parseDomainUrl(value: unknown): DomainName {
  if (
    typeof value !== 'string' ||
    value.length > DOMAIN_URL_MAX_LENGTH ||
    !BASE_URL_SHAPE.test(value)
  ) {
    throw badRequest(Messages.domainRule);
  }
  const url = URL.parse(value);
  if (url === null || url.hostname === '' || url.hostname.length > HOSTNAME_MAX_LENGTH) {
    throw badRequest(Messages.domainRule);
  }
  const scheme = url.protocol as WebScheme;
  const other: WebScheme = scheme === 'https:' ? 'http:' : 'https:';
  if (url.port === DEFAULT_PORTS[other]) throw badRequest(Messages.domainRule);
  const host = urlHost(url);
  return { baseUrl: `${scheme}//${host}`, host };
}

/**
 * The canonical host an operator's name of a domain means (a path's `{domain}`, `kurz
 * domain set NAME`): a host (`go.example.com`, `go.example.com:8443`), or a whole base
 * URL by the rule above; undefined when it is neither.
 */
export function domainHostOf(name: string): string | undefined {
  if (!/^https?:\/\//i.test(name)) return normalizeHost(name);
  try {
    return parseDomainUrl(name).host;
  } catch {
    return undefined;
  }
}

/**
 * A domain's `root_redirect` or `not_found_redirect`: undefined when absent (left as it
 * is), null to clear it, else a target URL by the rule links' targets follow.
 */
export function parseDomainRedirect(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    return parseTargetUrl(value);
  } catch {
    throw badRequest(Messages.domainRedirectRule);
  }
}
