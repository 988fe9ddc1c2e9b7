// What kurz takes from an OpenID Provider's claims about a person: a verified e-mail (the
// provider's word that the mailbox is theirs), whether its domain may sign in, and whether
// the admin claim is present. Pure rules; auth/oidc-accounts.ts acts on them.

import { normalizeEmail } from './accounts.ts';
import { normalizeHost } from './hosts.ts';

/** Claims as the ID token or the userinfo answer carry them. */
export type Claims = Readonly<Record<string, unknown>>;

/**
 * The e-mail of `claims`, normalised as kurz keeps e-mails, when the provider says it is
 * verified (`email_verified` true; some providers send the string "true"); undefined
 * when there is none, it is not verified, or it is no address kurz could keep.
 */
export function verifiedEmail(claims: Claims): string | undefined {
  const { email, email_verified: verified } = claims;
  if (typeof email !== 'string' || (verified !== true && verified !== 'true')) return undefined;
  return normalizeEmail(email);
}

/** Whether `email`'s domain is one of `allowed` (canonical host names; empty: any). */
export function emailDomainAllowed(email: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const domain = normalizeHost(email.slice(email.lastIndexOf('@') + 1));
  return domain !== undefined && allowed.includes(domain);
}

/** Whether claim `name` is `value`, or a list holding it (`groups: ["kurz-admins", …]`). */
export function hasClaimValue(claims: Claims, { name, value }: { name: string; value: string }) {
  const claim = claims[name];
  return claim === value || (Array.isArray(claim) && claim.includes(value));
}
