// The entries a file's rows become, the same for every format: links as the file gives
// them (kurz's rules are applied later), click records of kurz's export, and bad rows.

import type { ClickRow } from '../domain/clicks.ts';
import type { FormatName, Role } from './columns.ts';
import { parseFileDate } from './dates.ts';

/** A link as a file gives it, before kurz's rules (URL, code, owner) are applied. */
export interface LinkEntry {
  kind: 'link';
  line: number;
  /** The code as given; undefined when the row has none (a new one is made). */
  code: string | undefined;
  /**
   * The short domain the row names, as written (a host or base URL); null: the file's
   * default domain (an empty domain column, or a format without domains).
   */
  domain: string | null;
  url: string;
  /** undefined: the file gives no date (the import's time is used). */
  createdAt: number | undefined;
  /** kurz's export only: the owner's e-mail, null for no one's; undefined in other formats. */
  owner?: string | null;
  source: string | null;
  expiresAt: number | null;
  maxClicks: number | null;
  limitedClicks: number;
  passwordHash: string | null;
  /** The tags as written (kurz's tag rule is applied later); none when the file gives none. */
  tags: string[];
  /**
   * kurz's export: the rules, variants and preview as written (their rules are applied
   * later); undefined when the file gives none.
   */
  rules?: unknown;
  variants?: unknown;
  preview?: unknown;
  /** kurz's export: when an admin disabled the link (null: enabled), and why. */
  disabledAt?: number | null;
  disabledReason?: string | null;
}

/** A click record of kurz's export (made with --clicks), for the link of `code`. */
export interface ClickEntry extends Omit<ClickRow, 'id' | 'linkId'> {
  kind: 'click';
  line: number;
  code: string;
  /** The domain of the link clicked, as in its link's line (null: the default one). */
  domain: string | null;
}

export interface BadEntry {
  kind: 'bad';
  line: number;
  reason: string;
}

export type Entry = LinkEntry | ClickEntry | BadEntry;

/** A file kurz cannot read at all: said in one line, and nothing is imported. */
export class InputError extends Error {}

export interface Input {
  format: FormatName;
  /** What the file was read as, e.g. "Shlink CSV". */
  description: string;
  /** Its entries; or, read instead (the two share the file), `domains`. */
  entries: AsyncGenerator<Entry>;
  /**
   * The domain of each link row, as LinkEntry's (bad rows and click records left out),
   * without the rest of the row's checks: the quick first reading of a file's domains.
   */
  domains: AsyncGenerator<string | null>;
}

/** A field's value: a string or number, null when given empty, undefined when absent. */
export type Field = (role: Role) => unknown;

/** A cell as text: trimmed; null for an empty one. */
function text(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const s = (typeof value === 'string' ? value : String(value)).trim();
  return s === '' ? null : s;
}

/** A cell that means yes: Kutt's booleans, as JSON or as CSV text. */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || /^(true|1|yes)$/i.test(text(value) ?? '');
}

/** The parts of a row's short URL; undefined when it has none. */
function shortUrlOf(field: Field): ReturnType<typeof shortUrlParts> | undefined {
  const short = text(field('shortUrl'));
  return short === null ? undefined : shortUrlParts(short);
}

/**
 * The domain a row names: its domain column when the file has one (null when empty:
 * the file's default domain); else its short URL's host, which names it as much
 * (Bitly's links, Shlink's older exports); else null.
 */
export function rowDomain(field: Field, shortUrl = shortUrlOf(field)): string | null {
  const given = field('domain');
  return given !== undefined ? text(given) : (shortUrl?.domain ?? null);
}

/**
 * The domain and code of a short URL: its host, and its path without the leading `/`
 * (`bit.ly/abc` works too). One that is no URL names its domain as written, which the
 * import then refuses as no host.
 */
function shortUrlParts(value: string): { domain: string; code: string | undefined } {
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  if (url === null) return { domain: value, code: undefined };
  const path = url.pathname.replace(/^\/+/, '');
  try {
    return { domain: url.host, code: path === '' ? undefined : decodeURIComponent(path) };
  } catch {
    // A broken %-escape: the code as written, which the code rules then judge.
    return { domain: url.host, code: path };
  }
}

