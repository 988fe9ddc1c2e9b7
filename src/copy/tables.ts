// What `kurz copy` moves, and the two faces each database shows it: a snapshot to read
// from and a target to write to. The tables and columns are the same on SQLite and
// PostgreSQL, ids included; counts are not copied but follow from the clicks on each side.

/**
 * The tables copied row by row, in this order (links refer to users and domains, tags to
 * links; click records to click strings and agents). The click log and the click records
 * together hold every click: the analytics rollup moves clicks from the one to the other.
 */
export const TABLES = [
  'users',
  'domains',
  'links',
  'link_tags',
  'clicks',
  'click_strings',
  'click_agents',
  'click_records',
  'click_days',
  'api_keys',
  'webhooks',
  'webhook_deliveries',
  'reports',
  'blocked_hosts',
] as const;
export type Table = (typeof TABLES)[number];

/** Columns of each table, in the order rows travel; the first KEY_WIDTH are the key. */
export const COLUMNS: Record<Table, readonly string[]> = {
  // `admin` travels as 0 or 1, as click_agents.bot does.
  users: [
    'id',
    'email',
    'password_hash',
    'created_at',
    'token_version',
    'admin',
    'disabled_at',
    'oidc_issuer',
    'oidc_subject',
  ],
  domains: ['id', 'base_url', 'host', 'root_redirect', 'not_found_redirect', 'created_at'],
  // A code is unique per domain: domain_id travels with it (0: the default domain).
  links: [
    'id',
    'user_id',
    'domain_id',
    'original_url',
    'short_code',
    'source',
    'created_at',
    'expires_at',
    'max_clicks',
    'limited_clicks',
    'password_hash',
    'rules',
    'variants',
    'preview',
    'disabled_at',
    'disabled_reason',
  ],
  link_tags: ['link_id', 'tag'],
  clicks: [
    'id',
    'link_id',
    'source',
    'query_source',
    'referrer',
    'user_agent',
    'created_at',
    'country',
    'route',
  ],
  click_strings: ['id', 'value'],
  // `bot` travels as 0 or 1: SQLite stores it so, PostgreSQL as a boolean.
  click_agents: ['id', 'value', 'browser', 'os', 'device', 'bot'],
  click_records: [
    'id',
    'link_id',
    'created_at',
    'source',
    'query_source',
    'referrer',
    'agent',
    'country',
    'route',
  ],
  click_days: ['link_id', 'day', 'dimension', 'value', 'clicks'],
  api_keys: [
    'id',
    'user_id',
    'name',
    'prefix',
    'secret_hash',
    'scope',
    'created_at',
    'expires_at',
    'last_used_at',
  ],
  webhooks: ['id', 'user_id', 'url', 'secret', 'events', 'created_at'],
  // Pending deliveries travel too: a change the source committed is still told.
  webhook_deliveries: [
    'id',
    'webhook_id',
    'type',
    'payload',
    'created_at',
    'attempts',
    'next_attempt_at',
    'delivered_at',
    'last_status',
    'last_error',
  ],
  // A report outlives its link (link_id refers to no row then), and is copied as it is.
  reports: [
    'id',
    'link_id',
    'domain_id',
    'short_code',
    'reason',
    'details',
    'created_at',
    'resolved_at',
    'resolution',
    'resolved_by',
  ],
  blocked_hosts: ['host', 'reason', 'created_at', 'added_by'],
};

/** How many leading columns make each table's primary key: the keyset rows are read by. */
export const KEY_WIDTH: Record<Table, number> = {
  users: 1,
  domains: 1,
  links: 1,
  link_tags: 2,
  clicks: 1,
  click_strings: 1,
  click_agents: 1,
  click_records: 1,
  click_days: 4,
  api_keys: 1,
  webhooks: 1,
  webhook_deliveries: 1,
  reports: 1,
  blocked_hosts: 1,
};

/** A row as its column values, in COLUMNS order; ids and times are JavaScript numbers. */
export type Row = (string | number | null)[];

/** The key of a row: what the next chunk starts after. */
export function keyOf(table: Table, row: Row): Row {
  return row.slice(0, KEY_WIDTH[table]);
}

/** /health's probe row: written by every running kurz, it is not data and is not copied. */
export { HEALTH_PROBE_KEY } from '../health/health-check.ts';

/** Rows per table (settings without the health probe): what makes a database non-empty. */
export type Contents = Record<Table | 'settings', number>;

/** The tables whose ids are handed out by the database, and must never be handed out again. */
export const NUMBERED = [
  'users',
  'domains',
  'links',
  'clicks',
  'click_strings',
  'click_agents',
  'api_keys',
  'webhooks',
  'webhook_deliveries',
  'reports',
] as const;

/**
 * The highest ids ever handed out (deleted rows included), so the target never reuses
 * one. `clicks` covers the click records too: a record keeps its click's id.
 */
export type HighWater = Record<(typeof NUMBERED)[number], number>;

/**
 * A link's id, its clicks (rolled up into its humans and bots day counts, plus those
 * still in the log: the same on either engine), and the count its store shows (SQLite's
 * counts file and log tail, PostgreSQL's link_clicks), which must agree with them.
 */
export type LinkCount = [id: number, clicks: number, shown: number];

/** Links per owner (owner 0: links of no one), as X-Total-Count reads them. */
export type LinkTotals = Map<number, number>;

/** Links per domain (0: the default one). */
export type DomainTotals = Map<number, number>;

/** A consistent view of a database: every read sees the same moment. */
export interface Snapshot {
  contents(): Promise<Contents>;
  /** The next `limit` rows of `table` with keys above `after` (undefined: from the first), in key order. */
  rows(table: Table, after: Row | undefined, limit: number): Promise<Row[]>;
  /** Every setting but the health probe. */
  settings(): Promise<[key: string, value: string][]>;
  highWater(): Promise<HighWater>;
  /** Every link's clicks, in id order, a chunk at a time. */
  linkCounts(): AsyncIterable<LinkCount[]>;
  linkTotals(): Promise<LinkTotals>;
  domainTotals(): Promise<DomainTotals>;
}

/** A database being written by `kurz copy`. */
export interface Target {
  /**
   * Clears what is derived from the data (link totals, click counts): left over in a
   * database whose rows are gone, it would be added to the copied rows' counts.
   */
  resetDerived(): Promise<void>;
  /** Writes one chunk in one transaction. */
  insert(table: Table, rows: readonly Row[]): Promise<void>;
  /**
   * Once every table is in: makes each link's count what its day counts (humans and
   * bots) and its clicks in the log add up to, and marks the copied records as rolled up.
   */
  countClicks(): Promise<void>;
  insertSettings(settings: readonly [string, string][]): Promise<void>;
  /** Moves the id sequences past `highWater`, so new rows get ids never used before. */
  moveSequences(highWater: HighWater): Promise<void>;
}

/** One database as `kurz copy` sees it. */
export interface CopySide {
  /** How the database is shown: kind and address, never a password. */
  readonly label: string;
  /** Runs `work` on one snapshot of the database, ended when `work` settles. */
  withSnapshot<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T>;
  readonly target: Target;
  close(): Promise<void>;
}
