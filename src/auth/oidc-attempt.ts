// One sign-in attempt through the OpenID Provider: the secrets the callback must check
// (state, nonce, PKCE verifier) between the redirect to the provider and the way back.
// They travel in a cookie only the callback's path receives, sealed with AES-GCM under a
// key derived from the token key: any instance sharing that key (several on PostgreSQL)
// can open it, no one else can read or forge it, and nothing is kept on the server.

import type { TokenKey } from './tokens.ts';

export interface Attempt {
  state: string;
  nonce: string;
  /** The PKCE code verifier (S256). */
  verifier: string;
  /** When it stops being accepted (ms since the epoch). */
  expires: number;
}

export const ATTEMPT_COOKIE = 'kurz_oidc';
/** Long enough to sign in at the provider, even with a second factor; short enough to forget. */
export const ATTEMPT_TTL_MS = 10 * 60_000;
const COOKIE_PATH = '/api/auth/oidc';
const PURPOSE = 'kurz oidc attempt v1';
const IV_BYTES = 12;

/** The attempt sealed: base64url of IV and ciphertext (with its tag). */
export async function sealAttempt(secret: TokenKey, attempt: Attempt): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = new TextEncoder().encode(JSON.stringify(attempt));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv },
    await secret.derivedKey(PURPOSE),
    plain,
  );
  return Buffer.concat([iv, new Uint8Array(sealed)]).toString('base64url');
}

/** The attempt of a sealed cookie value, or undefined when it was not sealed here, is broken or expired. */
export async function openAttempt(
  secret: TokenKey,
  sealed: string | undefined,
): Promise<Attempt | undefined> {
  if (sealed === undefined || !/^[A-Za-z0-9_-]{40,2000}$/.test(sealed)) return undefined;
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES) },
      await secret.derivedKey(PURPOSE),
      bytes.subarray(IV_BYTES),
    );
    const attempt = JSON.parse(new TextDecoder().decode(plain)) as Attempt;
    return attempt.expires > Date.now() ? attempt : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Set-Cookie of an attempt: HttpOnly (no script reads it), SameSite=Lax (the
 * provider's redirect back is a top-level GET, which Lax lets through), sent only to the
 * callback's path, Secure when kurz is served over https.
 */
export function attemptCookie(value: string, secure: boolean): string {
  const maxAge = Math.floor(ATTEMPT_TTL_MS / 1000);
  return `${ATTEMPT_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie that forgets the attempt: each is used once, whatever the outcome. */
export function clearedAttemptCookie(secure: boolean): string {
  return `${ATTEMPT_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The value of cookie `name` in a Cookie header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
