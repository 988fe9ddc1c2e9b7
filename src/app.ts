// createApp builds the whole HTTP app without listening, so the binary and the tests
// share it. Which routes exist depends on the mode; everything else is passed in.

import { type AnyElysia, Elysia } from 'elysia';
import { type HashingCost, PasswordHasher } from './auth/passwords.ts';
import { authRoutes } from './auth/routes.ts';
import { ClickWriter } from './clicks/click-writer.ts';
import type { Mode } from './config/config.ts';
import { healthRoutes } from './health/routes.ts';
import { errorHandler, errorToResponse } from './http/error-handler.ts';
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
  const cache = new LinkCache(store, { ...DEFAULT_CACHE, ...deps.cache });
  const secret = deps.jwtSecret;

  const onFault = (error: unknown, request: Request) => errorToResponse(error, request, log);
  const redirect = createRedirect({ mode, cache, clicks: writers.clicks, onError: onFault });
  const app = new Elysia({
    strictPath: true,
    // Served by Bun itself when listening; Elysia's own route below answers app.handle().
    serve: { routes: nativeRedirectRoute(redirect, onFault) },
  })
    .use(errorHandler(log))
    // The document describes the finished app, so it reads the routes when first asked.
    .use(apiDocs(mode, () => finished, deps.baseUrl))
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
