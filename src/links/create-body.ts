// What a create body asks for (POST /api/shorten's body, and each item of POST
// /api/links/bulk), read by each field's rule in the order the API documents, so that
// both answer the same first broken rule with the same message.

import { parseCustomCode } from '../domain/codes.ts';
import { badRequest, Messages } from '../domain/errors.ts';
import { normalizeHost, requestAuthority } from '../domain/hosts.ts';
import { parsePreview, type StoredPreview } from '../domain/link-preview.ts';
import { parseRules, parseVariants, type Rule, type Variant } from '../domain/link-routing.ts';
import { parseExpiresAt, parseLinkPassword, parseMaxClicks } from '../domain/link-settings.ts';
import { parseSource } from '../domain/sources.ts';
import { parseTags } from '../domain/tags.ts';
import { type Blocklist, checkTarget, type SelfHosts } from '../domain/targets.ts';
import { parseTargetUrl } from '../domain/urls.ts';
import type { ShortDomain } from '../domains/registry.ts';
import { requireObject } from '../http/body.ts';
import { type Domains, namedDomain } from './link-domain.ts';

/** The fields of a create body, each checked by its rule. */
export interface CreateFields {
  originalUrl: string;
  /** Undefined: a code is generated. */
  custom: string | undefined;
  source: string | null;
  expiresAt: number | null;
  maxClicks: number | null;
  /** The password in clear, to be hashed; undefined or null: none. */
  password: string | null | undefined;
  tags: string[] | undefined;
  /** Redirect rules and an A/B split; null: none. */
  rules: Rule[] | null;
  variants: Variant[] | null;
  /** The card shown to link-preview crawlers (a pending one for `auto`); null: none. */
  preview: StoredPreview | null;
  /** The name of the short domain, as given; undefined: the default one. */
  domainName: string | undefined;
}

/**
 * The fields of a create body by the rules that need nothing of the running service:
 * `url`, `custom_code`, `source`, `expires_at`, `max_clicks`, `password`, `tags`,
 * `rules`, `variants`, `preview`, and a `domain` that is a string or null. `checkUrl` runs right
 * after `url`, and on each target of a rule or variant (the target rules of the running
 * service). The first broken rule throws its 400.
 */
export function parseCreateFields(
  body: Record<string, unknown>,
  checkUrl?: (url: string) => void,
): CreateFields {
  const checked = checkUrl ?? (() => {});
  const originalUrl = parseTargetUrl(body.url);
  checked(originalUrl);
  const custom = parseCustomCode(body.custom_code);
  const source = parseSource(body.source) ?? null;
  const expiresAt = parseExpiresAt(body.expires_at) ?? null;
  const maxClicks = parseMaxClicks(body.max_clicks) ?? null;
  const password = parseLinkPassword(body.password);
  const tags = parseTags(body.tags);
  const rules = parseRules(body.rules, checked) ?? null;
  const variants = parseVariants(body.variants, checked) ?? null;
  const preview = parsePreview(body.preview) ?? null;
  const domain = body.domain;
  if (domain !== undefined && domain !== null && typeof domain !== 'string') {
    throw badRequest(Messages.unknownDomain);
  }
  return {
    originalUrl,
    custom,
    source,
    expiresAt,
    maxClicks,
    password,
    tags,
    rules,
    variants,
    preview,
    domainName: domain ?? undefined,
  };
}

/** What a create body is checked against besides its own fields. */
export interface CreateContext {
  /** kurz's own hosts and the one the request came to: a target on one is refused. */
  self: SelfHosts;
  blocklist: Blocklist | undefined;
  domains: Domains;
}

/** A create body read whole: its fields and the short domain it names. */
export interface CreateRequest extends CreateFields {
  domain: ShortDomain;
}

/**
 * A whole create body, checked in the order the API documents: a JSON object, `url`
 * (with the target rules: not kurz itself, not blocked), the other fields (the targets
 * of rules and variants by the same rules), then
 * whether `domain` names one of the short domains. The first broken rule throws its 400.
 */
export function parseCreateBody(body: unknown, context: CreateContext): CreateRequest {
  const fields = parseCreateFields(requireObject(body), (url) =>
    checkTarget(url, context.self, context.blocklist),
  );
  return { ...fields, domain: namedDomain(context.domains, fields.domainName) };
}

/** The canonical Host a request was sent to, as the target rules compare it (Bun builds the URL from it). */
export function requestHostOf(request: Request): string | undefined {
  return normalizeHost(requestAuthority(request.url));
}

/** A committed link, as the reading of its auto preview needs it. */
export function pendingOf(link: { shortCode: string; domainId: number; originalUrl: string }) {
  return { code: link.shortCode, domainId: link.domainId, originalUrl: link.originalUrl };
}
