// What `kurz copy` moves, and the two faces each database shows it: a snapshot to read
// from and a target to write to. The tables and columns are the same on SQLite and
// PostgreSQL; counts are not copied but follow from the click records on each side.

/** The tables copied row by row, in this order (links refer to users). */
export const TABLES = ['users', 'links', 'clicks'] as const;
export type Table = (typeof TABLES)[number];

/** Columns of each table, in the order rows travel (the first is the id, the keyset). */
export const COLUMNS: Record<Table, readonly string[]> = {
  users: ['id', 'email', 'password_hash', 'created_at'],
  links: ['id', 'user_id', 'original_url', 'short_code', 'source', 'created_at'],
  clicks: ['id', 'link_id', 'source', 'query_source', 'referrer', 'user_agent', 'created_at'],
};

/** A row as its column values, in COLUMNS order; ids and times are JavaScript numbers. */
export type Row = (string | number | null)[];

/** /health's probe row: written by every running kurz, it is not data and is not copied. */
export { HEALTH_PROBE_KEY } from '../health/health-check.ts';

/** Rows per table (settings without the health probe): what makes a database non-empty. */
export interface Contents {
  users: number;
  links: number;
  clicks: number;
  settings: number;
}

/** The highest ids ever handed out (deleted rows included), so the target never reuses one. */
export type HighWater = Record<Table, number>;

/** A link's id and its click count, as its store computes it. */
export type LinkCount = [id: number, clicks: number];

/** Links per owner (owner 0: links of no one), as X-Total-Count reads them. */
export type LinkTotals = Map<number, number>;

/** A consistent view of a database: every read sees the same moment. */
export interface Snapshot {
  contents(): Promise<Contents>;
  /** The next `limit` rows of `table` with ids above `after`, in id order. */
  rows(table: Table, after: number, limit: number): Promise<Row[]>;
  /** Every setting but the health probe. */
  settings(): Promise<[key: string, value: string][]>;
  highWater(): Promise<HighWater>;
  /** Every link's click count, in id order, a chunk at a time. */
  linkCounts(): AsyncIterable<LinkCount[]>;
  linkTotals(): Promise<LinkTotals>;
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
  /** Once every click is in: makes each link's count equal its click records. */
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
