// GET and HEAD /{code}: the hot path. Route → cache → click writer → 307.
// A GET waits for its click to be committed before the 307 leaves; HEAD counts nothing.
// A visit is answered in one order (follow()): disabled by an admin (410) → expiry and
// click limit (410) → the new-account interstitial (the `+` page) → password (its form,
// which POST /{code} answers) → the link's rules → its A/B split → its target; a
// link-preview crawler gets the link's card instead of the 307.
// A code never holds `+`, so `/{code}+`, `/{code}+report` and `/{code}+go` share the
// route: only a path that is not a code is looked at for them (look-before.ts).
// The same redirect() serves two routes: Elysia's (app.handle, as tests use it) and a
// route Bun serves natively when listening, which skips Elysia's per-request context.

import type { PasswordHasher } from '../auth/passwords.ts';
import type { ClickWriter } from '../clicks/click-writer.ts';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { ApiError, Messages, tooManyRequests } from '../domain/errors.ts';
import {
  clickReferrer,
  clickUserAgent,
  cut,
  SOURCE_MAX_LENGTH,
  storable,
} from '../domain/sources.ts';
import { toLocationHeader } from '../domain/urls.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { BODY_DEADLINE_MS, readBodyText } from '../http/body.ts';
import { errorResponse } from '../http/responses.ts';
import {
  type AbuseLimits,
  type ClientOf,
  clientKey,
  type PeerSource,
} from '../net/abuse-limits.ts';
import { isPreviewCrawler } from '../previews/crawlers.ts';
import { previewPage } from '../previews/preview-page.ts';
import type { Click } from '../store/store.ts';
import { pageLanguage, wantsHtml } from '../web/page-shell.ts';
import { type CachedLink, type LinkCache, UNKNOWN } from './link-cache.ts';
import { disabledPage } from './link-pages.ts';
import type { LookBefore } from './look-before.ts';
import { passwordAccepted, passwordPage } from './password-page.ts';

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
  /** Checks the passwords of protected links. */
  passwords: Pick<PasswordHasher, 'verify'>;
  /** The short domains: the request's Host chooses whose code it is. */
  domains: Pick<DomainRegistry, 'several' | 'forHost' | 'of'>;
  /** The `+` pages and the interstitial. */
  lookBefore: LookBefore;
}

/** What a path that is not a code may be: a code with one of these suffixes. */
const SUFFIXED = /^([A-Za-z0-9_-]{1,32})\+(report|go)?$/;

/**
 * Whether a browser took this step from one of kurz's own pages (the interstitial's
 * Continue, the password form behind it): `Sec-Fetch-Site`, which no page can set. Only
 * then does `/{code}+go` skip the interstitial, so a link to `/{code}+go` shared
 * elsewhere (or followed by a client that sends no such header) shows it as `/{code}` does.
 */
const fromOwnPage = (request: Request): boolean =>
  request.headers.get('sec-fetch-site') === 'same-origin';

/** Answers every request itself: its Promise never rejects. */
export type Redirect = (
  code: string,
  request: Request,
  server: PeerSource | null,
) => Response | Promise<Response>;

/**
 * What the redirects answered, counted as plain numbers (the metrics read them when
 * scraped; the hot path pays an increment, nothing more). The 307s are counted by the
 * cache that makes them (LinkCache.redirectCount).
 */
export interface RedirectCounts {
  /** 404: no link has the code (or a POST to a link without a password). */
  notFound: number;
  /** 302: no link has the code on a domain that sends unknown codes elsewhere. */
  notFoundRedirected: number;
  /** 410: past its expiry or its max_clicks. */
  expired: number;
  /** 200: the password page of a protected link. */
  passwordPage: number;
  /** 303: the right password; the click counted. */
  unlocked: number;
  /** 200: the preview card shown to a link-preview crawler; the click counted. */
  previewPage: number;
  /** 401: a wrong password. */
  passwordWrong: number;
  /** 429: too many unknown codes, or wrong passwords, from one client. */
  rateLimited: number;
  /** 503 or 500: the click could not be committed, or the lookup failed. */
  failed: number;
  /** 410: a link an admin disabled. */
  disabled: number;
  /** 200: the `+` page of a link (GET or HEAD /{code}+). */
  infoPage: number;
  /** 200: the `+` page in place of the redirect, for a link of an account younger than the setting. */
  interstitial: number;
  /** A password form whose body the client cut off (it hung up): no fault of kurz's. */
  aborted: number;
}

