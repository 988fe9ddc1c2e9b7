// What a flag's value may be: the parsers behind every flag, each throwing a message
// (without the flag's name, which the caller puts in front) when a value is bad, and
// the formatters that show a default the way its flag takes it.

import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { isPostgresUrl } from '../domain/database-url.ts';
import { normalizeHost } from '../domain/hosts.ts';
import { type Blocklist, BlocklistError, parseBlocklist } from '../domain/targets.ts';
import type { RateLimit } from './config.ts';

/** Tokens, the admin token and the metrics token are at least this long. */
export const SECRET_MIN_LENGTH = 32;

/** One of `allowed`. */
export function oneOf<T extends string>(allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw `must be ${allowed.join(' or ')} (got "${value}")`;
  }
  return value as T;
}

/** `on` or `off`, as a boolean. */
export function onOff(value: string): boolean {
  return oneOf(['on', 'off'] as const, value) === 'on';
}

/** A whole number from `min` to `max`; `what` says which in the message. */
export function wholeNumber(value: string, min: number, max: number, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw `must be ${what} (got "${value}")`;
  }
  return Number(value);
}

const WINDOWS: Record<string, number> = { s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** `N/WINDOW`: N requests per window, e.g. `10/min`, `30/10min`, `100/h`. */
export function parseRate(value: string): RateLimit {
  const match = /^(\d{1,7})\/(\d{0,4})(s|min|h|d)$/.exec(value);
  const count = Number(match?.[1]);
  const times = match?.[2] ? Number(match[2]) : 1;
  if (!match || count < 1 || times < 1) {
    throw `must be N/WINDOW, e.g. 10/min, 30/10min or 100/h (got "${value}")`;
  }
  return { count, windowMs: times * (WINDOWS[match[3] as string] as number) };
}

/** A rate as --rate-… takes it, in the largest window that divides it: `30/10min`. */
export function formatRate({ count, windowMs }: RateLimit): string {
  for (const [unit, ms] of Object.entries(WINDOWS).reverse()) {
    if (windowMs % ms === 0) {
      const times = windowMs / ms;
      return `${count}/${times === 1 ? '' : times}${unit}`;
    }
  }
  throw new Error(`no window for ${windowMs} ms`);
}

const SIZES: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** A byte count: `0`, `500MB`, `64MiB`, `2GB`. */
export function parseSize(value: string): number {
  const match = /^(\d{1,6})\s*([a-z]*)$/i.exec(value);
  const unit = SIZES[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) throw `must be a size such as 64MiB or 1GB (got "${value}")`;
  return Number(match[1]) * unit;
}

/** A byte count as --min-free-disk takes it, in the largest binary unit that divides it. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes !== 0 && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** A comma-separated list, without blanks. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * A comma-separated list of host names (`kurz.lan`, `bücher.example`), each canonical as
 * normalizeHost makes it (lower case, IDNs in ASCII, no final dot). No port: a name is
 * known on every port.
 */
export function hostNames(value: string): string[] {
  return list(value).map((name) => {
    const host = /:\d*$/.test(name) ? undefined : normalizeHost(name);
    if (host === undefined) {
      throw `must be host names such as kurz.lan separated by commas (got "${name}")`;
    }
    return host;
  });
}

/** A file a flag names, as text. */
export function readFlagFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}: ${path})`;
  }
}

/** A secret (a key or a token) long enough. */
export function secret(value: string): string {
  if (value.length < SECRET_MIN_LENGTH) {
    throw `must be at least ${SECRET_MIN_LENGTH} characters long`;
  }
  return value;
}

/** A secret read from a file; a trailing newline is how editors and `echo` end a file, not part of it. */
export function secretFile(path: string): string {
  return secret(readFlagFile(path).replace(/\r?\n$/, ''));
}

/**
 * The --blocklist file, read and checked: at start-up, and again on every SIGHUP. Throws
 * a message (without the flag's name) naming the file and its first bad line.
 */
export function readBlocklist(path: string): Blocklist {
  const text = readFlagFile(path);
  try {
    return parseBlocklist(text);
  } catch (error) {
    if (error instanceof BlocklistError) throw `${path} ${error.message}`;
    throw error;
  }
}

/**
 * A SQLite file path (or `sqlite://PATH`), or a PostgreSQL URL. A URL that does not
 * parse is refused here, without echoing it: it may hold a password.
 */
export function parseDatabase(value: string): string {
  if (value === '') throw 'must be a SQLite file path or a postgres:// URL';
  if (isPostgresUrl(value)) {
    const url = URL.parse(value);
    if (url === null || url.hostname === '' || url.pathname.length <= 1) {
      throw 'must be a URL such as postgres://user:password@host:5432/database';
    }
    return value;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.startsWith('sqlite://')) {
    throw 'must be a SQLite file path, sqlite://PATH or a postgres:// URL';
  }
  return value.startsWith('sqlite://') ? value.slice('sqlite://'.length) : value;
}

/** The operator's trusted proxies; `undefined` when none are named (nothing forwarded is believed). */
export type TrustedProxies = BlockList | undefined;

/**
 * Parses a list of addresses and CIDR blocks (`10.0.0.0/8`, `::1`, `fd00::/8`); throws
 * a message naming the first entry that is neither.
 */
export function parseTrustedProxies(entries: readonly string[]): TrustedProxies {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    if (family === 0 || extra !== undefined || prefix < 0 || prefix > max) {
      throw `must be addresses or CIDR blocks separated by commas (got "${entry}")`;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === max) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}
