// Account rules: e-mail normalisation and the register/login field checks.

import { badRequest, Messages } from './errors.ts';
import { codePointLength } from './sources.ts';

export const EMAIL_MAX_LENGTH = 255;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;
// local@domain.tld: one @, no whitespace or control characters, a dot inside the domain.
const EMAIL_PATTERN = /^[^\s\p{Cc}@]+@[^\s\p{Cc}@.][^\s\p{Cc}@]*\.[^\s\p{Cc}@]+$/u;

export interface Credentials {
  email: string;
  password: string;
}

/** Trims and lower-cases an e-mail address; returns undefined when it is not one. */
export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  // An unpaired surrogate is no character at all (and no database could store it).
  if (
    codePointLength(email) > EMAIL_MAX_LENGTH ||
    !email.isWellFormed() ||
    !EMAIL_PATTERN.test(email)
  ) {
    return undefined;
  }
  return email;
}

/** The shared first check of register and login: both fields present and strings. */
export function requireCredentials(body: Record<string, unknown>): Credentials {
  const { email, password } = body;
  if (typeof email !== 'string' || typeof password !== 'string') {
    throw badRequest(Messages.credentialsRequired);
  }
  return { email, password };
}

/** A new account's e-mail, normalised; 400 when it is not one. */
export function parseEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (email === undefined) throw badRequest(Messages.emailInvalid);
  return email;
}

/** A new account's password: 8 to 1024 code points, else 400. */
export function checkPassword(password: string): string {
  const length = codePointLength(password);
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw badRequest(Messages.passwordLength);
  }
  return password;
}

/** Register's checks in order: fields present, e-mail valid, password length. */
export function parseRegistration(body: Record<string, unknown>): Credentials {
  const given = requireCredentials(body);
  return { email: parseEmail(given.email), password: checkPassword(given.password) };
}
