// Folding click records into what stats read: per link, UTC day, dimension and value, a
// count. The same fold serves the rollup (which stores its result in click_days) and
// stats (which adds the clicks not rolled up yet), so both always agree.

import {
  type ClickRow,
  type DayCount,
  DEFAULT_ROUTE,
  Dimension,
  type DimensionCode,
  type ValueCount,
} from '../domain/clicks.ts';
import { referrerHost } from './referrers.ts';
import { describeAgent } from './user-agents.ts';

export const UNKNOWN_COUNTRY = 'unknown';

const MS_PER_DAY = 86_400_000;

/** The UTC day of a moment, as days since 1970-01-01. */
export function dayOf(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** Midnight (UTC) that starts a day, in milliseconds. */
export function startOfDay(day: number): number {
  return day * MS_PER_DAY;
}

/** The same few hundred referrers make most clicks: their hosts are remembered. */
const HOST_CACHE_SIZE = 10_000;
const hosts = new Map<string, string>();

function hostOf(referrer: string | null): string {
  if (referrer === null) return referrerHost(null);
  let host = hosts.get(referrer);
  if (host === undefined) {
    host = referrerHost(referrer);
    if (hosts.size >= HOST_CACHE_SIZE) hosts.delete(hosts.keys().next().value as string);
    hosts.set(referrer, host);
  }
  return host;
}

/** Adds clicks up by (link, day, dimension, value). */
export class DayTally {
  private readonly counts = new Map<string, DayCount>();

  add(click: ClickRow): void {
    const day = dayOf(click.createdAt);
    const agent = describeAgent(click.userAgent);
    this.count(click.linkId, day, agent.bot ? Dimension.bots : Dimension.humans, '');
    if (click.source !== null) this.count(click.linkId, day, Dimension.source, click.source);
    if (click.querySource !== null) {
      this.count(click.linkId, day, Dimension.querySource, click.querySource);
    }
    this.count(click.linkId, day, Dimension.referrer, hostOf(click.referrer));
    this.count(click.linkId, day, Dimension.browser, agent.browser);
    this.count(click.linkId, day, Dimension.os, agent.os);
    this.count(click.linkId, day, Dimension.device, agent.device);
    this.count(click.linkId, day, Dimension.country, click.country ?? UNKNOWN_COUNTRY);
    this.count(click.linkId, day, Dimension.route, click.route ?? DEFAULT_ROUTE);
  }

  /** Adds `clicks` clicks of `linkId` sharing one raw value: as many add() calls would. */
  addValue(linkId: number, { day, column, value, clicks }: ValueCount): void {
    switch (column) {
      case 'userAgent': {
        const agent = describeAgent(value);
        this.count(linkId, day, agent.bot ? Dimension.bots : Dimension.humans, '', clicks);
        this.count(linkId, day, Dimension.browser, agent.browser, clicks);
        this.count(linkId, day, Dimension.os, agent.os, clicks);
        this.count(linkId, day, Dimension.device, agent.device, clicks);
        return;
      }
      case 'source':
        if (value !== null) this.count(linkId, day, Dimension.source, value, clicks);
        return;
      case 'querySource':
        if (value !== null) this.count(linkId, day, Dimension.querySource, value, clicks);
        return;
      case 'referrer':
        this.count(linkId, day, Dimension.referrer, hostOf(value), clicks);
        return;
      case 'country':
        this.count(linkId, day, Dimension.country, value ?? UNKNOWN_COUNTRY, clicks);
        return;
      case 'route':
        this.count(linkId, day, Dimension.route, value ?? DEFAULT_ROUTE, clicks);
        return;
    }
  }

  /** Adds rows already counted (from click_days). */
  addCount(row: DayCount): void {
    this.count(row.linkId, row.day, row.dimension, row.value, row.clicks);
  }

  /** Every count, in (link, day, dimension, value) order: the order rows are locked in. */
  rows(): DayCount[] {
    return [...this.counts.values()].sort(
      (a, b) =>
        a.linkId - b.linkId ||
        a.day - b.day ||
        a.dimension - b.dimension ||
        (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
    );
  }

  /** Every value the counts name, for interning. */
  values(): Set<string> {
    const values = new Set<string>();
    for (const row of this.counts.values()) if (row.value !== '') values.add(row.value);
    return values;
  }

  private count(linkId: number, day: number, dimension: DimensionCode, value: string, n = 1) {
    const key = `${linkId}|${day}|${dimension}|${value}`;
    const row = this.counts.get(key);
    if (row === undefined) this.counts.set(key, { linkId, day, dimension, value, clicks: n });
    else row.clicks += n;
  }
}