/** GET and HEAD follow; POST brings a protected link's password. */
export interface Redirects {
  follow: Redirect;
  unlock: Redirect;
  counts: RedirectCounts;
}

export function createRedirect(options: RedirectRoutesOptions): Redirects {
  const { mode, cache, clicks, onError, clientOf, headers = {}, passwords, domains } = options;
  const { lookBefore } = options;
  const unknownCodes = options.limits?.unknownCode;
  const wrongPasswords = options.limits?.linkPassword;
  const trackQuerySource = mode === 'accounts';
  const counts: RedirectCounts = {
    notFound: 0,
    notFoundRedirected: 0,
    expired: 0,
    passwordPage: 0,
    unlocked: 0,
    previewPage: 0,
    passwordWrong: 0,
    rateLimited: 0,
    failed: 0,
    disabled: 0,
    infoPage: 0,
    interstitial: 0,
    aborted: 0,
  };
  // A click the writer could not commit: it rejects only with StoreUnavailableError (and
  // has logged the batch's failure), so this needs no request and is made once.
  const clickFailed = () => {
    counts.failed++;
    return errorResponse(503, Messages.databaseUnavailable, headers);
  };
  const notFound = () => {
    counts.notFound++;
    return errorResponse(404, Messages.notFound, headers);
  };
  const expired = () => {
    counts.expired++;
    return errorResponse(410, Messages.linkExpired, headers);
  };
  /** 410 for a link an admin disabled: a page for a browser, JSON for anyone else. */
  const disabled = (link: CachedLink, request: Request) => {
    counts.disabled++;
    if (!wantsHtml(request)) return errorResponse(410, Messages.linkDisabled, headers);
    const reason = link.disabled?.reason ?? null;
    return disabledPage(link.code, reason, headers, request);
  };
  /** A fault while answering (a body refused with 413 or 408 is no fault of kurz's). */
  const failed = (error: unknown, request: Request) => {
    if (!(error instanceof ApiError)) counts.failed++;
    return onError(error, request);
  };

  /** The domain a request is for: the default one (0) unless others exist and its Host names one. */
  const domainOf = (request: Request): number =>
    domains.several ? domains.forHost(request.headers.get('host')).id : 0;

  /** Synchronous on a cache hit; a Promise only when a click must commit or the store be asked. */
  function redirect(
    code: string,
    request: Request,
    server: PeerSource | null,
  ): Response | Promise<Response> {
    const domainId = domainOf(request);
    if (!isCodeShaped(code)) return suffixed(code, request, server, domainId);
    const link = cache.peek(code, domainId);
    if (link === UNKNOWN) return unknown(request, server, domainId);
    if (link === undefined) return lookUpThenRedirect(code, domainId, request, server);
    return follow(link, request, server);
  }

  /**
   * A path that is not a code: `{code}+` (the link's page), `{code}+report` (its report
   * form), `{code}+go` (its redirect without the interstitial), or nothing (404).
   */
  function suffixed(
    path: string,
    request: Request,
    server: PeerSource | null,
    domainId: number,
  ): Response | Promise<Response> {
    const match = SUFFIXED.exec(path);
    if (match === null) return unknown(request, server, domainId);
    return suffixPage(match[1] as string, match[2], request, server, domainId);
  }

  async function suffixPage(
    code: string,
    suffix: string | undefined,
    request: Request,
    server: PeerSource | null,
    domainId: number,
  ): Promise<Response> {
    try {
      if (suffix === 'go') {
        const link = await cache.get(code, domainId);
        return link === undefined
          ? unknown(request, server, domainId)
          : follow(link, request, server, fromOwnPage(request));
      }
      const page =
        suffix === 'report'
          ? await lookBefore.report(code, domainId, request)
          : await lookBefore.info(code, domainId, request, false);
      if (page === undefined) return unknown(request, server, domainId);
      counts.infoPage++;
      return page;
    } catch (error) {
      return failed(error, request);
    }
  }

  /** Whether a visit meets the interstitial first: the link of an account younger than the setting. */
  function underInterstitial(link: CachedLink): boolean {
    return link.interstitialUntil !== null && Date.now() < link.interstitialUntil;
  }

  /** The `+` page in place of the redirect, for a link of an account younger than the setting. */
  async function interstitial(link: CachedLink, request: Request): Promise<Response> {
    try {
      const page = await lookBefore.info(link.code, link.domainId, request, true);
      if (page === undefined) return notFound();
      counts.interstitial++;
      return page;
    } catch (error) {
      return failed(error, request);
    }
  }

  /**
   * 404 for a code with no link (or the domain's own address for unknown codes, when it
   * has one), or 429 once the client has asked for too many: code guessing is limited,
   * while a known code never meets the limiter.
   */
  function unknown(request: Request, server: PeerSource | null, domainId: number): Response {
    if (unknownCodes !== undefined) {
      const wait = unknownCodes.take(clientKey(clientOf, request, server));
      if (wait > 0) {
        counts.rateLimited++;
        return onError(tooManyRequests(wait), request);
      }
    }
    const elsewhere = domainId === 0 ? null : (domains.of(domainId)?.notFoundRedirect ?? null);
    if (elsewhere !== null) {
      counts.notFoundRedirected++;
      return new Response(null, {
        status: 302,
        headers: {
          ...headers,
          location: toLocationHeader(elsewhere),
          'cache-control': 'private, no-store',
        },
      });
    }
    return notFound();
  }

  /**
   * The 307 to a known link, once its click is committed (HEAD counts nothing); 410 for
   * one past its expiry; the password form for a protected one.
   */
  function follow(
    link: CachedLink,
    request: Request,
    server: PeerSource | null,
    /** The interstitial was passed on kurz's own page (`/{code}+go` from its Continue). */
    passed = false,
  ): Response | Promise<Response> {
    if (link.disabled !== null) return disabled(link, request);
    if (link.exhausted || (link.expiresAt !== null && Date.now() >= link.expiresAt)) {
      return expired();
    }
    if (!passed && underInterstitial(link)) return interstitial(link, request);
    if (link.passwordHash !== null) {
      counts.passwordPage++;
      return passwordPage(200, undefined, headers, link.code, request);
    }
    // Rules and split, when the link has them: the visit's target, worked out once.
    const routed = link.routing?.route({ request, address: () => clientOf(request, server) });
    let respond = routed === undefined ? link.respond : () => link.respondTo(routed);
    // A chat or social app's crawler gets the card and a page that refreshes to the target.
    if (link.card !== undefined && isPreviewCrawler(request.headers.get('user-agent'))) {
      const card = link.card;
      const target = routed?.location ?? link.location;
      respond = () => {
        counts.previewPage++;
        return previewPage(card, target, pageLanguage(request), headers);
      };
    }
    // Elysia runs GET routes for HEAD as well; HEAD must not count.
    if (request.method === 'HEAD') return respond();
    // The click keeps what served it (null: the link's own target).
    const route = routed === undefined || routed.route === 'default' ? null : routed.route;
    if (link.limited) return countLimited(link, request, server, respond, route).then(answer);
    return count(link, request, server, route).then(respond, clickFailed);
  }

  /**
   * A click of a link with max_clicks: the store counts it only while the limit has
   * room (exactly, across instances), and a refusal answers 410 from then on.
   */
  async function countLimited(
    link: CachedLink,
    request: Request,
    server: PeerSource | null,
    respond: () => Response,
    route: string | null,
  ): Promise<() => Response> {
    let counted: boolean;
    try {
      counted = await clicks.recordLimited(click(link, request, server, route));
    } catch {
      return clickFailed;
    }
    if (counted) return respond;
    link.exhausted = true;
    return expired;
  }

  async function lookUpThenRedirect(
    code: string,
    domainId: number,
    request: Request,
    server: PeerSource | null,
  ): Promise<Response> {
    try {
      const link = await cache.get(code, domainId);
      return link === undefined
        ? unknown(request, server, domainId)
        : follow(link, request, server);
    } catch (error) {
      return failed(error, request);
    }
  }

  /** Resolves once the click is committed (the 307 must not leave before). */
  function count(
    link: CachedLink,
    request: Request,
    server: PeerSource | null,
    route: string | null = null,
  ) {
    return clicks.record(click(link, request, server, route));
  }

  function click(
    link: CachedLink,
    request: Request,
    server: PeerSource | null,
    route: string | null = null,
  ): Click {
    const headers = request.headers;
    return {
      linkId: link.id,
      source: link.source,
      querySource: trackQuerySource ? querySource(request.url) : null,
      referrer: header(headers, 'referer', clickReferrer),
      userAgent: header(headers, 'user-agent', clickUserAgent),
      createdAt: Date.now(),
      address: clientOf(request, server),
      country: null,
      route,
      limited: link.limited,
    };
  }

  /**
   * POST /{code}: the password form of a protected link. The right password counts the
   * click and sends the visitor on with 303 (a 307 would make the browser post the
   * password to the target); a wrong one shows the form again with 401, until the
   * client has spent its tries on this link (429).
   */
  async function unlock(path: string, request: Request, server: PeerSource | null) {
    try {
      const domainId = domainOf(request);
      // The form of a link reached through the interstitial posts to `{code}+go`.
      const code = path.endsWith('+go') ? path.slice(0, -3) : path;
      const link = isCodeShaped(code) ? await cache.get(code, domainId) : undefined;
      if (link === undefined) return unknown(request, server, domainId);
      if (link.disabled !== null) return disabled(link, request);
      if (link.exhausted || (link.expiresAt !== null && Date.now() >= link.expiresAt)) {
        return expired();
      }
      // Only a protected link takes a POST (a method a path does not serve is 404).
      if (link.passwordHash === null) return notFound();
      if (!fromOwnPage(request) && underInterstitial(link)) return interstitial(link, request);
      const key = `${domainId}/${code}\u0000${clientKey(clientOf, request, server)}`;
      const wait = wrongPasswords?.left(key) ?? 0;
      if (wait > 0) return tooManyTries(wait, code, request);
      const body = await readForm(request);
      if (body === ABORTED) return aborted();
      const password = formPassword(body);
      if (password === undefined || !(await passwords.verify(password, link.passwordHash))) {
        const after = wrongPasswords?.take(key) ?? 0;
        if (after > 0) return tooManyTries(after, code, request);
        counts.passwordWrong++;
        return passwordPage(401, 'wrong', headers, code, request);
      }
      wrongPasswords?.reset(key);
      // The rules and split of a protected link apply once its password is accepted.
      const routed = link.routing?.route({ request, address: () => clientOf(request, server) });
      const route = routed === undefined || routed.route === 'default' ? null : routed.route;
      if (!link.limited) await count(link, request, server, route);
      else if (!(await clicks.recordLimited(click(link, request, server, route)))) {
        link.exhausted = true;
        return expired();
      }
      counts.unlocked++;
      // A browser is sent on by a page: a redirect would carry the form's navigation on
      // to the target, which the form's `form-action 'self'` refuses.
      if (wantsHtml(request)) {
        const cookie = routed?.cookie;
        const extra = cookie === undefined ? headers : { ...headers, 'set-cookie': cookie };
        return passwordAccepted(routed?.location ?? link.location, extra, request);
      }
      if (routed !== undefined) return link.respondTo(routed, 303);
      return new Response(null, {
        status: 303,
        headers: { ...headers, location: link.location, 'cache-control': 'private, no-store' },
      });
    } catch (error) {
      return failed(error, request);
    }
  }

  /** Answered to no one (the client is gone), but answered: 400 as a cut-off JSON body is. */
  function aborted(): Response {
    counts.aborted++;
    return errorResponse(400, Messages.bodyNotObject, headers);
  }

  function tooManyTries(wait: number, code: string, request: Request): Response {
    counts.rateLimited++;
    const retry = { ...headers, 'retry-after': String(wait) };
    return passwordPage(429, 'tooMany', retry, code, request);
  }

  return { follow: redirect, unlock, counts };
}

/** What readForm() answers for a body the client stopped sending (it hung up). */
const ABORTED: unique symbol = Symbol('aborted');

/**
 * The password form's body as text; ABORTED when the client hung up while sending it.
 * 413 and 408 (an ApiError) stay what they are; any other failure to read the body is
 * the connection's, not kurz's, and is neither logged nor counted as a fault.
 */
async function readForm(request: Request): Promise<string | typeof ABORTED> {
  try {
    return await readBodyText(request, BODY_DEADLINE_MS);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    return ABORTED;
  }
}

/** The `password` field of a urlencoded form; undefined when absent or empty. */
function formPassword(body: string): string | undefined {
  const password = new URLSearchParams(body).get('password');
  return password === null || password === '' ? undefined : password;
}

/** Calls the answer chosen once a click's fate is known. */
const answer = (respond: () => Response): Response => respond();

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
