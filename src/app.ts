// createApp builds the whole HTTP app without listening, so the binary and the tests
// share it. Which routes exist depends on the mode; everything else is passed in.

import { type AnyElysia, Elysia } from 'elysia';
import { AdminActions } from './admin/actions.ts';
import { BlockedHosts } from './admin/blocked-hosts.ts';
import { adminReportRoutes } from './admin/reports-routes.ts';
import { adminRoutes } from './admin/routes.ts';
import { countryOf } from './analytics/countries.ts';
import { keyRoutes } from './auth/key-routes.ts';
import type { RelyingParty } from './auth/oidc-client.ts';
import { oidcRoutes } from './auth/oidc-routes.ts';
import { type HashingCost, PasswordHasher } from './auth/passwords.ts';
import { authRoutes } from './auth/routes.ts';
import { TokenKey } from './auth/tokens.ts';
import { ClickWriter } from './clicks/click-writer.ts';
import type { Mode, RateLimits, Registration } from './config/config.ts';
import { parseTrustedProxies } from './config/values.ts';
import { liveOwnHosts } from './domain/own-hosts.ts';
import type { Blocklist } from './domain/targets.ts';
import type { DomainRegistry } from './domains/registry.ts';
import { domainRoutes } from './domains/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { AccessLog } from './http/access-log.ts';
import { crossOrigin } from './http/cross-origin.ts';
import {
  errorHandler,
  errorToResponse,
  type FaultCounts,
  faultLine,
} from './http/error-handler.ts';
import { responseHeaders, securityHeaders, withHeaders } from './http/headers.ts';
import { requestObserver } from './http/request-observer.ts';
import { bulkRoutes } from './links/bulk-routes.ts';
import { LinkEvents } from './links/link-events.ts';
import { LinkWriter } from './links/link-writer.ts';
import { listRoutes } from './links/list-routes.ts';
import { manageRoutes } from './links/manage-routes.ts';
import { linkRoutes } from './links/routes.ts';
import { statsRoutes } from './links/stats-routes.ts';
import { consoleLogger, type Logger, throttled } from './logger.ts';
import { Metrics } from './metrics/metrics.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { clientResolver, createAbuseLimits, type PeerOf } from './net/abuse-limits.ts';
import { AutoPreviews } from './previews/auto-previews.ts';
import { nativeRedirectRoute, REDIRECT_ROUTE, redirectRoutes } from './redirect/http-routes.ts';
import { DEFAULT_CACHE, LinkCache, type LinkCacheOptions } from './redirect/link-cache.ts';
import { createLookBefore } from './redirect/look-before.ts';
import { createRedirect } from './redirect/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import type { Store } from './store/store.ts';
import { tagRoutes } from './tags/routes.ts';
import type { AcmeOrderCounts } from './tls/acme/manager.ts';
import type { CertificateSet } from './tls/certificates.ts';
import { apiDocs } from './web/api-docs.ts';
import { webRoutes } from './web/routes.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { systemResolve, type TargetPolicy } from './webhooks/targets.ts';

