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

/** Who someone is at an OpenID Provider: its issuer URL and their subject there. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
}

/** An account as an OIDC sign-in needs it: enough to refuse it or to issue its token. */
export interface OidcAccount {
  id: number;
  email: string;
  tokenVersion: number;
  admin: boolean;
  /** When an admin disabled the account; null: enabled. */
  disabledAt: number | null;
}

/** linkOidc's answer for an account already linked to another subject of the same issuer. */
export const LINKED_ELSEWHERE = 'linked-elsewhere';

/**
 * Sign-in through an OpenID Provider (auth/oidc-accounts.ts decides; these only read and
 * write). The admin role its claim grants is set with ModerationStore.setUserAdmin.
 */
export interface OidcAccountStore {
  /** The account that signed in as `identity` before; undefined: none. */
  findUserByOidc(identity: OidcIdentity): Promise<OidcAccount | undefined>;
  /**
   * Links the account of `email` to `identity`, unless it is linked to another subject
   * of the same issuer (a subject of another issuer is replaced: the operator changed
   * providers); undefined: no account has that e-mail.
   */
  linkOidc(
    email: string,
    identity: OidcIdentity,
  ): Promise<OidcAccount | typeof LINKED_ELSEWHERE | undefined>;
  /**
   * A new account linked to `identity`, without a password (its hash is '', which no
   * password matches); undefined when the e-mail or the identity is taken meanwhile.
   */
  createOidcUser(
    email: string,
    identity: OidcIdentity,
    admin: boolean,
  ): Promise<OidcAccount | undefined>;
}