/**
 * A row's tags as written: a JSON list, or text separated by `|` (Shlink's) or `,` (its
 * older exports'); kurz's tag rule, which allows neither, is applied later.
 */
function tagList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const tags = Array.isArray(value)
    ? value.map((tag) => (typeof tag === 'string' ? tag : JSON.stringify(tag)))
    : String(value).split(/[|,]/);
  return tags.map((tag) => tag.trim()).filter((tag) => tag !== '');
}

export function linkEntry(line: number, format: FormatName, field: Field): Entry {
  const bad = (reason: string): BadEntry => ({ kind: 'bad', line, reason });
  const url = text(field('url'));
  if (url === null) return bad('no URL');
  if (truthy(field('banned'))) return bad('the link was banned in Kutt');
  if (truthy(field('protected'))) {
    return bad('the link has a password in Kutt, which its export does not carry');
  }
  const shortUrl = shortUrlOf(field);
  const code = text(field('code')) ?? shortUrl?.code;
  const domain = rowDomain(field, shortUrl);
  const date = (role: Role, name: string): number | null | BadEntry => {
    const value = field(role);
    if (value === undefined || value === null || value === '') return null;
    const at =
      typeof value === 'number' || typeof value === 'string' ? parseFileDate(value) : undefined;
    return at ?? bad(`${name} "${String(value).slice(0, 40)}" is not a date`);
  };
  const created = date('created', 'the creation date');
  if (typeof created === 'object' && created !== null) return created;
  const expires = date('expires', 'the expiry');
  if (typeof expires === 'object' && expires !== null) return expires;
  const disabled = format === 'kurz' ? date('disabledAt', 'the time it was disabled') : null;
  if (typeof disabled === 'object' && disabled !== null) return disabled;
  const whole = (role: Role, name: string, min: number): number | null | BadEntry => {
    const value = text(field(role));
    if (value === null) return null;
    const n = Number(value);
    return Number.isSafeInteger(n) && n >= min ? n : bad(`${name} "${value}" is not a number`);
  };
  const maxClicks = whole('maxClicks', format === 'kurz' ? 'max_clicks' : 'the click limit', 1);
  if (typeof maxClicks === 'object' && maxClicks !== null) return maxClicks;
  const used = whole(format === 'kurz' ? 'limitedClicks' : 'visits', 'the clicks counted', 0);
  if (typeof used === 'object' && used !== null) return used;
  const entry: LinkEntry = {
    kind: 'link',
    line,
    code,
    domain,
    url,
    createdAt: created ?? undefined,
    source: null,
    expiresAt: expires,
    maxClicks,
    limitedClicks: maxClicks === null ? 0 : Math.min(used ?? 0, maxClicks),
    passwordHash: null,
    tags: tagList(field('tags')),
  };
  if (format === 'kurz') {
    const owner = field('owner');
    entry.owner = text(owner);
    entry.source = typeof field('source') === 'string' ? (field('source') as string) : null;
    entry.passwordHash = text(field('passwordHash'));
    entry.rules = jsonField(field('rules'));
    entry.variants = jsonField(field('variants'));
    entry.preview = jsonField(field('preview'));
    if (disabled !== null) {
      entry.disabledAt = disabled;
      entry.disabledReason = text(field('disabledReason'));
    }
  }
  return entry;
}

export function clickEntry(line: number, fields: Map<string, unknown>): Entry {
  const string = (name: string) => {
    const value = fields.get(name);
    return typeof value === 'string' ? value : null;
  };
  const code = string('click');
  const at =
    typeof fields.get('at') === 'string' ? parseFileDate(string('at') as string) : undefined;
  if (code === null || at === undefined) {
    return { kind: 'bad', line, reason: 'a click record needs its link code and its time' };
  }
  return {
    kind: 'click',
    line,
    code,
    domain: string('domain'),
    createdAt: at,
    source: string('source'),
    querySource: string('querysource'),
    referrer: string('referrer'),
    userAgent: string('useragent'),
    country: string('country'),
  };
}

/**
 * A field of kurz's export that holds JSON: the value itself in JSON Lines, its text in
 * CSV (an empty field: none). Text that is not JSON stays text, for the rule to refuse.
 */
function jsonField(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? undefined;
  if (value === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
