// What `kurz import` reads: kurz's own export and the exports of the shorteners people
// leave for it (YOURLS, Kutt, Shlink, Bitly), as CSV or JSON. Each format is told from
// its first line(s) and turned into the same entries: links as the file gives them
// (kurz's rules are applied later), click records of kurz's export, and bad rows.
//
// Column names are compared without case, spaces, `_` or `-` (`Long URL`, `long_url` and
// `longUrl` are one name), and columns kurz does not use are ignored.

import { csvRecords, fromCsvField, guessDelimiter } from './csv.ts';
import { parseFileDate } from './dates.ts';
import { type JsonItem, jsonLines, jsonObjects, listsObjects } from './json-objects.ts';
import { EXPORT_VERSION } from './kurz-format.ts';

export const FORMATS = ['kurz', 'yourls', 'kutt', 'shlink', 'bitly'] as const;
export type FormatName = (typeof FORMATS)[number];

const NAMES: Record<FormatName, string> = {
  kurz: 'kurz',
  yourls: 'YOURLS',
  kutt: 'Kutt',
  shlink: 'Shlink',
  bitly: 'Bitly',
};

/** A link as a file gives it, before kurz's rules (URL, code, owner) are applied. */
export interface LinkEntry {
  kind: 'link';
  line: number;
  /** The code as given; undefined when the row has none (a new one is made). */
  code: string | undefined;
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
}

/** A click record of kurz's export (made with --clicks), for the link of `code`. */
export interface ClickEntry {
  kind: 'click';
  line: number;
  code: string;
  createdAt: number;
  source: string | null;
  querySource: string | null;
  referrer: string | null;
  userAgent: string | null;
  country: string | null;
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
  entries: AsyncGenerator<Entry>;
}

/** What a column (or JSON field) means to kurz. */
type Role =
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
 *   created_at, expire_in, password, banned, link; `id` is a UUID, not the code).
 * - Shlink: the web client's CSV export (createdAt, domain, shortCode, shortUrl, longUrl,
 *   title, tags, visits), the CSV shlink-importer reads (longUrl, shortCode, shortUrl,
 *   domain, title, tags), and the API's short URL objects (shortCode, longUrl,
 *   dateCreated, meta.validUntil, meta.maxVisits, visitsSummary.total or visitsCount).
 * - Bitly: the CSV of its link export (Link, Custom Link, Destination URL or Long URL,
 *   Title, Date Created, Tags, Clicks) and the API's bitlinks (link, custom_bitlinks,
 *   long_url, created_at).
 */
