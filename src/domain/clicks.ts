// What kurz keeps of clicks, as the store, the stats and the exports share it: a click as
// the log and the records hold it, and a day's count per dimension (click_days).

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
} as const;

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
export type LogColumn = 'source' | 'querySource' | 'referrer' | 'userAgent' | 'country';

/**
 * Clicks of one day that share the raw value of one column of the log: what a store reads
 * of clicks not rolled up yet, grouped, so that a backlog costs memory per distinct value
 * rather than per click. Agents and referrers are classified by the reader, not in SQL.
 */
export interface ValueCount {
  day: number;
  column: LogColumn;
  value: string | null;
  clicks: number;
}
