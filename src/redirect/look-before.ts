// GET and HEAD /{code}+ (what a link is, before following it), /{code}+report (the
// report form) and the new-account interstitial: read from the store, not the redirect
// cache (they are not the hot path, and show what the cache does not keep). They count
// no click.

import type { Static } from 'elysia';
import { isoOrNull } from '../domain/moments.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { jsonResponse } from '../http/responses.ts';
import { isExpired } from '../links/link-json.ts';
import type { LinkDetail, Store } from '../store/store.ts';
import { wantsHtml } from '../web/page-shell.ts';
import { infoPage, type LinkFacts, reportPage } from './link-pages.ts';
import { LinkInfoSchema } from './model.ts';

export interface LookBeforeOptions {
  store: Pick<Store, 'findLinkDetail'>;
  domains: Pick<DomainRegistry, 'domainOf'>;
  /** Headers every answer carries (nosniff, HSTS). */
  headers: Readonly<Record<string, string>>;
}

/** Rules or variants as stored (JSON text of a list): how many. */
const countOf = (text: string | null): number =>
  text === null ? 0 : (JSON.parse(text) as unknown[]).length;

/** What the `+` page tells of a link: never its owner, nor the target of one with a password. */
export function linkFacts(link: LinkDetail, shortUrl: string, now: number): LinkFacts {
  const password = link.passwordHash !== null;
  return {
    code: link.shortCode,
    shortUrl,
    originalUrl: password ? undefined : link.originalUrl,
    createdAt: link.createdAt,
    disabled: link.disabledAt === null ? null : { reason: link.disabledReason },
    expired: isExpired(link, now),
    expiresAt: link.expiresAt,
    maxClicks: link.maxClicks,
    password,
    rules: countOf(link.rules),
    variants: countOf(link.variants),
  };
}

export function linkInfoJson(facts: LinkFacts): Static<typeof LinkInfoSchema> {
  return {
    code: facts.code,
    short_url: facts.shortUrl,
    original_url: facts.originalUrl ?? facts.shortUrl,
    created_at: new Date(facts.createdAt).toISOString(),
    disabled: facts.disabled !== null,
    disabled_reason: facts.disabled?.reason ?? null,
    expired: facts.expired,
    expires_at: isoOrNull(facts.expiresAt),
    max_clicks: facts.maxClicks,
    password: facts.password,
    rules: facts.rules,
    variants: facts.variants,
  };
}

/** JSON only when asked for and no page is: a browser's Accept names text/html. */
function wantsJson(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('application/json') && !wantsHtml(request);
}

export function createLookBefore(options: LookBeforeOptions) {
  const { store, domains, headers } = options;

  async function facts(code: string, domainId: number): Promise<LinkFacts | undefined> {
    const link = await store.findLinkDetail(code, domainId);
    if (link === undefined) return undefined;
    return linkFacts(link, `${domains.domainOf(domainId).baseUrl}/${code}`, Date.now());
  }

  return {
    /**
     * The `+` page (or its JSON); with `proceed`, the interstitial's, with its Continue
     * button. Undefined when no link has the code.
     */
    async info(
      code: string,
      domainId: number,
      request: Request,
      proceed: boolean,
    ): Promise<Response | undefined> {
      const found = await facts(code, domainId);
      if (found === undefined) return undefined;
      const bodyless = request.method === 'HEAD';
      if (wantsJson(request)) {
        const response = jsonResponse(200, LinkInfoSchema, linkInfoJson(found), {
          ...headers,
          'cache-control': 'private, no-store',
        });
        return bodyless ? new Response(null, response) : response;
      }
      return infoPage(found, headers, request, { now: Date.now(), proceed });
    },

    /** The report form; undefined when no link has the code. */
    async report(code: string, domainId: number, request: Request): Promise<Response | undefined> {
      const found = await facts(code, domainId);
      if (found === undefined) return undefined;
      return reportPage(found, headers, request);
    },
  };
}

export type LookBefore = ReturnType<typeof createLookBefore>;
