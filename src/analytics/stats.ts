// The stats of one link (or of a tag's links) over a range of UTC days: totals, a
// per-day series with every day present, and the top entries of each dimension, made
// from day counts (rolled up, plus those of clicks not rolled up yet).

import type { Static } from '@sinclair/typebox';
import { type DayCount, Dimension } from '../domain/clicks.ts';
import { badRequest, Messages } from '../domain/errors.ts';
import { dayOf, startOfDay } from './fold.ts';
import type { LinkStats } from './model.ts';

/** The longest range one request may ask for. */
export const MAX_RANGE_DAYS = 366;
/** The range without from and to: the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;
export const TOP_ENTRIES = 10;

/** Inclusive UTC days since the epoch. */
export interface DayRange {
  from: number;
  to: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDate(value: string): number {
  const parts = DATE.exec(value);
  if (parts === null) throw badRequest(Messages.statsRange);
  const [year, month, day] = parts.slice(1).map(Number) as [number, number, number];
  const at = Date.UTC(year, month - 1, day);
  const date = new Date(at);
  if (year < 1970 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw badRequest(Messages.statsRange);
  }
  return dayOf(at);
}

export function formatDay(day: number): string {
  return new Date(startOfDay(day)).toISOString().slice(0, 10);
}

/**
 * `?from=&to=`: `to` defaults to today (UTC), `from` to 29 days before `to`; `from`
 * alone runs to today. Either may lie in the future (its days are zeros).
 */
export function parseRange(query: URLSearchParams, now: number): DayRange {
  const from = query.getAll('from');
  const to = query.getAll('to');
  if (from.length > 1 || to.length > 1) throw badRequest(Messages.statsRange);
  const last = to[0] === undefined ? dayOf(now) : parseDate(to[0]);
  const first = from[0] === undefined ? last - (DEFAULT_RANGE_DAYS - 1) : parseDate(from[0]);
  if (first > last || last - first + 1 > MAX_RANGE_DAYS) throw badRequest(Messages.statsRange);
  return { from: first, to: last };
}

/** The stats as GET /api/links/{code}/stats answers them. */
export type StatsJson = Static<typeof LinkStats>;
/** The stats without what they are of: the traffic fields every stats answer has. */
export type TrafficJson = Omit<StatsJson, 'short_code' | 'domain'>;
type Entry = StatsJson['top']['sources'][number];

const TOP_LISTS = [
  ['sources', Dimension.source],
  ['query_sources', Dimension.querySource],
  ['referrers', Dimension.referrer],
  ['browsers', Dimension.browser],
  ['operating_systems', Dimension.os],
  ['devices', Dimension.device],
  ['countries', Dimension.country],
  ['routes', Dimension.route],
] as const;

/** The stats of a link from its day counts within `range` (others are ignored). */
export function buildStats(
  shortCode: string,
  allTime: number,
  range: DayRange,
  counts: Iterable<DayCount>,
): StatsJson {
  return { short_code: shortCode, ...buildTraffic(allTime, range, counts) };
}

/**
 * The traffic fields of stats from day counts within `range` (others are ignored), of
 * one link or several: counts of several links may come in any order, the same day and
 * value repeated (they are added up).
 */
export function buildTraffic(
  allTime: number,
  range: DayRange,
  counts: Iterable<DayCount>,
): TrafficJson {
  const span = range.to - range.from + 1;
  const humans = new Array<number>(span).fill(0);
  const bots = new Array<number>(span).fill(0);
  const byDimension = new Map<number, Map<string, number>>();
  for (const row of counts) {
    if (row.day < range.from || row.day > range.to) continue;
    const i = row.day - range.from;
    if (row.dimension === Dimension.humans) humans[i] = (humans[i] as number) + row.clicks;
    else if (row.dimension === Dimension.bots) bots[i] = (bots[i] as number) + row.clicks;
    else {
      let values = byDimension.get(row.dimension);
      if (values === undefined) {
        values = new Map();
        byDimension.set(row.dimension, values);
      }
      values.set(row.value, (values.get(row.value) ?? 0) + row.clicks);
    }
  }
  const days = humans.map((h, i) => ({
    date: formatDay(range.from + i),
    clicks: h + (bots[i] as number),
    humans: h,
    bots: bots[i] as number,
  }));
  const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
  const top = Object.fromEntries(
    TOP_LISTS.map(([name, dimension]) => [name, topOf(byDimension.get(dimension))]),
  ) as StatsJson['top'];
  return {
    from: formatDay(range.from),
    to: formatDay(range.to),
    clicks: allTime,
    range: { clicks: sum(humans) + sum(bots), humans: sum(humans), bots: sum(bots) },
    days,
    top,
  };
}

/** The entries with most clicks, ties in value order, so the answer is stable. */
function topOf(values: Map<string, number> | undefined): Entry[] {
  if (values === undefined) return [];
  return [...values]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, TOP_ENTRIES)
    .map(([value, clicks]) => ({ value, clicks }));
}
