// The public form of a link: exactly the fields interface.md lists for the mode.

import type { Mode } from '../config/config.ts';
import { isoOrNull } from '../http/responses.ts';
import type { Link, LinkDetail } from '../store/store.ts';

export interface LinkJsonOpen {
  id: number;
  original_url: string;
  short_code: string;
  created_at: string;
  clicks: number;
}

export interface LinkJsonAccounts extends LinkJsonOpen {
  user_id: number | null;
}

export type LinkJson = LinkJsonOpen | LinkJsonAccounts;

export function linkToJson(mode: Mode): (link: Link) => LinkJson {
  if (mode === 'open') {
    return (link) => ({
      id: link.id,
      original_url: link.originalUrl,
      short_code: link.shortCode,
      created_at: new Date(link.createdAt).toISOString(),
      clicks: link.clicks,
    });
  }
  return (link) => ({
    id: link.id,
    user_id: link.userId,
    original_url: link.originalUrl,
    short_code: link.shortCode,
    created_at: new Date(link.createdAt).toISOString(),
    clicks: link.clicks,
  });
}

export type LinkDetailJson = LinkJson & {
  source: string | null;
  expires_at: string | null;
  max_clicks: number | null;
  password_protected: boolean;
  status: 'active' | 'expired';
};

/** Whether a link answers 410 now: past its expiry, or its max_clicks counted. */
export function isExpired(link: LinkDetail, now = Date.now()): boolean {
  return (
    (link.expiresAt !== null && now >= link.expiresAt) ||
    (link.maxClicks !== null && link.limitedClicks >= link.maxClicks)
  );
}

/** GET /api/links/{code}: the link object, then its settings (never the password's hash). */
export function linkDetailToJson(mode: Mode): (link: LinkDetail) => LinkDetailJson {
  const toJson = linkToJson(mode);
  return (link) => ({
    ...toJson(link),
    source: link.source,
    expires_at: isoOrNull(link.expiresAt),
    max_clicks: link.maxClicks,
    password_protected: link.passwordHash !== null,
    status: isExpired(link) ? 'expired' : 'active',
  });
}
