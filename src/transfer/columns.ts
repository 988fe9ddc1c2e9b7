// The formats `kurz import` reads and what their columns (or JSON fields) mean to kurz:
// each format's names for each role, and the format a set of names is.
//
// Column names are compared without case, spaces, `_` or `-` (`Long URL`, `long_url` and
// `longUrl` are one name), and columns kurz does not use are ignored.

export const FORMATS = ['kurz', 'yourls', 'kutt', 'shlink', 'bitly'] as const;
export type FormatName = (typeof FORMATS)[number];

export const NAMES: Record<FormatName, string> = {
  kurz: 'kurz',
  yourls: 'YOURLS',
  kutt: 'Kutt',
  shlink: 'Shlink',
  bitly: 'Bitly',
};

/** What a column (or JSON field) means to kurz. */
export type Role =
  | 'code'
  /** A short URL whose path is the code (Bitly's links, Shlink's shortUrl). */
  | 'shortUrl'
  | 'url'
  | 'created'
  | 'expires'
  | 'maxClicks'
  /** Clicks so far, counted against maxClicks. */
  | 'visits'
  | 'owner'
  | 'source'
  | 'limitedClicks'
  | 'passwordHash'
  /** The short domain's host (or base URL); empty or null: the file's default domain. */
  | 'domain'
  /** The link's tags: a JSON list, or text separated by `|` or `,`. */
  | 'tags'
  /** kurz's export: a link's rules, variants and preview (JSON, or JSON text in CSV). */
  | 'rules'
  | 'variants'
  | 'preview'
  /** kurz's export: when an admin disabled the link, and why. */
  | 'disabledAt'
  | 'disabledReason'
  /** Kutt: the link has a password (its hash is not exported). */
  | 'protected'
  /** Kutt: the link was banned by an administrator. */
  | 'banned';

/**
 * Each format's names for each role, normalized (see normalize), the first found with a
 * value winning. From the formats' own code and documentation:
 * - kurz: kurz-format.ts.
 * - YOURLS: its `yourls_url` table (keyword, url, title, timestamp, ip, clicks), as a
 *   database tool or an export plugin writes it, with or without a header.
 * - Kutt: the link objects of its API, /api/v2/links (address, target, visit_count,
 *   created_at, expire_in, password, banned, link; `id` is a UUID, not the code; domain,
 *   null for Kutt's own).
 * - Shlink: the web client's CSV export (createdAt, domain, shortCode, shortUrl, longUrl,
 *   title, tags, visits; its domain is the short URL's host, the default one's too, and
 *   its tags are joined by `|`, by `,` in older ones), the CSV shlink-importer reads
 *   (longUrl, shortCode, shortUrl, domain, title, tags; an empty domain is the default
 *   one), and the API's short URL objects (shortCode, longUrl, dateCreated,
 *   meta.validUntil, meta.maxVisits, visitsSummary.total or visitsCount, domain: null
 *   for the default one, tags: a list).
 * - Bitly: the CSV of its link export (Link, Custom Link, Destination URL or Long URL,
 *   Title, Date Created, Tags, Clicks) and the API's bitlinks (link, custom_bitlinks,
 *   long_url, created_at). No domain column: the short link's host is its domain.
 *   Its tags are free text (spaces and all), not kurz tags, and are not read.
 */
export const COLUMNS: Record<FormatName, Partial<Record<Role, string[]>>> = {
  kurz: {
    code: ['code'],
    url: ['url'],
    created: ['createdat'],
    owner: ['owner'],
    source: ['source'],
    expires: ['expiresat'],
    maxClicks: ['maxclicks'],
    limitedClicks: ['limitedclicks'],
    passwordHash: ['passwordhash'],
    domain: ['domain'],
    tags: ['tags'],
    rules: ['rules'],
    variants: ['variants'],
    preview: ['preview'],
    disabledAt: ['disabledat'],
    disabledReason: ['disabledreason'],
  },
  yourls: { code: ['keyword'], url: ['url'], created: ['timestamp', 'date'] },
  kutt: {
    code: ['address'],
    shortUrl: ['link', 'shorturl'],
    url: ['target'],
    created: ['createdat'],
    expires: ['expirein'],
    protected: ['password'],
    banned: ['banned'],
    domain: ['domain'],
  },
  shlink: {
    code: ['shortcode'],
    shortUrl: ['shorturl'],
    url: ['longurl'],
    created: ['datecreated', 'createdat'],
    expires: ['validuntil', 'metavaliduntil'],
    maxClicks: ['maxvisits', 'metamaxvisits'],
    visits: ['visitssummarytotal', 'visitscount', 'visits'],
    domain: ['domain'],
    tags: ['tags'],
  },
  bitly: {
    code: ['custombackhalf', 'backhalf'],
    shortUrl: [
      'customlink',
      'custombitlinks',
      'custombitlink',
      'link',
      'bitlink',
      'shortlink',
      'shorturl',
      'id',
    ],
    url: ['destinationurl', 'longurl', 'originalurl', 'destination'],
    created: ['datecreated', 'createdat', 'created', 'creationdate', 'date'],
  },
};

/** The columns of a YOURLS table written without a header. */
export const YOURLS_POSITIONS = ['keyword', 'url', 'title', 'timestamp', 'ip', 'clicks'];

/** A column name as compared: lower case, without spaces, `_`, `-` or `.`. */
export function normalize(name: string): string {
  let normalized = NORMALIZED.get(name);
  if (normalized === undefined) {
    normalized = name.toLowerCase().replace(/[\s_.-]+/g, '');
    // A file has few distinct names; one of JSON objects with keys of their own is bounded.
    if (NORMALIZED.size < 1000) NORMALIZED.set(name, normalized);
  }
  return normalized;
}

/** Names already normalized: every JSON object repeats the same keys. */
const NORMALIZED = new Map<string, string>();

/** Which format a set of (normalized) column or field names is. */
export function recognise(names: ReadonlySet<string>): FormatName | undefined {
  const has = (...any: string[]) => any.some((name) => names.has(name));
  if (has('code') && has('url') && has('passwordhash')) return 'kurz';
  if (has('keyword') && has('url')) return 'yourls';
  if (has('target') && has('address', 'link')) return 'kutt';
  // Shlink's shortCode or dateCreated, or its web client's older shortUrl with createdAt.
  if (
    has('longurl') &&
    (has('shortcode', 'datecreated') || (has('shorturl') && has('createdat')))
  ) {
    return 'shlink';
  }
  if (has('destinationurl', 'longurl', 'originalurl') && has(...(COLUMNS.bitly.shortUrl ?? []))) {
    return 'bitly';
  }
  return undefined;
}

export const WHAT_EACH_NEEDS: Record<FormatName, string> = {
  kurz: 'code, url, created_at, owner, …, password_hash',
  yourls: 'keyword, url, title, timestamp, ip, clicks',
  kutt: 'address, target, created_at',
  shlink: 'shortCode (or shortUrl), longUrl',
  bitly: 'Link (or Custom Link), Destination URL (or Long URL)',
};
