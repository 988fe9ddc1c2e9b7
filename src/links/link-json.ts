// The public form of a link: exactly the fields the API documents for the mode, typed
// by the schemas the OpenAPI document shows (links/model.ts), so the two cannot part.
// Pure: the stores' webhook payloads use it too (types only from the layers around it).

import type { Static } from '@sinclair/typebox';
import type { Mode } from '../config/config.ts';
import { storedPreview } from '../domain/link-preview.ts';
import { isoOrNull } from '../domain/moments.ts';
import type { Link, LinkDetail } from '../store/store.ts';
import type { AccountsLink, AccountsLinkDetail, OpenLink, OpenLinkDetail } from './model.ts';

export type OpenLinkJson = Static<typeof OpenLink>;
export type AccountsLinkJson = Static<typeof AccountsLink>;
export type LinkJson = OpenLinkJson | AccountsLinkJson;
export type LinkDetailJson = Static<typeof OpenLinkDetail> | Static<typeof AccountsLinkDetail>;

function openLinkJson(link: Link): OpenLinkJson {
  return {
    id: link.id,
    original_url: link.originalUrl,
    short_code: link.shortCode,
    created_at: new Date(link.createdAt).toISOString(),
    clicks: link.clicks,
  };
}

function accountsLinkJson(link: Link): AccountsLinkJson {
  return {
    id: link.id,
    user_id: link.userId,
    original_url: link.originalUrl,
    short_code: link.shortCode,
    created_at: new Date(link.createdAt).toISOString(),
    clicks: link.clicks,
  };
}

export function linkToJson(mode: Mode): (link: Link) => LinkJson {
  return mode === 'open' ? openLinkJson : accountsLinkJson;
}

/** Whether a link answers 410 now: past its expiry, or its max_clicks counted. */
export function isExpired(link: LinkDetail, now = Date.now()): boolean {
  return (
    (link.expiresAt !== null && now >= link.expiresAt) ||
    (link.maxClicks !== null && link.limitedClicks >= link.maxClicks)
  );
}

/** What the JSON of a link shows of its domain. */
export type DomainOf = (domainId: number) => { host: string; baseUrl: string };

/**
 * GET /api/links/{code}: the link object, then its short URL, domain and tags, then its
 * settings (never the password's hash).
 */
export function linkDetailToJson(
  mode: Mode,
  domainOf: DomainOf,
): (link: LinkDetail) => LinkDetailJson {
  const toJson = linkToJson(mode);
  return (link) => {
    const domain = domainOf(link.domainId);
    return {
      ...toJson(link),
      short_url: `${domain.baseUrl}/${link.shortCode}`,
      domain: domain.host,
      tags: link.tags,
      source: link.source,
      expires_at: isoOrNull(link.expiresAt),
      max_clicks: link.maxClicks,
      password_protected: link.passwordHash !== null,
      rules: link.rules === null ? [] : JSON.parse(link.rules),
      variants: link.variants === null ? [] : JSON.parse(link.variants),
      preview: storedPreview(link.preview),
      status: isExpired(link) ? 'expired' : 'active',
      disabled: link.disabledAt !== null,
      disabled_reason: link.disabledReason,
    };
  };
}
