// When a certificate is ordered again: a renewal once less than 30 days are left, or less
// than a third of its lifetime for a short-lived one (so a 6-day certificate is renewed
// after 4 days, not over and over); a failed order is tried again after a delay that
// doubles with each failure in a row, from a minute up to six hours.

import type { ServedCertificate } from '../certificates.ts';

const DAY_MS = 86_400_000;
/** A certificate is renewed when at most this much of it is left (Let's Encrypt's advice). */
export const RENEW_BEFORE_MS = 30 * DAY_MS;

export interface Backoff {
  /** The delay after the first failure. */
  firstMs: number;
  /** The longest delay, however many failures. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 60_000, maxMs: 6 * 3_600_000 };

/** When a certificate valid from `notBefore` to `notAfter` should be renewed. */
export function renewalTime(cert: Pick<ServedCertificate, 'notBefore' | 'notAfter'>): number {
  const notAfter = cert.notAfter.getTime();
  const lifetime = notAfter - cert.notBefore.getTime();
  return notAfter - Math.min(RENEW_BEFORE_MS, lifetime / 3);
}

/** Whether a name needs an order at `now`: no certificate, or one due for renewal. */
export function needsOrder(
  cert: Pick<ServedCertificate, 'notBefore' | 'notAfter'> | undefined,
  now: number,
): boolean {
  return cert === undefined || now >= renewalTime(cert);
}

/** The wait before the next attempt after `failures` failures in a row (1 or more). */
export function retryDelay(failures: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  const doubled = backoff.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 40);
  return Math.min(backoff.maxMs, doubled);
}
