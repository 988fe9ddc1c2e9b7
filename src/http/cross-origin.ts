// Cross-site requests. kurz reads any body as JSON whatever its Content-Type (curl and
// scripts rely on it), so without this a plain HTML form on any site could make its
// visitors' browsers create links (open mode) or accounts. Browsers mark every
// cross-site request with an Origin header; such a request that would change something
// is refused unless the operator allowed that origin with --cors-origins, for which this
// module also answers CORS preflights and labels the API's answers.
// A page can also pass for kurz itself: its domain's DNS answer switched to kurz's address
// (DNS rebinding) makes it same-origin with the name it brings, which is also the Host its
// requests carry. So a browser's write must also arrive under a Host kurz knows.

import { Elysia } from 'elysia';
import { ApiError, type Message, Messages } from '../domain/errors.ts';
import {
  normalizeHost,
  requestAuthority,
  splitHost,
  urlHost,
  type WebScheme,
} from '../domain/hosts.ts';
import { isKnownHostname, type OwnHosts } from '../domain/own-hosts.ts';
import { MAX_BODY_BYTES } from './body.ts';

export interface CrossOriginOptions {
  /** The public address of short links (known once the server listens). */
  baseUrl: () => string;
  /** kurz's own hosts (the base URL's, every registered domain's), as they stand. */
  ownHosts: () => OwnHosts;
  /** Exact origins (scheme://host[:port]) whose pages may call the API. */
  corsOrigins: readonly string[];
  /** Further host names a browser may reach kurz under (--allowed-hosts), canonical. */
  allowedHosts?: readonly string[];
}

/** Methods that change state; GET, HEAD and OPTIONS never do in kurz. */
const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the API's routes use, and the headers its requests carry besides the simple ones. */
const ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
const ALLOW_HEADERS = 'Content-Type, Authorization';
/** Chromium caps a preflight's cache at two hours; longer gains nothing. */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';
/** Headers of the API's answers that a page of an allowed origin may read. */
const EXPOSE_HEADERS = 'X-Total-Count, X-Total-Count-Exact, Link, Retry-After, X-Request-Id';

/**
 * A global request hook (register it right after the error handler): it answers before
 * any route looks at the request. Requests with neither Origin nor Sec-Fetch-Site (curl,
 * scripts, servers) pass untouched: no page can make a browser send one, and a client
 * of its own can send any Host it likes.
 */
export function crossOrigin({ baseUrl, ownHosts, corsOrigins, allowedHosts }: CrossOriginOptions) {
  const allowed: ReadonlySet<string> = new Set(corsOrigins);
  const allowedNames: ReadonlySet<string> = new Set(allowedHosts);
  const base = memoizedBase(baseUrl);

  /**
   * Whether a browser's `origin` is kurz itself: its public address, or the Host the
   * request came to, compared as canonical hosts (`HTTPS://Kurz.Example.:443` is
   * `https://kurz.example`). Loopback names stay apart here: to a browser,
   * http://127.0.0.1:3000 and http://localhost:3000 are two sites.
   */
  function isOwnOrigin(origin: string, request: Request): boolean {
    const page = URL.parse(origin);
    if (page === null || (page.protocol !== 'http:' && page.protocol !== 'https:')) return false;
    const scheme = page.protocol as WebScheme;
    const host = urlHost(page);
    const own = base();
    if (scheme === own.scheme && host === own.host) return true;
    // Behind a TLS-terminating proxy the request arrives over http with the public Host.
    const sameScheme = request.url.startsWith(scheme) || scheme === own.scheme;
    return sameScheme && host === normalizeHost(requestAuthority(request.url), scheme);
  }

  /** Whether a browser may write under the Host the request came to (see isKnownHostname). */
  function isKnownHost(request: Request): boolean {
    const host = normalizeHost(requestAuthority(request.url));
    if (host === undefined) return false;
    return isKnownHostname(splitHost(host).hostname, ownHosts(), allowedNames);
  }

  /**
   * A request from a page of another site. `Sec-Fetch-Site: cross-site` is believed
   * over a matching Origin (a proxy may rewrite Host); an allowed origin is believed
   * over both, since its pages are cross-site by definition.
   */
  function isRefused(origin: string, request: Request): boolean {
    if (allowed.has(origin)) return false;
    if (request.headers.get('sec-fetch-site') === 'cross-site') return true;
    return !isOwnOrigin(origin, request);
  }

  /** Why a write is refused, if it is: a page of another site, or a Host kurz does not know. */
  function refusalOf(origin: string | null, request: Request): Message | undefined {
    if (origin !== null && isRefused(origin, request)) return Messages.crossOrigin;
    // A browser's request: browsers send Origin with every write (unless an extension
    // strips it), and Sec-Fetch-Site, which no page can set, to https and localhost.
    const browser = origin !== null || request.headers.has('sec-fetch-site');
    return browser && !isKnownHost(request) ? Messages.unknownHost : undefined;
  }

  return new Elysia({ name: 'kurz/cross-origin' }).onRequest(({ request, set }) => {
    const cors = allowed.size > 0 && isApiPath(request.url);
    // Answers to the API differ by Origin once some origins are allowed: caches must know.
    if (cors) set.headers.vary = 'Origin';
    const origin = request.headers.get('origin');
    if (STATE_CHANGING.has(request.method)) {
      const refusal = refusalOf(origin, request);
      if (refusal !== undefined) {
        // The size limit answers first, as the API documents; a declared length is enough to tell.
        if (Number(request.headers.get('content-length')) > MAX_BODY_BYTES) {
          throw new ApiError(413, Messages.bodyTooLarge);
        }
        throw new ApiError(403, refusal);
      }
    }
    if (origin === null || !cors || !allowed.has(origin)) return;
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
          vary: 'Origin',
        },
      });
    }
    // No Allow-Credentials: tokens travel in Authorization, and kurz sets no cookies.
    set.headers['access-control-allow-origin'] = origin;
    set.headers['access-control-expose-headers'] = EXPOSE_HEADERS;
  });
}

/** `/api/…`, read from a request URL without parsing it whole. */
function isApiPath(url: string): boolean {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path !== -1 && url.startsWith('/api/', path);
}

/** The base URL's scheme and canonical host, parsed again only when it changes (at listen). */
function memoizedBase(baseUrl: () => string) {
  let seen: string | undefined;
  let parsed = { scheme: '', host: '' };
  return () => {
    const value = baseUrl();
    if (value !== seen) {
      seen = value;
      const url = URL.parse(value);
      parsed =
        url === null || url.hostname === ''
          ? { scheme: '', host: '' }
          : { scheme: url.protocol, host: urlHost(url) };
    }
    return parsed;
  };
}
