// Cross-site requests. kurz reads any body as JSON whatever its Content-Type (curl and
// scripts rely on it), so without this a plain HTML form on any site could make its
// visitors' browsers create links (open mode) or accounts. Browsers mark every
// cross-site request with an Origin header; such a request that would change something
// is refused unless the operator allowed that origin with --cors-origins, for which this
// module also answers CORS preflights and labels the API's answers.

import { Elysia } from 'elysia';
import { ApiError, Messages } from '../domain/errors.ts';
import { MAX_BODY_BYTES } from './body.ts';

export interface CrossOriginOptions {
  /** The public address of short links (known once the server listens). */
  baseUrl: () => string;
  /** Exact origins (scheme://host[:port]) whose pages may call the API. */
  corsOrigins: readonly string[];
}

/** Methods that change state; GET, HEAD and OPTIONS never do in kurz. */
const STATE_CHANGING: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What the API's routes use, and the headers its requests carry besides the simple ones. */
const ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
const ALLOW_HEADERS = 'Content-Type, Authorization';
/** Chromium caps a preflight's cache at two hours; longer gains nothing. */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';
/** Headers of the API's answers that a page of an allowed origin may read. */
const EXPOSE_HEADERS = 'X-Total-Count, Link, Retry-After, X-Request-Id';

/**
 * A global request hook (register it right after the error handler): it answers before
 * any route looks at the request. Requests without an Origin (curl, scripts, servers)
 * pass untouched.
 */
export function crossOrigin({ baseUrl, corsOrigins }: CrossOriginOptions) {
  const allowed: ReadonlySet<string> = new Set(corsOrigins);
  const base = memoizedOrigin(baseUrl);

  /** Whether a browser's `origin` is kurz itself: its own Host, or its public address. */
  function isOwnOrigin(origin: string, request: Request): boolean {
    const own = base();
    if (own.origin !== '' && origin === own.origin) return true;
    const url = URL.parse(request.url);
    if (url === null) return false;
    if (origin === url.origin) return true;
    // Behind a TLS-terminating proxy the request arrives over http with the public Host.
    return own.protocol !== '' && origin === URL.parse(`${own.protocol}//${url.host}`)?.origin;
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

  return new Elysia({ name: 'kurz/cross-origin' }).onRequest(({ request, set }) => {
    const cors = allowed.size > 0 && isApiPath(request.url);
    // Answers to the API differ by Origin once some origins are allowed: caches must know.
    if (cors) set.headers.vary = 'Origin';
    const origin = request.headers.get('origin');
    if (origin === null) return;
    if (STATE_CHANGING.has(request.method) && isRefused(origin, request)) {
      // The size limit answers first, as the API documents; a declared length is enough to tell.
      if (Number(request.headers.get('content-length')) > MAX_BODY_BYTES) {
        throw new ApiError(413, Messages.bodyTooLarge);
      }
      throw new ApiError(403, Messages.crossOrigin);
    }
    if (!cors || !allowed.has(origin)) return;
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

/** The origin and scheme of the base URL, parsed again only when it changes (once, at listen). */
function memoizedOrigin(baseUrl: () => string) {
  let seen: string | undefined;
  let parsed = { origin: '', protocol: '' };
  return () => {
    const value = baseUrl();
    if (value !== seen) {
      seen = value;
      const url = URL.parse(value);
      parsed = url === null ? { origin: '', protocol: '' } : url;
    }
    return parsed;
  };
}
