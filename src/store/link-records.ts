// What the store keeps of a link, as its readers see it: the link, what a redirect needs,
// every setting, and a change. store.ts re-exports them with the rest of the contract.

export interface Link {
  id: number;
  /** null for links made in open mode, which belong to no one. */
  userId: number | null;
  /** The short domain the code belongs to (DEFAULT_DOMAIN: --base-url's). */
  domainId: number;
  originalUrl: string;
  shortCode: string;
  /** Milliseconds since the Unix epoch, UTC. */
  createdAt: number;
  clicks: number;
}

/** What a redirect (or an owner check) needs to know of a link. */
export interface LinkTarget {
  id: number;
  userId: number | null;
  originalUrl: string;
  source: string | null;
  /** Milliseconds since the epoch after which the link answers 410; null: never. */
  expiresAt: number | null;
  /** Clicks after which the link answers 410; null: no limit. */
  maxClicks: number | null;
  /** Clicks counted against maxClicks so far (0 without a limit). */
  limitedClicks: number;
  /** argon2id hash of the link's password; null: none. */
  passwordHash: string | null;
  /** Redirect rules (domain/link-routing.ts's Rule[]) as JSON text; null: none. */
  rules: string | null;
  /** A/B variants (Variant[]) as JSON text; null: none. */
  variants: string | null;
  /** The preview shown to link-preview crawlers, as JSON text; null: none. */
  preview: string | null;
  /** When an admin disabled the link (it answers 410 before any other check); null: enabled. */
  disabledAt: number | null;
  /** Why, as the admin gave it (shown on the disabled-link page); null: no reason given. */
  disabledReason: string | null;
}

/** The routing settings of a new link or a change: JSON text, null for none. */
export type LinkRouting = Pick<LinkTarget, 'rules' | 'variants' | 'preview'>;

/** What a redirect reads of a link: its target and settings, and its owner's account's age. */
export interface RedirectTarget extends LinkTarget {
  /** When the owner's account was made (ms), for --new-account-interstitial; null: no one's link. */
  ownerSince: number | null;
}

/** Everything kept of a link: what GET /api/links/{code} shows, and the password hash. */
export interface LinkDetail extends Link, LinkTarget {
  /** Lower-cased, in alphabetical order. */
  tags: string[];
}

/**
 * A change to a link; an absent field is left as it is, null clears it. A new
 * maxClicks starts counting at the link's clicks so far (so a limit at or below them
 * expires the link at once).
 */
export type LinkChanges = {
  originalUrl?: string;
  /** The whole new set (lower-cased, distinct). */
  tags?: readonly string[];
  expiresAt?: number | null;
  maxClicks?: number | null;
  passwordHash?: string | null;
  rules?: string | null;
  variants?: string | null;
  preview?: string | null;
};
