// The moderation area of the store's contract (store.ts composes it): the admin role,
// disabled accounts and links, the database blocklist, and what the admin API reads
// across every owner. Engines: sqlite/moderation.ts and postgres/moderation.ts.

import type { UserSummary } from './accounts.ts';
import type { Link, LinkDetail } from './link-records.ts';

/** What a request's token is checked against, read in one indexed lookup per request. */
export interface UserStanding {
  /** The version the user's tokens must carry (raised by every password change). */
  version: number;
  admin: boolean;
}

/**
 * A host new links may not point to (nor to its subdomains), added by an admin. A plain
 * type (not an interface), so it binds as a statement's named values.
 */
export type BlockedHost = {
  /** Lower-case hostname, without port. */
  host: string;
  reason: string | null;
  createdAt: number;
  /** The admin who added it (a user id); null: the admin token. */
  addedBy: number | null;
};

/** A page of the users, searched by e-mail (`text`: a substring, as written). */
export interface UserSearch {
  text?: string;
  limit: number;
  offset: number;
}

export interface UserPage {
  users: UserSummary[];
  total: number;
}

/** GET /api/admin/links: every owner's links, each filter given narrowing the list. */
export interface AdminLinkSearch {
  /** Text the short code or the target contains (as LinkSearch's, without tags). */
  text?: string;
  /** Text the owner's e-mail contains; links of no one never match it. */
  ownerEmail?: string;
  domainId?: number;
  disabled?: boolean;
  limit: number;
  offset: number;
}

/** A link as the admin API lists it: its owner's e-mail and whether it is disabled. */
export interface AdminLink extends Link {
  ownerEmail: string | null;
  disabledAt: number | null;
  disabledReason: string | null;
}

export interface AdminLinkPage {
  links: AdminLink[];
  total: number;
}

/** The instance's figures for the admin overview. */
export interface InstanceFigures {
  links: number;
  /** Clicks since midnight UTC (`since`), rolled up or not. */
  clicksToday: number;
  users: number;
  reportsWaiting: number;
  disabledLinks: number;
  blockedHosts: number;
}

export interface ModerationStore {
  /** The token version and admin role of an enabled user; undefined: removed or disabled. */
  standing(userId: number): Promise<UserStanding | undefined>;
  /** Makes a user an admin or not; false when no such user. */
  setUserAdmin(id: number, admin: boolean): Promise<boolean>;
  /**
   * Disables a user from `disabledAt` (their tokens and keys answer 401 from the next
   * request), or enables them again (null); false when no such user.
   */
  setUserDisabled(id: number, disabledAt: number | null): Promise<boolean>;
  /** One user as the admin API shows them. */
  findUser(id: number): Promise<UserSummary | undefined>;
  /** A page of the users, oldest first, with the total the search lets through. */
  searchUsers(search: UserSearch): Promise<UserPage>;
  /**
   * Disables a link (`at`, with an optional reason) or enables it (null), in one
   * transaction with its `link.updated` messages, and announces its code to every
   * instance as updateLink does; the link as it is afterwards, or undefined when gone.
   */
  setLinkDisabled(
    id: number,
    disabled: { at: number; reason: string | null } | null,
  ): Promise<LinkDetail | undefined>;
  /** A page of every owner's links, newest first, with the total the search lets through. */
  searchAllLinks(search: AdminLinkSearch): Promise<AdminLinkPage>;
  /** The figures of the admin overview; clicks counted from `since` (ms, midnight UTC). */
  figures(since: number): Promise<InstanceFigures>;
  /** The database blocklist, in host order. */
  listBlockedHosts(): Promise<BlockedHost[]>;
  /** Adds a host; false when it is already there (left as it was). */
  addBlockedHost(host: BlockedHost): Promise<boolean>;
  /** Removes a host; false when it was not there. */
  removeBlockedHost(host: string): Promise<boolean>;
  /**
   * Calls `changed` when a host is added or removed by any instance (or notices may have
   * been missed), so a cache of the list reads it again. Returns the stop.
   */
  watchBlockedHosts(changed: () => void): () => void;
}
