// GET and HEAD /{code}: the hot path. Route → cache → click writer → 307.
// A GET waits for its click to be committed before the 307 leaves; HEAD counts nothing.
// The same redirect() serves two routes: Elysia's (app.handle, as tests use it) and a
// route Bun serves natively when listening, which skips Elysia's per-request context.

import { Elysia, t } from 'elysia';
import type { ClickWriter } from '../clicks/click-writer.ts';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { Messages, tooManyRequests } from '../domain/errors.ts';
import {
  clickReferrer,
  clickUserAgent,
  cut,
  SOURCE_MAX_LENGTH,
  storable,
} from '../domain/sources.ts';
import { errorResponses, withHeaderSchemas } from '../http/model.ts';
import { errorResponse } from '../http/responses.ts';
import {
  type AbuseLimits,
  type ClientOf,
  clientKey,
  type PeerSource,
} from '../net/abuse-limits.ts';
import { type CachedLink, type LinkCache, UNKNOWN } from './link-cache.ts';

export interface RedirectRoutesOptions {
  mode: Mode;
  cache: LinkCache;
  clicks: ClickWriter;
  /** The answer to a fault (a 503 when the database is unavailable, else a 500). */
  onError: (error: unknown, request: Request) => Response;
  /** Rate limits (only unknown codes are limited here); undefined when off. */
  limits?: AbuseLimits;
  clientOf: ClientOf;
  /** Headers every answer carries (nosniff, HSTS); the 307s get them from the cache. */
  headers?: Readonly<Record<string, string>>;
}

/** Answers every request itself: its Promise never rejects. */
export type Redirect = (
  code: string,
  request: Request,
  server: PeerSource | null,
) => Response | Promise<Response>;

export function createRedirect(options: RedirectRoutesOptions): Redirect {
  const { mode, cache, clicks, onError, clientOf, headers = {} } = options;
  const unknownCodes = options.limits?.unknownCode;
  const trackQuerySource = mode === 'accounts';
  // A click the writer could not commit: it rejects only with StoreUnavailableError (and
  // has logged the batch's failure), so this needs no request and is made once.
  const clickFailed = () => errorResponse(503, Messages.databaseUnavailable, headers);
  const notFound = () => errorResponse(404, Messages.notFound, headers);

  /** Synchronous on a cache hit; a Promise only when a click must commit or the store be asked. */
  function redirect(
    code: string,
    request: Request,
    server: PeerSource | null,
  ): Response | Promise<Response> {
    const link = isCodeShaped(code) ? cache.peek(code) : UNKNOWN;
    if (link === UNKNOWN) return unknown(request, server);
    if (link === undefined) return lookUpThenRedirect(code, request, server);
    return follow(link, request);
  }

  /**
   * 404 for a code with no link, or 429 once the client has asked for too many: code
   * guessing is limited, while a known code never meets the limiter.
   */
  function unknown(request: Request, server: PeerSource | null): Response {
    if (unknownCodes !== undefined) {
      const wait = unknownCodes.take(clientKey(clientOf, request, server));
      if (wait > 0) return onError(tooManyRequests(wait), request);
    }
    return notFound();
  }

  /** The 307 to a known link, once its click is committed (HEAD counts nothing). */
  function follow(link: CachedLink, request: Request): Response | Promise<Response> {
    // Elysia runs GET routes for HEAD as well; HEAD must not count.
    if (request.method === 'HEAD') return link.respond();
    return count(link, request).then(link.respond, clickFailed);
  }

  async function lookUpThenRedirect(
    code: string,
    request: Request,
    server: PeerSource | null,
  ): Promise<Response> {
    try {
      const link = await cache.get(code);
      return link === undefined ? unknown(request, server) : follow(link, request);
    } catch (error) {
      return onError(error, request);
    }
  }

  /** Resolves once the click is committed (the 307 must not leave before). */
  function count(link: CachedLink, request: Request): Promise<void> {
    const headers = request.headers;
    return clicks.record({
      linkId: link.id,
      source: link.source,
      querySource: trackQuerySource ? querySource(request.url) : null,
      referrer: header(headers, 'referer', clickReferrer),
      userAgent: header(headers, 'user-agent', clickUserAgent),
      createdAt: Date.now(),
    });
  }

  return redirect;
}

/** The Elysia route, for app.handle(). */
export function redirectRoutes(redirect: Redirect, mode: Mode) {
  return new Elysia({ name: 'kurz/redirect' }).get(
    '/:code',
    ({ params, request, server }) => redirect(params.code, request, server),
    {
      params: t.Object({ code: t.String({ description: 'The short code (case-sensitive).' }) }),
      // Documentation only: the redirect reads ?source= itself (accounts mode).
      ...(mode === 'accounts'
        ? {
            query: t.Object({
              source: t.Optional(
                t.String({
                  description:
                    'Where the click came from, kept with the click (cut to 255 characters).',
                }),
              ),
            }),
          }
        : {}),
      response: {
        307: withHeaderSchemas(
          t.Void({
            description:
              'To the original URL. The click is committed before this answer is sent; HEAD answers the same and counts nothing.',
          }),
          {
            Location: t.String({
              description: 'The original URL, byte for byte (non-ASCII percent-encoded as UTF-8).',
            }),
            'Cache-Control': t.String({
              const: 'private, no-store',
              description: 'Every follow is counted, so no cache may answer in its place.',
            }),
          },
        ),
        ...errorResponses(404, 429, 500, 503),
      },
      detail: {
        operationId: 'redirect',
        tags: ['redirect'],
        summary: 'Follow a short link',
        description:
          'Needs no token. Counts a click (with the creation source, the `Referer` without query or fragment and cut to 255 characters, the `User-Agent` cut to 256; in accounts mode also `?source=`).',
      },
    },
  );
}

/** The same route as Bun serves it natively: `{ '/:code': { GET, HEAD } }` for Bun.serve's routes. */
export function nativeRedirectRoute(
  redirect: Redirect,
  onError: (error: unknown, request: Request) => Response,
) {
  // redirect() answers the faults of its promise itself, so nothing here wraps it (a
  // .catch would cost a promise and a closure per redirect); a synchronous throw would
  // be a bug, still answered as one.
  const handle = (
    request: Bun.BunRequest,
    server: Bun.Server<unknown>,
  ): Response | Promise<Response> => {
    try {
      return redirect(request.params.code as string, request, server);
    } catch (error) {
      return onError(error, request);
    }
  };
  return { '/:code': { GET: handle, HEAD: handle } };
}

function header(headers: Headers, name: string, keep: (value: string) => string): string | null {
  const value = headers.get(name);
  return value === null ? null : keep(value);
}

/** `?source=` of a redirect URL, cut to 255 characters; null when absent. */
function querySource(url: string): string | null {
  const q = url.indexOf('?');
  if (q === -1) return null;
  const value = new URLSearchParams(url.slice(q + 1)).get('source');
  return value === null ? null : storable(cut(value, SOURCE_MAX_LENGTH));
}
