// The settings a link may carry beyond its target: an expiry time, a click limit and a
// password. Each parser takes the JSON value of a create or PATCH body: undefined when
// the field is absent, null when it is null (clears it, on PATCH), else the value as
// kept, or a 400 naming the rule.

import { badRequest, Messages } from './errors.ts';
import { codePointLength } from './sources.ts';

export const MAX_CLICKS_LIMIT = 1_000_000_000;
export const LINK_PASSWORD_MAX_LENGTH = 128;

/**
 * A date-time with a time zone (RFC 3339): without one a time means a different moment
 * to every reader. Seconds and fractions are optional.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * `expires_at` as milliseconds since the epoch. A moment already past is accepted: the
 * link is expired from then on (a way to end it and keep its stats).
 */
export function parseExpiresAt(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  const at = typeof value === 'string' ? parseInstant(value) : undefined;
  if (at === undefined) throw badRequest(Messages.expiresAtRule);
  return at;
}

/**
 * An RFC 3339 date-time with a time zone, from 1970 on, as milliseconds since the epoch;
 * undefined when it is none (or names an impossible date).
 */
export function parseInstant(value: string): number | undefined {
  const parts = DATE_TIME.exec(value);
  const at = parts === null ? Number.NaN : Date.parse(value);
  if (parts === null || Number.isNaN(at)) return undefined;
  // Date.parse rolls impossible fields over (Feb 30 → Mar 2); a date must be a real one.
  const [year, month, day, hour, minute, second, zoneHours, zoneMinutes] = parts
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part))) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    year < 1970 ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    zoneHours > 23 ||
    zoneMinutes > 59
  ) {
    return undefined;
  }
  return at;
}

export function parseMaxClicks(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_CLICKS_LIMIT
  ) {
    throw badRequest(Messages.maxClicksRule);
  }
  return value;
}

/** The password as given (it is hashed, never kept); any characters, 1 to 128 of them. */
export function parseLinkPassword(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    codePointLength(value) > LINK_PASSWORD_MAX_LENGTH
  ) {
    throw badRequest(Messages.linkPasswordRule);
  }
  return value;
}
