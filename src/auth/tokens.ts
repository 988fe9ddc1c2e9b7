// Access tokens: HS256 JWTs with sub (user id), iat and exp; only HS256 is accepted.
// The key can be replaced while running (SIGHUP after `kurz rotate-secret`), so routes
// hold a TokenKey, not the secret itself.

import { jwt } from '@elysiajs/jwt';

export const TOKEN_ALGORITHM = 'HS256';
const BEARER = /^Bearer +([A-Za-z0-9_.-]+)$/i;
const USER_ID = /^[1-9][0-9]{0,15}$/;

export const VERIFY_OPTIONS = {
  algorithms: [TOKEN_ALGORITHM],
  requiredClaims: ['sub', 'iat', 'exp'],
};

type Signer = ReturnType<typeof jwt>['decorator']['jwt'];

/** The token signing key, replaceable in place: every route that holds it sees the new one. */
export class TokenKey {
  private signer: Signer;
  private derived = new Map<string, Promise<CryptoKey>>();

  constructor(private secret: string) {
    this.signer = signerFor(secret);
  }

  /** Tokens signed with the old key stop verifying at once. */
  replace(secret: string): void {
    this.secret = secret;
    this.signer = signerFor(secret);
    this.derived.clear();
  }

  /**
   * An AES-256-GCM key for `purpose` (such as sealing a sign-in attempt's cookie), derived
   * from the token key with HKDF: every instance sharing the key derives the same one, and
   * it changes with it.
   */
  derivedKey(purpose: string): Promise<CryptoKey> {
    let key = this.derived.get(purpose);
    if (key === undefined) {
      key = deriveKey(this.secret, purpose);
      this.derived.set(purpose, key);
    }
    return key;
  }

  /** `ver`: the user's token version (see AccountStore.tokenVersion). */
  sign(payload: { sub: string; exp: number; ver: number }): Promise<string> {
    return this.signer.sign(payload);
  }

  /** The verified payload, or false for anything not a valid, unexpired HS256 token of this key. */
  async verify(token: string) {
    if (!hasExpectedHeader(token)) return false;
    return this.signer.verify(token, VERIFY_OPTIONS);
  }
}

async function deriveKey(secret: string, purpose: string): Promise<CryptoKey> {
  const encoder = new TextEncoder();
  const base = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, [
    'deriveKey',
  ]);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(purpose) },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

function signerFor(secret: string): Signer {
  return jwt({ name: 'jwt', secret, alg: TOKEN_ALGORITHM }).decorator.jwt;
}

/**
 * The header must say `alg` exactly "HS256" and, when it has a `typ`, "JWT" (any case):
 * a token of another kind (an `at+jwt`, an unsigned `none`) is refused even when its
 * signature would check out.
 */
export function hasExpectedHeader(token: string): boolean {
  const dot = token.indexOf('.');
  if (dot <= 0) return false;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return false;
  const { alg, typ } = header as { alg?: unknown; typ?: unknown };
  if (alg !== TOKEN_ALGORITHM) return false;
  return typ === undefined || (typeof typ === 'string' && typ.toLowerCase() === 'jwt');
}

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  return BEARER.exec(header)?.[1];
}

/** The user id in a verified payload's `sub`, or undefined when it is not one. */
export function userIdOf(sub: unknown): number | undefined {
  return typeof sub === 'string' && USER_ID.test(sub) ? Number(sub) : undefined;
}