export interface AppDeps {
  mode: Mode;
  store: Store;
  /** The resolved token key (accounts mode); a TokenKey when it may be replaced while running. */
  jwtSecret: string | TokenKey;
  tokenTtlSeconds: number;
  /**
   * The public address of short links, for the web UI and QR codes. A function, since
   * the default (http://localhost:PORT) is known only once the server listens.
   */
  baseUrl: () => string;
  /**
   * The canonical host (`hostname[:port]`, as urlHost gives it) of every registered short
   * domain besides the base URL's: kurz itself too, for the self-link and known-host
   * checks. Called on every check: hand out the same set until the domains change, since
   * the checks remake what they derive from it only then. The registry's when absent.
   */
  registeredHosts?: () => ReadonlySet<string>;
  /** Origins whose pages may call the API from a browser (--cors-origins); none by default. */
  corsOrigins?: readonly string[];
  /** Host names besides its own a browser may write to kurz under (--allowed-hosts), canonical. */
  allowedHosts?: readonly string[];
  /** Given by the binary so it can drain pending writes on shutdown. */
  writers?: Writers;
  cache?: Partial<LinkCacheOptions>;
  hashing?: HashingCost;
  log?: Logger;
  /** Abuse limits; absent means none (as with --rate-limits off). */
  rateLimits?: RateLimits;
  /** Addresses and CIDR blocks of reverse proxies whose forwarding headers are believed. */
  trustedProxies?: readonly string[];
  /** The blocklist file's list in force; a function, since SIGHUP reloads it. */
  blocklist?: () => Blocklist | undefined;
  /**
   * The database's part of the blocklist (BlockedHosts.open, read before listening); one
   * that reads the list as the app starts when absent.
   */
  blockedHosts?: BlockedHosts;
  /** The socket peer of a request; the server's by default (tests in-process give their own). */
  peerAddress?: PeerOf;
  /** Links one user may own (accounts mode); 0 or absent: no limit. */
  maxLinksPerUser?: number;
  /** Open mode's link management token (--admin-token); absent: management refused. */
  adminToken?: string;
  /** Whether anyone may register (accounts mode); open when absent. */
  registration?: Registration;
  /** false (--password-login off): only the OpenID Provider signs people in; true when absent. */
  passwordLogin?: boolean;
  /**
   * Sign-in through an OpenID Provider (accounts mode, --oidc-issuer), which the caller
   * starts (discovery) and stops; absent: none.
   */
  oidc?: RelyingParty;
  /**
   * The sender of the webhook outbox, which the caller starts and stops (the binary
   * does); absent: one with private targets refused that is never started, so webhooks
   * can be registered and their messages wait in the outbox.
   */
  webhooks?: WebhookDispatcher;
  /** The bearer token of GET /api/metrics (--metrics-token); absent: no metrics route. */
  metricsToken?: string;
  /** The ACME orders of --tls auto (AcmeManager's counts), for the metrics; absent: none. */
  acmeOrders?: AcmeOrderCounts;
  /** A line per request answered (--access-log on). */
  accessLog?: boolean;
  /** The short domains (DomainRegistry.open), followed as any instance changes them. */
  domains: DomainRegistry;
  /**
   * Where `preview: "auto"` may read target pages from: public addresses only unless
   * private ones are allowed (the binary follows --webhook-allow-private). Refused by default.
   */
  previewPolicy?: TargetPolicy;
  /** The reader of auto previews; one with previewPolicy when absent. */
  previews?: AutoPreviews;
  /**
   * --new-account-interstitial: links of accounts younger than this many days answer the
   * `+` page in place of their redirect (accounts mode); 0 or absent: off.
   */
  newAccountInterstitialDays?: number;
  /**
   * Set when kurz serves HTTPS itself (--tls): the HSTS max-age of every answer (0: no
   * HSTS), in place of the rule that follows the base URL's scheme.
   */
  hstsMaxAgeSeconds?: number;
  /** The certificates served over HTTPS, for the metrics (days to expiry); none without --tls. */
  certificates?: CertificateSet;
  /** How many times the HTTPS listener was replaced with new certificates, for the metrics. */
  listenerSwaps?: () => number;
}

/** Writes that may wait for a commit at once, per writer, before more are refused with 503. */
export const MAX_PENDING_WRITES = 50_000;

/** The group-committed writers: clicks of redirects and new links. */
export interface Writers {
  clicks: ClickWriter;
  links: LinkWriter;
}

export function createWriters(store: Store, log: Logger): Writers {
  const options = (what: string) => {
    // Every batch fails while the disk is full: one line a second says so.
    const faults = throttled(log);
    return {
      maxPending: MAX_PENDING_WRITES,
      maxInFlight: store.writeConcurrency ?? 1,
      onError: (e: unknown) => faults.error(`${what} batch failed: ${faultLine(e)}`),
    };
  };
  return {
    clicks: new ClickWriter(store, options('click'), countryOf),
    links: new LinkWriter(store, options('link')),
  };
}

