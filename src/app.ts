// createApp builds the whole HTTP app without listening, so the binary and the tests
// share it. Which routes exist depends on the mode; everything else is passed in.

import { type AnyElysia, Elysia } from 'elysia';
import { type HashingCost, PasswordHasher } from './auth/passwords.ts';
import { authRoutes } from './auth/routes.ts';
import { ClickWriter } from './clicks/click-writer.ts';
import type { Mode } from './config/config.ts';
import { healthRoutes } from './health/routes.ts';
import { crossOrigin } from './http/cross-origin.ts';
import { errorHandler, errorToResponse } from './http/error-handler.ts';
import { responseHeaders, securityHeaders, withHeaders } from './http/headers.ts';
import { LinkWriter } from './links/link-writer.ts';
import { linkRoutes } from './links/routes.ts';
import { consoleLogger, type Logger } from './logger.ts';
import { DEFAULT_CACHE, LinkCache, type LinkCacheOptions } from './redirect/link-cache.ts';
import { createRedirect, nativeRedirectRoute, redirectRoutes } from './redirect/routes.ts';
import type { Store } from './store/store.ts';
import { apiDocs } from './web/api-docs.ts';
import { webRoutes } from './web/routes.ts';

export interface AppDeps {
  mode: Mode;
  store: Store;
  /** The resolved token key (accounts mode). */
  jwtSecret: string;
  tokenTtlSeconds: number;
  /**
   * The public address of short links, for the web UI and QR codes. A function, since
   * the default (http://localhost:PORT) is known only once the server listens.
   */
  baseUrl: () => string;
  /** Origins whose pages may call the API from a browser (--cors-origins); none by default. */
  corsOrigins?: readonly string[];
  /** Given by the binary so it can drain pending writes on shutdown. */
  writers?: Writers;
  cache?: Partial<LinkCacheOptions>;
  hashing?: HashingCost;
  log?: Logger;
}

/** Writes that may wait for a commit at once, per writer, before more are refused with 503. */
export const MAX_PENDING_WRITES = 50_000;

/** The group-committed writers: clicks of redirects and new links. */
export interface Writers {
  clicks: ClickWriter;
  links: LinkWriter;
}

export function createWriters(store: Store, log: Logger): Writers {
  const options = (what: string) => ({
    maxPending: MAX_PENDING_WRITES,
    onError: (e: unknown) => log.error(`${what} batch failed: ${e}`),
  });
  return {
    clicks: new ClickWriter(store, options('click')),
    links: new LinkWriter(store, options('link')),
  };
}

/** Commits everything the writers hold. */
export async function drainWriters(writers: Writers): Promise<void> {
  await Promise.all([writers.clicks.drain(), writers.links.drain()]);
}

export function createApp(deps: AppDeps) {
  const { mode, store } = deps;
  const log = deps.log ?? consoleLogger;
  const writers = deps.writers ?? createWriters(store, log);
  const secret = deps.jwtSecret;
  // Read once: a base URL given at start-up is known here, and the default one
  // (http://localhost:PORT, known only once listening) is never https.
  const headers = securityHeaders(deps.baseUrl());
  const cache = new LinkCache(store, { ...DEFAULT_CACHE, ...deps.cache }, headers);

  // The redirect answers outside Elysia (natively served), so its faults get the headers here.
  const onFault = (error: unknown, request: Request) =>
    withHeaders(errorToResponse(error, request, log), headers);
  const redirect = createRedirect({
    mode,
    cache,
    clicks: writers.clicks,
    onError: onFault,
    headers,
  });
  const app = new Elysia({
    strictPath: true,
    // Served by Bun itself when listening; Elysia's own route below answers app.handle().
    serve: { routes: nativeRedirectRoute(redirect, onFault) },
  })
    .use(errorHandler(log))
    // Before any route reads the request: a cross-site refusal answers first.
    .use(crossOrigin({ baseUrl: deps.baseUrl, corsOrigins: deps.corsOrigins ?? [] }))
    .use(responseHeaders(headers))
    // The document describes the finished app, so it reads the routes when first asked.
    .use(apiDocs(mode, () => finished))
    .use(healthRoutes(store))
    .use(webRoutes({ mode, baseUrl: deps.baseUrl }))
    .use(linkRoutes({ mode, store, links: writers.links, cache, secret, baseUrl: deps.baseUrl }));
  if (mode === 'accounts') {
    app.use(
      authRoutes({
        store,
        secret,
        tokenTtlSeconds: deps.tokenTtlSeconds,
        passwords: new PasswordHasher(deps.hashing),
      }),
    );
  }
  // Last: the catch-all code route must not shadow the fixed paths above.
  const finished: AnyElysia = app.use(redirectRoutes(redirect, mode));
  return app;
}

export type App = ReturnType<typeof createApp>;