const COLUMNS: Record<FormatName, Partial<Record<Role, string[]>>> = {
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
  },
  shlink: {
    code: ['shortcode'],
    shortUrl: ['shorturl'],
    url: ['longurl'],
    created: ['datecreated', 'createdat'],
    expires: ['validuntil', 'metavaliduntil'],
    maxClicks: ['maxvisits', 'metamaxvisits'],
    visits: ['visitssummarytotal', 'visitscount', 'visits'],
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
const YOURLS_POSITIONS = ['keyword', 'url', 'title', 'timestamp', 'ip', 'clicks'];

/** A column name as compared: lower case, without spaces, `_`, `-` or `.`. */
function normalize(name: string): string {
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
function recognise(names: ReadonlySet<string>): FormatName | undefined {
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

const WHAT_EACH_NEEDS: Record<FormatName, string> = {
  kurz: 'code, url, created_at, owner, …, password_hash',
  yourls: 'keyword, url, title, timestamp, ip, clicks',
  kutt: 'address, target, created_at',
  shlink: 'shortCode (or shortUrl), longUrl',
  bitly: 'Link (or Custom Link), Destination URL (or Long URL)',
};

/**
 * Opens an export file: recognises its format (or takes `from`) from its first lines,
 * and returns its entries, read as they are consumed. Throws InputError when the file
 * is no format kurz reads.
 */
export async function readInput(
  chunks: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  const { head, text } = await peekFirstLine(chunks);
  const first = head.trimStart();
  if (first === '') throw new InputError('the file is empty');
  if (first.startsWith('{') || first.startsWith('[')) return readJson(head, text, from);
  return readCsv(guessDelimiter(head), text, from);
}

/** How much of a first line is read to tell the format. */
const PEEK_LIMIT = 64 * 1024;

/**
 * The first line that is not blank (or its first 64 KiB), and the whole text again (that line included), so
 * that the readers after it count lines from the start.
 */
async function peekFirstLine(
  chunks: AsyncIterable<string>,
): Promise<{ head: string; text: AsyncIterable<string> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: string[] = [];
  let buffered = '';
  let head = '';
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      head = buffered.trim() === '' ? '' : (buffered.split(/\r?\n/).find((l) => l.trim()) ?? '');
      break;
    }
    seen.push(next.value);
    buffered += next.value;
    const lines = buffered.split(/\r?\n/);
    const found = lines.slice(0, -1).find((line) => line.trim() !== '');
    if (found !== undefined) {
      head = found;
      break;
    }
    // A document on one line (an API's answer saved as it came) is not held whole.
    if (buffered.length > PEEK_LIMIT) {
      head = buffered.trimStart();
      break;
    }
  }
  async function* replay() {
    yield* seen;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, text: replay() };
}

async function readJson(
  head: string,
  text: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  // JSON Lines when the first line is an object of its own (a link, or kurz's header);
  // else a document, whose objects are found by their place in it.
  let lines = false;
  try {
    const value: unknown = JSON.parse(head);
    lines =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      !listsObjects(value as Record<string, unknown>);
  } catch {
    // Not a whole object on its first line: a document.
  }
  const items = (lines ? jsonLines : jsonObjects)(text);
  const first = await items.next();
  if (first.done) throw new InputError('the file holds no JSON object');
  const firstItem = first.value;
  let format = from;
  let version: number | undefined;
  if ('value' in firstItem && 'kurz_export' in firstItem.value) {
    version = Number(firstItem.value.kurz_export);
    if (!Number.isInteger(version) || version < 1) {
      throw new InputError(`line ${firstItem.line}: kurz_export must be a version number`);
    }
    if (version > EXPORT_VERSION) {
      throw new InputError(
        `the file was written by a newer kurz (export version ${version}); this kurz reads version ${EXPORT_VERSION}: import it with a newer kurz`,
      );
    }
    format ??= 'kurz';
  }
  if (format === undefined) {
    if (!('value' in firstItem)) {
      throw new InputError(`line ${firstItem.line}: the first object is ${firstItem.error}`);
    }
    format = recognise(new Set(fieldsOf(firstItem.value).keys()));
    if (format === undefined) {
      throw new InputError(
        `the format was not recognised from the fields of line ${firstItem.line} (${Object.keys(firstItem.value).slice(0, 8).join(', ')}); give --from`,
      );
    }
  }
  const chosen = format;
  const columns = COLUMNS[chosen];
  async function* entries(): AsyncGenerator<Entry> {
    const header = version !== undefined;
    for (const item of header ? [] : [firstItem]) yield fromJson(item, chosen, columns);
    for await (const item of items) yield fromJson(item, chosen, columns);
  }
  const kind = lines ? 'JSON Lines' : 'JSON';
  const description =
    version !== undefined
      ? `kurz export (${kind}, version ${version})`
      : `${NAMES[chosen]} ${kind}`;
  return { format: chosen, description, entries: entries() };
}

/**
 * A JSON object's fields by normalized name. An object within it adds its fields under
 * both their own name and the name prefixed with its key (Shlink's meta.validUntil is
 * `validuntil` and `metavaliduntil`); an array of strings gives its first (Bitly's
 * custom_bitlinks).
 */
function fieldsOf(object: Record<string, unknown>): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [key, value] of Object.entries(object)) {
    const name = normalize(key);
    if (Array.isArray(value)) {
      if (typeof value[0] === 'string') fields.set(name, value[0]);
    } else if (value !== null && typeof value === 'object') {
      for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) {
        fields.set(name + normalize(inner), innerValue);
        if (!fields.has(normalize(inner))) fields.set(normalize(inner), innerValue);
      }
    } else {
      fields.set(name, value);
    }
  }
  return fields;
}

function fromJson(
  item: JsonItem,
  format: FormatName,
  columns: Partial<Record<Role, string[]>>,
): Entry {
  if (!('value' in item)) return { kind: 'bad', line: item.line, reason: item.error };
  const fields = fieldsOf(item.value);
  if (format === 'kurz' && fields.has('click')) return clickEntry(item.line, fields);
  return linkEntry(item.line, format, (role) => {
    for (const name of columns[role] ?? []) {
      const value = fields.get(name);
      if (value !== undefined && value !== null && value !== '') return value;
    }
    return fields.has(columns[role]?.[0] ?? '') ? null : undefined;
  });
}

