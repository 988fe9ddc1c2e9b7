// What the stores keep of accounts beyond sign-up: the token version that ends sessions,
// the operator's view of users, and API keys. Types only; each store implements them.

import type { ApiKeyScope } from '../domain/key-settings.ts';

/** An account as `kurz user list` and the admin API show it. */
export interface UserSummary {
  id: number;
  email: string;
  createdAt: number;
  links: number;
  admin: boolean;
  /** When an admin disabled the account; null: enabled. */
  disabledAt: number | null;
  /** Whether it has a password (an account made through OIDC has none until given one). */
  password: boolean;
  /** Whether it ever signed in through the identity provider (OIDC). */
  oidc: boolean;
}

/** What a removed account's links become: deleted with their clicks, or kept as no one's. */
export type RemovedLinks = 'delete' | 'keep';

/** An API key as its owner sees it: never the key itself, which only its creation shows. */
export interface ApiKey {
  id: number;
  name: string;
  /** The key's first characters, enough to tell keys apart. */
  prefix: string;
  scope: ApiKeyScope;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

export type NewApiKey = {
  userId: number;
  name: string;
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  secretHash: string;
  scope: ApiKeyScope;
  createdAt: number;
  expiresAt: number | null;
};

/** A key found by its hash: whose it is and what it may do. */
export interface ApiKeyGrant {
  id: number;
  userId: number;
  scope: ApiKeyScope;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/** The answer for a key its user may not have: they already have the most keys allowed. */
export const KEY_LIMIT_REACHED = 'key-limit-reached';

export interface AccountStore {
  /**
   * The version a user's tokens must carry (raised by every password change), or
   * undefined when the user does not exist (removed) or is disabled.
   */
  tokenVersion(userId: number): Promise<number | undefined>;
  listUsers(): Promise<UserSummary[]>;
  /** Sets a new password hash and raises the token version; false when no such user. */
  setPassword(email: string, passwordHash: string): Promise<boolean>;
  /**
   * Removes a user with their API keys and webhooks, and their links (with clicks,
   * records and rollups) or keeping the links as no one's; undefined when no such user.
   */
  removeUser(
    email: string,
    links: RemovedLinks,
  ): Promise<{ id: number; links: number } | undefined>;

  /** Stores a key unless its user already has `limit` keys. */
  createApiKey(key: NewApiKey, limit: number): Promise<ApiKey | typeof KEY_LIMIT_REACHED>;
  /** A user's keys, newest first. */
  listApiKeys(userId: number): Promise<ApiKey[]>;
  /** Revokes a user's key; false when the user has no key of that id. */
  deleteApiKey(userId: number, id: number): Promise<boolean>;
  /** The key of that hash; undefined also when its user is disabled (the key answers 401). */
  findApiKey(secretHash: string): Promise<ApiKeyGrant | undefined>;
  /** Records a key's use (callers write it at most once a minute per key). */
  touchApiKey(id: number, at: number): Promise<void>;
}
