// The public form of a link: exactly the fields interface.md lists for the mode.

import type { Mode } from '../config/config.ts';
import type { Link } from '../store/store.ts';

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
