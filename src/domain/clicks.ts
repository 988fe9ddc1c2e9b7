// What kurz keeps of clicks, as the store, the stats and the exports share it: a click as
// the log and the records hold it, a day's count per dimension (click_days), and the
// log's clicks counted per day and raw value (pending_values).

/** The dimensions of click_days, stored as these small codes. */
export const Dimension = {
  /** Clicks of people (value ''): with `bots`, the day's total. */
  humans: 0,
  bots: 1,
  /** The source given when the link was made. */
  source: 2,
  /** `?source=` of the redirect (accounts mode). */
  querySource: 3,
  /** The referrer's host; `direct` without one. */
  referrer: 4,
  browser: 5,
  os: 6,
  device: 7,
  /** ISO 3166-1 alpha-2, or `unknown`. */
  country: 8,
  /** What served the click: `rule:N`, `variant:N`, or `default` (a link's own target). */
  route: 9,
} as const;

/** The route of a click served by a link's own target, and of every click kept before routes. */
export const DEFAULT_ROUTE = 'default';

export type DimensionCode = (typeof Dimension)[keyof typeof Dimension];

/** A click as the log and the records keep it. */
export interface ClickRow {
  id: number;
  linkId: number;
  createdAt: number;
  source: string | null;
  querySource: string | null;
  referrer: string | null;
  userAgent: string | null;
  country: string | null;
  /** `rule:N` or `variant:N`; null or absent: the link's own target (`default`). */
  route?: string | null;
}

/** Clicks of one link, day, dimension and value. */
export interface DayCount {
  linkId: number;
  day: number;
  dimension: DimensionCode;
  value: string;
  clicks: number;
}

/** The columns of the click log that stats fold, each counted by day and raw value. */
export type LogColumn = 'source' | 'querySource' | 'referrer' | 'userAgent' | 'country' | 'route';

/**
 * Clicks of one day that share the raw value of one column of the log: what a store reads
 * of clicks not rolled up yet (pending_values), so that a backlog costs time and memory
 * per distinct value rather than per click. Agents and referrers are classified by the
 * reader, not in SQL.
 */
export interface ValueCount {
  day: number;
  column: LogColumn;
  value: string | null;
  clicks: number;
}

/** The log columns stats fold, each stored in pending_values as its index here. */
export const LOG_COLUMNS = [
  'source',
  'querySource',
  'referrer',
  'userAgent',
  'country',
  'route',
] as const satisfies readonly LogColumn[];

/** A row of pending_values: clicks of one link still in the log sharing a day and a raw value. */
export interface PendingCount extends ValueCount {
  linkId: number;
}

const MS_PER_DAY = 86_400_000;

type ColumnValues = Record<LogColumn, Map<string | null, number>>;

/**
 * Adds clicks of the log up as pending_values keeps them: by link, UTC day and raw value
 * of each log column. A click without a source or query source adds nothing to that
 * column, as stats count nothing for it.
 */
export class PendingTally {
  private readonly links = new Map<number, Map<number, ColumnValues>>();

  add(click: Pick<ClickRow, 'linkId' | 'createdAt' | LogColumn>): void {
    let days = this.links.get(click.linkId);
    if (days === undefined) {
      days = new Map();
      this.links.set(click.linkId, days);
    }
    const day = Math.floor(click.createdAt / MS_PER_DAY);
    let values = days.get(day);
    if (values === undefined) {
      values = {
        source: new Map(),
        querySource: new Map(),
        referrer: new Map(),
        userAgent: new Map(),
        country: new Map(),
        route: new Map(),
      };
      days.set(day, values);
    }
    if (click.source !== null) bump(values.source, click.source);
    if (click.querySource !== null) bump(values.querySource, click.querySource);
    bump(values.referrer, click.referrer);
    bump(values.userAgent, click.userAgent);
    bump(values.country, click.country);
    bump(values.route, click.route ?? null);
  }

  /** Every count held, one per key. */
  rows(): PendingCount[] {
    const rows: PendingCount[] = [];
    for (const [linkId, days] of this.links) {
      for (const [day, values] of days) {
        for (const column of LOG_COLUMNS) {
          for (const [value, clicks] of values[column]) {
            rows.push({ linkId, day, column, value, clicks });
          }
        }
      }
    }
    return rows;
  }
}

function bump(values: Map<string | null, number>, value: string | null): void {
  values.set(value, (values.get(value) ?? 0) + 1);
}
