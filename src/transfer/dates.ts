// The dates of export files: kurz's own ISO 8601, and what other shorteners write —
// YOURLS's `2024-03-05 14:23:01` (MySQL DATETIME), Shlink's `+01:00` offsets, Bitly's
// `+0000`, Unix seconds or milliseconds. A date without a zone is taken as UTC.

const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date of an export file as milliseconds since the epoch; undefined when it is not
 * one. A number (or a string of digits) is Unix time: seconds, or milliseconds when it
 * is too large to be seconds of this era.
 */
export function parseFileDate(value: string | number): number | undefined {
  if (typeof value === 'number') return unixTime(value);
  const text = value.trim();
  if (/^\d{9,13}$/.test(text)) return unixTime(Number(text));
  const parts = DATE.exec(text);
  if (parts === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = parts;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const at = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s));
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    year < 1970 ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return undefined;
  }
  const ms = Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  return at + ms - offsetMs(zone);
}

/** Seconds below 10^11 (until the year 5138), milliseconds above. */
function unixTime(n: number): number | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  return Math.round(n < 1e11 ? n * 1000 : n);
}

/** `Z`, `UTC`, `+01:00`, `+0100` or `+01` as milliseconds east of UTC. */
function offsetMs(zone: string): number {
  if (!/^[+-]/.test(zone)) return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}