async function readCsv(
  delimiter: string,
  text: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  const records = csvRecords(text, delimiter);
  const first = await records.next();
  if (first.done) throw new InputError('the file is empty');
  const headerRecord = first.value;
  const names = headerRecord.fields.map(normalize);
  let format = from ?? recognise(new Set(names));
  let header = true;
  const looksLikeYourlsRow =
    headerRecord.fields.length >= 2 && /^https?:\/\//i.test(headerRecord.fields[1] ?? '');
  if (format === undefined && looksLikeYourlsRow) format = 'yourls';
  if (format === 'yourls' && !names.includes('keyword') && !names.includes('url')) header = false;
  if (format === undefined) {
    throw new InputError(
      `the format was not recognised from the first line (${headerRecord.fields.slice(0, 8).join(', ')}); give --from`,
    );
  }
  const chosen = format;
  const columns = COLUMNS[chosen];
  const positions = new Map<string, number>();
  (header ? names : YOURLS_POSITIONS).forEach((name, i) => {
    if (!positions.has(name)) positions.set(name, i);
  });
  const hasColumn = (role: Role) => (columns[role] ?? []).some((name) => positions.has(name));
  if (!hasColumn('url') || (!hasColumn('code') && !hasColumn('shortUrl') && chosen !== 'yourls')) {
    throw new InputError(
      `the first line must name the columns of a ${NAMES[chosen]} CSV (${WHAT_EACH_NEEDS[chosen]}); found: ${headerRecord.fields.slice(0, 10).join(', ')}`,
    );
  }
  const width = header ? names.length : undefined;
  /** Each role's columns (by index), in the order of their names' preference. */
  const columnsOf: Partial<Record<Role, number[]>> = {};
  for (const [role, aliases] of Object.entries(columns) as [Role, string[]][]) {
    const at = aliases.flatMap((name) => {
      const i = positions.get(name);
      return i === undefined ? [] : [i];
    });
    if (at.length > 0) columnsOf[role] = at;
  }
  async function* entries(): AsyncGenerator<Entry> {
    const rows = header ? records : prepend(headerRecord, records);
    for await (const { line, fields } of rows) {
      if (width !== undefined && fields.length !== width) {
        yield {
          kind: 'bad',
          line,
          reason: `${fields.length} ${fields.length === 1 ? 'field' : 'fields'} where the header has ${width}`,
        };
        continue;
      }
      yield linkEntry(line, chosen, (role) => {
        const at = columnsOf[role];
        if (at === undefined) return undefined;
        for (const i of at) {
          const raw = fields[i] as string;
          if (raw.trim() !== '') return chosen === 'kurz' ? fromCsvField(raw) : raw;
        }
        return null;
      });
    }
  }
  const description = `${chosen === 'kurz' ? 'kurz export' : NAMES[chosen]} CSV${header ? '' : ' without a header'}`;
  return { format: chosen, description, entries: entries() };
}

async function* prepend<T>(first: T, rest: AsyncIterable<T>): AsyncGenerator<T> {
  yield first;
  yield* rest;
}

/** A field's value: a string or number, null when given empty, undefined when absent. */
type Field = (role: Role) => unknown;

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

/** The code in a short URL: its path without the leading `/` (`bit.ly/abc` works too). */
function codeOfShortUrl(value: string): string | undefined {
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  if (url === null) return undefined;
  const path = url.pathname.replace(/^\/+/, '');
  try {
    return path === '' ? undefined : decodeURIComponent(path);
  } catch {
    // A broken %-escape: the code as written, which the code rules then judge.
    return path;
  }
}

function linkEntry(line: number, format: FormatName, field: Field): Entry {
  const bad = (reason: string): BadEntry => ({ kind: 'bad', line, reason });
  const url = text(field('url'));
  if (url === null) return bad('no URL');
  if (truthy(field('banned'))) return bad('the link was banned in Kutt');
  if (truthy(field('protected'))) {
    return bad('the link has a password in Kutt, which its export does not carry');
  }
  let code = text(field('code')) ?? undefined;
  if (code === undefined) {
    const short = text(field('shortUrl'));
    if (short !== null) code = codeOfShortUrl(short);
  }
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
    url,
    createdAt: created ?? undefined,
    source: null,
    expiresAt: expires,
    maxClicks,
    limitedClicks: maxClicks === null ? 0 : Math.min(used ?? 0, maxClicks),
    passwordHash: null,
  };
  if (format === 'kurz') {
    const owner = field('owner');
    entry.owner = text(owner);
    entry.source = typeof field('source') === 'string' ? (field('source') as string) : null;
    entry.passwordHash = text(field('passwordHash'));
  }
  return entry;
}

function clickEntry(line: number, fields: Map<string, unknown>): Entry {
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
    createdAt: at,
    source: string('source'),
    querySource: string('querysource'),
    referrer: string('referrer'),
    userAgent: string('useragent'),
    country: string('country'),
  };
}
