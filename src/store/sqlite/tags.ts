// Tags on SQLite: the tag list, a tag's traffic, and tag_days (see schema.ts), the day
// counts summed per owner and tag that a tag's stats read. tag_days is kept exact in the
// transaction of each change of what it sums: the rollup's slice (addDays), a change of
// a link's tags or its removal (moveLink), a user's removal (accounts.ts, with the SQL
// below). One connection writes, so those transactions never interleave.

import type { Database, Statement } from 'bun:sqlite';
import { DayTally } from '../../analytics/fold.ts';
import { type DayCount, LOG_COLUMNS, type LogColumn } from '../../domain/clicks.ts';
import type { TagSummary, TagTraffic } from '../tags.ts';
import { CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';

/** A day count as click_days holds it: its value an id in click_strings (0: none). */
export interface StoredDayCount {
  linkId: number;
  day: number;
  dimension: number;
  value: number;
  clicks: number;
}

/**
 * tag_days summed from scratch, from the day counts and tags as they stand: what the 0007
 * migration filled it with, for a database whose day counts were written without it
 * (`kurz copy`, benchmarks).
 */
export const SUM_TAG_DAYS = `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
  SELECT coalesce(l.user_id, 0), g.tag, d.day, d.dimension, d.value, sum(d.clicks)
  FROM link_tags g JOIN links l ON l.id = g.link_id JOIN click_days d ON d.link_id = g.link_id
  GROUP BY 1, 2, 3, 4, 5`;

/** The statements of a user's removal: their links' sums go with the links. */
export const TAG_DAYS_OF_REMOVED_USER = 'DELETE FROM tag_days WHERE owner = ?';

/** ... or, when the links are kept and handed to no one, move to owner 0 with them ($id). */
export const TAG_DAYS_HANDED_TO_NO_ONE = [
  `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
   SELECT 0, tag, day, dimension, value, clicks FROM tag_days WHERE owner = $id
   ON CONFLICT (owner, tag, day, dimension, value) DO UPDATE SET clicks = clicks + excluded.clicks`,
  'DELETE FROM tag_days WHERE owner = $id',
];

const UPSERT = `ON CONFLICT (owner, tag, day, dimension, value)
  DO UPDATE SET clicks = clicks + excluded.clicks`;

/** Clicks of all time of each link `l`, as the link list counts them (click-counts.ts). */
const LINK_CLICKS = 'coalesce(c.clicks, 0) + coalesce(t.n, 0)';

/** The links carrying a tag and their clicks, per owner (0: no one's). */
const carriers = (where: string) => `${CLICKS_OF_LINKS}
  SELECT coalesce(l.user_id, 0) AS owner, count(*) AS links, sum(${LINK_CLICKS}) AS clicks
  FROM link_tags g JOIN links l ON l.id = g.link_id ${CLICKS_JOINS}
  WHERE g.tag = ? ${where} GROUP BY 1`;

/**
 * The pending_values counts of the links carrying a tag over [from, to], summed over the
 * links: the same values recur from link to link, and each is then classified once.
 */
const pendingOf = (where: string) => `
  SELECT p.day, p.log_column AS code, CASE WHEN p.has_value THEN p.value END AS value,
         sum(p.clicks) AS clicks
  FROM link_tags g JOIN links l ON l.id = g.link_id
  JOIN pending_values p ON p.link_id = g.link_id AND p.day BETWEEN ? AND ?
  WHERE g.tag = ? ${where}
  GROUP BY p.day, p.log_column, p.has_value, p.value`;

interface PendingRow {
  day: number;
  code: number;
  value: string | null;
  clicks: number;
}

export class SqliteTags {
  private readonly statements: Statement[] = [];
  private readonly tagsOfLink;
  private readonly addDay;
  private readonly moveDays;
  private readonly dropEmpty;
  private readonly listAll;
  private readonly listOfUser;
  private readonly carriersAll;
  private readonly carriersOfUser;
  private readonly dayRows;
  private readonly pendingAll;
  private readonly pendingOfUser;
  /** A tag's traffic, from one read transaction. */
  readonly traffic: (
    tag: string,
    owner: number | null,
    fromDay: number,
    toDay: number,
  ) => TagTraffic | undefined;

  constructor(sqlite: Database) {
    const prepare = <R, P extends import('bun:sqlite').SQLQueryBindings[]>(text: string) => {
      const statement = sqlite.prepare<R, P>(text);
      this.statements.push(statement as unknown as Statement);
      return statement;
    };
    this.tagsOfLink = prepare<{ owner: number; tag: string }, [number]>(
      `SELECT coalesce(l.user_id, 0) AS owner, g.tag FROM link_tags g
       JOIN links l ON l.id = g.link_id WHERE g.link_id = ?`,
    );
    this.addDay = prepare<unknown, [number, string, number, number, number, number]>(
      `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?, ?)
       ${UPSERT}`,
    );
    this.moveDays = prepare<unknown, [number, string, number, number]>(
      `INSERT INTO tag_days (owner, tag, day, dimension, value, clicks)
       SELECT ?1, ?2, day, dimension, value, clicks * ?3 FROM click_days WHERE link_id = ?4
       ${UPSERT}`,
    );
    this.dropEmpty = prepare<unknown, [number, string]>(
      'DELETE FROM tag_days WHERE owner = ? AND tag = ? AND clicks = 0',
    );
    const list = (where: string) => `${CLICKS_OF_LINKS}
      SELECT g.tag, count(*) AS links, sum(${LINK_CLICKS}) AS clicks
      FROM link_tags g JOIN links l ON l.id = g.link_id ${CLICKS_JOINS}
      ${where} GROUP BY g.tag ORDER BY g.tag`;
    this.listAll = prepare<TagSummary, []>(list(''));
    this.listOfUser = prepare<TagSummary, [number]>(list('WHERE l.user_id = ?'));
    type Carriers = { owner: number; links: number; clicks: number };
    this.carriersAll = prepare<Carriers, [string]>(carriers(''));
    this.carriersOfUser = prepare<Carriers, [string, number]>(carriers('AND l.user_id = ?'));
    this.dayRows = prepare<Omit<DayCount, 'linkId'>, [number, string, number, number]>(
      `SELECT d.day, d.dimension, coalesce(s.value, '') AS value, d.clicks
       FROM tag_days d LEFT JOIN click_strings s ON s.id = d.value
       WHERE d.owner = ? AND d.tag = ? AND d.day BETWEEN ? AND ? AND d.clicks != 0`,
    );
    this.pendingAll = prepare<PendingRow, [number, number, string]>(pendingOf(''));
    this.pendingOfUser = prepare<PendingRow, [number, number, string, number]>(
      pendingOf('AND l.user_id = ?'),
    );

    this.traffic = sqlite.transaction(
      (tag: string, owner: number | null, fromDay: number, toDay: number) => {
        const owners =
          owner === null ? this.carriersAll.all(tag) : this.carriersOfUser.all(tag, owner);
        if (owners.length === 0) return undefined;
        let links = 0;
        let clicks = 0;
        const days: DayCount[] = [];
        for (const row of owners) {
          links += row.links;
          clicks += row.clicks;
          for (const day of this.dayRows.iterate(row.owner, tag, fromDay, toDay)) {
            days.push({ linkId: 0, ...day });
          }
        }
        // The log's clicks as pending_values counts them, each distinct value folded once.
        const pending = new DayTally();
        const rows =
          owner === null
            ? this.pendingAll.iterate(fromDay, toDay, tag)
            : this.pendingOfUser.iterate(fromDay, toDay, tag, owner);
        for (const row of rows) {
          pending.addValue(0, {
            day: row.day,
            column: LOG_COLUMNS[row.code] as LogColumn,
            value: row.value,
            clicks: row.clicks,
          });
        }
        return { links, clicks, days, pending: pending.rows() };
      },
    );
  }

  /** Every tag of the owner's links (null: of every link), in code-unit order. */
  list(owner: number | null): TagSummary[] {
    return owner === null ? this.listAll.all() : this.listOfUser.all(owner);
  }

  /**
   * Adds what a rollup slice adds to click_days to the tags of each link, in the slice's
   * transaction. A link's tags are read once per slice (a link without any costs that
   * read), and the slice's counts are summed per tag first: the links of one campaign's
   * tag share their days and values, so its row of each is written once per slice.
   */
  addDays(rows: readonly StoredDayCount[]): void {
    const tagsOf = new Map<number, { owner: number; tag: string }[]>();
    const sums = new Map<string, [number, string, number, number, number, number]>();
    for (const row of rows) {
      let tags = tagsOf.get(row.linkId);
      if (tags === undefined) {
        tags = this.tagsOfLink.all(row.linkId);
        tagsOf.set(row.linkId, tags);
      }
      for (const { owner, tag } of tags) {
        const key = `${owner}|${tag}|${row.day}|${row.dimension}|${row.value}`;
        const sum = sums.get(key);
        if (sum === undefined) {
          sums.set(key, [owner, tag, row.day, row.dimension, row.value, row.clicks]);
        } else sum[5] += row.clicks;
      }
    }
    for (const sum of sums.values()) this.addDay.run(...sum);
  }

  /**
   * Moves a link's rolled-up counts from the tags it had to the tags it has now (none:
   * it is being removed), in the caller's transaction, before link_tags changes.
   */
  moveLink(
    linkId: number,
    owner: number | null,
    before: readonly string[],
    after: readonly string[],
  ): void {
    const key = owner ?? 0;
    for (const tag of before) {
      if (after.includes(tag)) continue;
      this.moveDays.run(key, tag, -1, linkId);
      this.dropEmpty.run(key, tag);
    }
    for (const tag of after) {
      if (!before.includes(tag)) this.moveDays.run(key, tag, 1, linkId);
    }
  }

  finalize(): void {
    for (const statement of this.statements) statement.finalize();
  }
}