/** Commits everything the writers hold. */
export async function drainWriters(writers: Writers): Promise<void> {
  await Promise.all([writers.clicks.drain(), writers.links.drain()]);
}

export function createApp(deps: AppDeps) {
  const { mode, store, domains } = deps;
  const log = deps.log ?? consoleLogger;
  const writers = deps.writers ?? createWriters(store, log);
  const limits = createAbuseLimits(deps.rateLimits);
  const clientOf = clientResolver(parseTrustedProxies(deps.trustedProxies ?? []), deps.peerAddress);
  const blockedHosts = deps.blockedHosts ?? new BlockedHosts(store, log);
  if (deps.blockedHosts === undefined) blockedHosts.reload().catch(() => {});
  // The file's entries and the database's: a target either blocks is refused.
  const blocklist = blockedHosts.joined(deps.blocklist ?? (() => undefined));
  const registeredHosts = deps.registeredHosts ?? domains.registeredHosts;
  const ownHosts = liveOwnHosts(deps.baseUrl, registeredHosts);
  const secret = typeof deps.jwtSecret === 'string' ? new TokenKey(deps.jwtSecret) : deps.jwtSecret;

  // Read once: a base URL given at start-up is known here, and the default one
  // (http://localhost:PORT, known only once listening) is never https.
  const headers = securityHeaders(deps.baseUrl(), deps.hstsMaxAgeSeconds);
  const interstitialDays = mode === 'accounts' ? (deps.newAccountInterstitialDays ?? 0) : 0;
  const cacheOptions = {
    ...DEFAULT_CACHE,
    ...deps.cache,
    newAccountMs: interstitialDays * 86_400_000,
  };
  const cache = new LinkCache(store, cacheOptions, headers, {
    countryOf,
    secure: (domainId) => domains.domainOf(domainId).baseUrl.startsWith('https:'),
  });
  // Every change this instance commits reaches the cache here; other instances' changes
  // reach it through the store (watchLinks).
  const events = new LinkEvents();
  events.on((event) => cache.forget(event.code, event.domainId));
  const webhooks =
    deps.webhooks ??
    new WebhookDispatcher({
      store,
      domainOf: domains.domainOf,
      log,
      policy: { allowPrivate: false, resolve: systemResolve },
    });
  // The change is committed with its outbox messages: they may be sent now.
  events.on(() => webhooks.wake());
  const previews =
    deps.previews ??
    new AutoPreviews({
      store,
      policy: deps.previewPolicy ?? { allowPrivate: false, resolve: systemResolve },
      log,
      changed: (code, domainId) => events.emit({ kind: 'updated', code, domainId }),
    });
  const passwords = new PasswordHasher(deps.hashing);

  const faults: FaultCounts = { databaseUnavailable: 0 };
  // The redirect answers outside Elysia (natively served), so its faults get the headers here.
  const onFault = (error: unknown, request: Request) =>
    withHeaders(errorToResponse(error, request, log, undefined, faults), headers);
  const redirect = createRedirect({
    mode,
    cache,
    clicks: writers.clicks,
    onError: onFault,
    limits,
    clientOf,
    headers,
    passwords,
    domains,
    lookBefore: createLookBefore({ store, domains, headers }),
  });
  const metrics =
    deps.metricsToken === undefined
      ? undefined
      : new Metrics({
          redirects: redirect.counts,
          cache,
          clicks: writers.clicks,
          links: writers.links,
          faults,
          store,
          domainHost: (id) => domains.of(id)?.host,
          acmeOrders: deps.acmeOrders,
          certificates: deps.certificates,
          listenerSwaps: deps.listenerSwaps,
        });
  const accessLog = deps.accessLog ? new AccessLog(log, clientOf) : undefined;
  const nativeRoutes = nativeRedirectRoute(redirect, onFault);
  const app = new Elysia({
    strictPath: true,
    // Served by Bun itself when listening; Elysia's own route below answers app.handle().
    serve: { routes: accessLog === undefined ? nativeRoutes : accessLog.around(nativeRoutes) },
  })
    .use(errorHandler(log, faults))
    // The redirect has counters of its own (kurz_redirects_total).
    .use(requestObserver({ metrics, accessLog, uncounted: new Set([REDIRECT_ROUTE]) }))
    // Before any route reads the request: a cross-site refusal answers first.
    .use(
      crossOrigin({
        baseUrl: deps.baseUrl,
        ownHosts,
        corsOrigins: deps.corsOrigins ?? [],
        allowedHosts: deps.allowedHosts,
      }),
    )
    .use(responseHeaders(headers))
    // The document describes the finished app, so it reads the routes when first asked.
    .use(apiDocs(mode, () => finished, deps.baseUrl))
    .use(healthRoutes(store))
    .use(
      webRoutes({
        mode,
        baseUrl: deps.baseUrl,
        registration: deps.registration ?? 'open',
        domains,
      }),
    )
    .use(
      linkRoutes({
        mode,
        store,
        links: writers.links,
        events,
        passwords,
        secret,
        baseUrl: deps.baseUrl,
        limits,
        clientOf,
        ownHosts,
        blocklist,
        maxLinksPerUser: deps.maxLinksPerUser,
        domains,
        previews,
      }),
    )
    .use(
      bulkRoutes({
        mode,
        store,
        links: writers.links,
        events,
        passwords,
        secret,
        limits,
        clientOf,
        ownHosts,
        blocklist,
        maxLinksPerUser: deps.maxLinksPerUser,
        domains,
        previews,
      }),
    )
    .use(listRoutes({ mode, store, secret, domains, adminToken: deps.adminToken }))
    .use(
      manageRoutes({
        mode,
        store,
        secret,
        events,
        passwords,
        adminToken: deps.adminToken,
        ownHosts,
        blocklist,
        domains,
        previews,
      }),
    )
    .use(statsRoutes({ mode, store, secret, domains }))
    .use(tagRoutes({ mode, store, secret }))
    .use(webhookRoutes({ mode, store, secret, adminToken: deps.adminToken, dispatcher: webhooks }));
  const adminActions = new AdminActions({
    store,
    events,
    blockedHosts,
    forgetLinks: () => cache.forgetAll(),
    wake: () => webhooks.wake(),
  });
  const adminAccess = { mode, store, secret, adminToken: deps.adminToken };
  app.use(adminRoutes({ ...adminAccess, domains, actions: adminActions }));
  app.use(adminReportRoutes({ ...adminAccess, domains, actions: adminActions }));
  app.use(reportRoutes({ mode, store, domains, limits, clientOf, wake: () => webhooks.wake() }));
  app.use(
    domainRoutes({
      mode,
      store,
      secret,
      domains,
      adminToken: deps.adminToken,
      linksRemoved: () => webhooks.wake(),
    }),
  );
  if (metrics !== undefined && deps.metricsToken !== undefined) {
    app.use(metricsRoutes(metrics, deps.metricsToken));
  }
  if (mode === 'accounts') {
    app.use(
      authRoutes({
        registration: deps.registration ?? 'open',
        passwordLogin: deps.passwordLogin ?? true,
        oidc: deps.oidc?.settings,
        store,
        secret,
        tokenTtlSeconds: deps.tokenTtlSeconds,
        passwords,
        limits,
        clientOf,
      }),
    );
    if (deps.oidc !== undefined) {
      app.use(
        oidcRoutes({
          party: deps.oidc,
          store,
          secret,
          tokenTtlSeconds: deps.tokenTtlSeconds,
          registration: deps.registration ?? 'open',
          baseUrl: deps.baseUrl,
          log,
        }),
      );
    }
    app.use(keyRoutes({ store, secret }));
  }
  // Last: the catch-all code route must not shadow the fixed paths above.
  const finished: AnyElysia = app.use(redirectRoutes(redirect, mode));
  return app;
}

export type App = ReturnType<typeof createApp>;
