// Access tokens: HS256 JWTs with sub (user id), iat and exp; only HS256 is accepted.

import { jwt } from '@elysiajs/jwt';

export const TOKEN_ALGORITHM = 'HS256';
const BEARER = /^Bearer +([A-Za-z0-9_.-]+)$/i;
const USER_ID = /^[1-9][0-9]{0,15}$/;

/** The jwt plugin, named `jwt` on the context, pinned to HS256. */
export function tokenPlugin(secret: string) {
  return jwt({ name: 'jwt', secret, alg: TOKEN_ALGORITHM });
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

export const VERIFY_OPTIONS = {
  algorithms: [TOKEN_ALGORITHM],
  requiredClaims: ['sub', 'iat', 'exp'],
};
