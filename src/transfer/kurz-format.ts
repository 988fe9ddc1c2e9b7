// kurz's own export: what each line of JSON Lines (or each CSV row) holds, versioned so
// that a later kurz still reads the files of this one. Everything that makes a link is
// in it, its password's hash too: an export is as sensitive as the database.

import type { ClickRow } from '../domain/clicks.ts';
import type { LinkDetail } from '../store/store.ts';
import { VERSION } from '../version.ts';

/**
 * The shape's version, in the first line of JSON Lines. Raised when a field changes
 * meaning or is removed; new fields may be added without it (readers ignore unknown ones).
 * 2: links carry their domain, and a code is unique only with it (a kurz of version 1
 * would have put every link on its default domain); and their tags. Version 1 files,
 * without either, are read as all on the default domain, without tags. Links' rules,
 * variants and preview came later, as new fields: a file without them has none; so did
 * whether an admin disabled the link (a file without it: enabled).
 */
export const EXPORT_VERSION = 2;

/** The first line of a JSON Lines export. */
export interface ExportHeader {
  kurz_export: number;
  kurz_version: string;
  exported_at: string;
  /** Whether click lines follow each link's line. */
  clicks: boolean;
}

/** A link's line: everything needed to make the link again. */
export interface LinkRecord {
  code: string;
  /**
   * The host of the link's short domain; null: the default one (--base-url's), which is
   * the importing kurz's default domain, whatever its address.
   */
  domain: string | null;
  url: string;
  created_at: string;
  /** The owner's e-mail; null: the link belongs to no one (open mode's links). */
  owner: string | null;
  source: string | null;
  expires_at: string | null;
  max_clicks: number | null;
  /** Clicks already counted against max_clicks. */
  limited_clicks: number;
  /** The argon2id hash of the link's password (never the password); null: none. */
  password_hash: string | null;
  /** All-time clicks, for the reader's information: importing does not invent clicks. */
  clicks: number;
  /** Lower-cased, in alphabetical order; in CSV joined by `|`. */
  tags: string[];
  /** Its redirect rules and A/B split (`[]`: none) and its preview (null: none); in CSV as JSON. */
  rules: unknown[];
  variants: unknown[];
  preview: Record<string, unknown> | null;
  /** When an admin disabled the link (it answers 410), and why; null: enabled, no reason. */
  disabled_at: string | null;
  disabled_reason: string | null;
}

/** A click record's line (with --clicks), after its link's line. */
export interface ClickRecord {
  /** The code of the link clicked, as in its link's line. */
  click: string;
  /** Its link's domain, as in its link's line. */
  domain: string | null;
  at: string;
  source: string | null;
  query_source: string | null;
  referrer: string | null;
  user_agent: string | null;
  country: string | null;
}

/**
 * The CSV export's columns, in order: a link's fields under the same names, those added
 * since the first version last (a reader by position still finds the others).
 */
export const CSV_COLUMNS = [
  'code',
  'url',
  'created_at',
  'owner',
  'source',
  'expires_at',
  'max_clicks',
  'limited_clicks',
  'password_hash',
  'clicks',
  'domain',
  'tags',
  'rules',
  'variants',
  'preview',
  'disabled_at',
  'disabled_reason',
] as const satisfies readonly (keyof LinkRecord)[];

const iso = (ms: number) => new Date(ms).toISOString();

export function exportHeader(clicks: boolean, now = Date.now()): ExportHeader {
  return { kurz_export: EXPORT_VERSION, kurz_version: VERSION, exported_at: iso(now), clicks };
}

/** A link's line; `domain`: its domain's host, null for the default one. */
export function linkRecord(
  link: LinkDetail,
  owner: string | null,
  domain: string | null,
): LinkRecord {
  return {
    code: link.shortCode,
    domain,
    url: link.originalUrl,
    created_at: iso(link.createdAt),
    owner,
    source: link.source,
    expires_at: link.expiresAt === null ? null : iso(link.expiresAt),
    max_clicks: link.maxClicks,
    limited_clicks: link.maxClicks === null ? 0 : link.limitedClicks,
    password_hash: link.passwordHash,
    clicks: link.clicks,
    tags: link.tags,
    rules: link.rules === null ? [] : JSON.parse(link.rules),
    variants: link.variants === null ? [] : JSON.parse(link.variants),
    preview: link.preview === null ? null : JSON.parse(link.preview),
    disabled_at: link.disabledAt === null ? null : iso(link.disabledAt),
    disabled_reason: link.disabledReason,
  };
}

export function clickRecord(code: string, domain: string | null, row: ClickRow): ClickRecord {
  return {
    click: code,
    domain,
    at: iso(row.createdAt),
    source: row.source,
    query_source: row.querySource,
    referrer: row.referrer,
    user_agent: row.userAgent,
    country: row.country,
  };
}

/** A link's record as CSV values, in CSV_COLUMNS' order; null is an empty field. */
export function csvValues(record: LinkRecord): string[] {
  return CSV_COLUMNS.map((column) => {
    const value = record[column];
    // Rules, variants and the preview as JSON ([] and null: an empty field).
    if (column === 'rules' || column === 'variants') {
      return (value as unknown[]).length === 0 ? '' : JSON.stringify(value);
    }
    if (column === 'preview') return value === null ? '' : JSON.stringify(value);
    if (Array.isArray(value)) return value.join('|');
    return value === null ? '' : String(value);
  });
}
