// API keys: `kurz_` and 32 random base62 characters (190 bits) and a 6-character
// checksum, so a leaked-secret scanner can tell a kurz key from noise, and kurz can
// refuse a mistyped one without asking the database. Only a key's SHA-256 is stored.

import { createHash } from 'node:crypto';
import type { ApiKeyGrant } from '../store/accounts.ts';
import type { Store } from '../store/store.ts';

export const KEY_PREFIX = 'kurz_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** The characters of a key shown in lists: the prefix and the first random ones. */
const SHOWN_LENGTH = KEY_PREFIX.length + 8;
const KEY = /^kurz_[0-9A-Za-z]{38}$/;
/** A key's last use is written at most this often. */
const TOUCH_INTERVAL_MS = 60_000;

/** A fresh key: random base62 characters, without modulo bias, and their checksum. */
export function generateKey(): string {
  let random = '';
  while (random.length < RANDOM_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(RANDOM_LENGTH))) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && random.length < RANDOM_LENGTH) random += ALPHABET[byte % 62];
    }
  }
  return `${KEY_PREFIX}${random}${checksum(random)}`;
}

/** CRC-32 of the random part in base62, padded to six characters (as GitHub's tokens do). */
function checksum(random: string): string {
  let n = Bun.hash.crc32(random);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    text = ALPHABET[n % 62] + text;
    n = Math.floor(n / 62);
  }
  return text;
}

/** Whether a bearer credential is meant as an API key (rather than a login token). */
export function isApiKey(credential: string): boolean {
  return credential.startsWith(KEY_PREFIX);
}

/** Whether a key is well formed and its checksum matches. */
export function wellFormed(key: string): boolean {
  if (!KEY.test(key)) return false;
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.endsWith(checksum(random));
}

export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function shownPart(key: string): string {
  return key.slice(0, SHOWN_LENGTH);
}

/**
 * The grant of a key that is well formed, stored and not expired; undefined otherwise.
 * Its use is recorded once a minute at most, without making the request wait: a read
 * must not fail because its last-used time could not be written.
 */
export async function grantOf(store: Store, key: string): Promise<ApiKeyGrant | undefined> {
  if (!wellFormed(key)) return undefined;
  const grant = await store.findApiKey(keyHash(key));
  const now = Date.now();
  if (grant === undefined || (grant.expiresAt !== null && grant.expiresAt <= now)) return undefined;
  if (grant.lastUsedAt === null || now - grant.lastUsedAt >= TOUCH_INTERVAL_MS) {
    store.touchApiKey(grant.id, now).catch(() => {
      // The next use tries again; the request itself is answered either way.
    });
  }
  return grant;
}
