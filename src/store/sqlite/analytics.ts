// The analytics side of the SQLite store. The click log (`clicks`) is a queue: a rollup
// on the event loop moves its rows, once they are counted (see click-counts.ts), into
// compact click records and daily rollups (and the sums of their tags, tags.ts), in one
// transaction per slice, taking their counts out of pending_values. What has not moved
// yet is read from pending_values (stats) or the log (exports), so both see every
// committed click.

import type { Database, Statement } from 'bun:sqlite';
import { DayTally } from '../../analytics/fold.ts';
import { describeAgent } from '../../analytics/user-agents.ts';
import { type ClickRow, type DayCount, PendingTally } from '../../domain/clicks.ts';
import { InternedIds } from '../interned-ids.ts';
import type { LinkTraffic } from '../store.ts';
import { SqlitePendingValues } from './pending-values.ts';
import type { SqliteTags, StoredDayCount } from './tags.ts';

const RAW_COLUMNS = `id, link_id AS linkId, created_at AS createdAt, source,
  query_source AS querySource, referrer, user_agent AS userAgent, country, route`;

/**
 * Seeds the counts file from the rollups when it is behind the analytics rollup (lost, or
 * rolled back by a power cut): the log no longer holds the clicks that were moved. Also
 * when it is ahead of every click the database knows: it is then the counts file of a
 * later state (a database restored from a backup beside it, or one whose last commits a
 * power cut took while the counts file kept them), and its counts are not this database's.
 */
export function reconcileCounts(sqlite: Database): void {
  const moved =
    sqlite.query<{ t: number }, []>('SELECT coalesce(max(through), 0) AS t FROM click_rollup').get()
      ?.t ?? 0;
  const counted =
    sqlite
      .query<{ t: number }, []>('SELECT coalesce(max(through), 0) AS t FROM counts.rollup')
      .get()?.t ?? 0;
  const newest =
    sqlite
      .query<{ id: number }, [number]>(
        `SELECT max((SELECT coalesce(max(id), 0) FROM main.clicks),
                    (SELECT coalesce(max(id), 0) FROM main.click_records), ?) AS id`,
      )
      .get(moved)?.id ?? 0;
  if (counted >= moved && counted <= newest) return;
  sqlite.transaction(() => {
    sqlite.run('DELETE FROM counts.link_clicks');
    sqlite.run(
      `INSERT INTO counts.link_clicks (link_id, clicks)
       SELECT link_id, sum(clicks) FROM main.click_days WHERE dimension IN (0, 1) GROUP BY link_id`,
    );
    sqlite.run(
      'INSERT INTO counts.rollup (id, through) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET through = excluded.through',
      [moved],
    );
  })();
}

export class SqliteAnalytics {
  private readonly statements: Statement[] = [];
  private readonly strings = new InternedIds();
  private readonly agents = new InternedIds();
  private readonly readRaw;
  private readonly linkExists;
  private readonly insertString;
  private readonly stringId;
  private readonly insertAgent;
  private readonly agentId;
  private readonly insertRecord;
  private readonly addDay;
  private readonly removeRaw;
  private readonly mark;
  private readonly readMark;
  private readonly dayRows;
  private readonly pendingValues;
  private readonly recordRows;
  private readonly rawRows;
  private readonly prune;
  /** The id of the last click moved out of the log. */
  through: number;
  /** One slice: moves up to `limit` clicks with ids up to `upTo`; returns how many ids it passed. */
  readonly step: (limit: number, upTo: number) => number;
  readonly traffic: (linkId: number, fromDay: number, toDay: number) => LinkTraffic;
  readonly rows: (linkId: number, afterId: number, limit: number) => ClickRow[];

  /** `tags` is told of what each slice adds to click_days, in the slice's transaction. */
  constructor(sqlite: Database, tags: SqliteTags) {
    const prepare = <R, P extends unknown[]>(text: string) => {
      const statement = sqlite.prepare<R, P & import('bun:sqlite').SQLQueryBindings[]>(text);
      this.statements.push(statement as unknown as Statement);
      return statement;
    };
    this.readRaw = prepare<ClickRow, [number, number, number]>(
      `SELECT ${RAW_COLUMNS} FROM clicks WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`,
    );
    this.linkExists = prepare<{ id: number }, [number]>('SELECT id FROM links WHERE id = ?');
    this.insertString = prepare<unknown, [string]>(
      'INSERT INTO click_strings (value) VALUES (?) ON CONFLICT (value) DO NOTHING',
    );
    this.stringId = prepare<{ id: number }, [string]>(
      'SELECT id FROM click_strings WHERE value = ?',
    );
    this.insertAgent = prepare<unknown, [string, string, string, string, number]>(
      `INSERT INTO click_agents (value, browser, os, device, bot) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (value) DO NOTHING`,
    );
    this.agentId = prepare<{ id: number }, [string]>('SELECT id FROM click_agents WHERE value = ?');
    this.insertRecord = prepare<
      unknown,
      [
        number,
        number,
        number,
        number | null,
        number | null,
        number | null,
        number | null,
        string | null,
        string | null,
      ]
    >(
      `INSERT INTO click_records (id, link_id, created_at, source, query_source, referrer, agent, country, route)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.addDay = prepare<unknown, [number, number, number, number, number]>(
      `INSERT INTO click_days (link_id, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (link_id, day, dimension, value) DO UPDATE SET clicks = clicks + excluded.clicks`,
    );
    this.removeRaw = prepare<unknown, [number, number]>(
      'DELETE FROM clicks WHERE id > ? AND id <= ?',
    );
    this.mark = prepare<unknown, [number]>(
      'INSERT INTO click_rollup (id, through) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET through = excluded.through',
    );
    this.readMark = prepare<{ t: number }, []>(
      'SELECT coalesce(max(through), 0) AS t FROM click_rollup',
    );
    this.dayRows = prepare<DayCount, [number, number, number]>(
      `SELECT d.link_id AS linkId, d.day, d.dimension, coalesce(s.value, '') AS value, d.clicks
       FROM click_days d LEFT JOIN click_strings s ON s.id = d.value
       WHERE d.link_id = ? AND d.day BETWEEN ? AND ?`,
    );
    this.pendingValues = new SqlitePendingValues(sqlite);
    this.recordRows = prepare<ClickRow, [number, number, number]>(
      `SELECT r.id, r.link_id AS linkId, r.created_at AS createdAt, s.value AS source,
              q.value AS querySource, f.value AS referrer, a.value AS userAgent, r.country,
              r.route
       FROM click_records r
       LEFT JOIN click_strings s ON s.id = r.source
       LEFT JOIN click_strings q ON q.id = r.query_source
       LEFT JOIN click_strings f ON f.id = r.referrer
       LEFT JOIN click_agents a ON a.id = r.agent
       WHERE r.link_id = ? AND r.id > ? ORDER BY r.id LIMIT ?`,
    );
    this.rawRows = prepare<ClickRow, [number, number, number]>(
      `SELECT ${RAW_COLUMNS} FROM clicks WHERE link_id = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    this.prune = prepare<unknown, [number, number]>(
      `DELETE FROM click_records WHERE id IN (
         SELECT id FROM click_records WHERE created_at < ? ORDER BY id LIMIT ?)`,
    );
    this.through = this.readMark.get()?.t ?? 0;

    this.step = sqlite.transaction((limit: number, upTo: number): number => {
      const from = this.readMark.get()?.t ?? 0;
      const rows = this.readRaw.all(from, upTo, limit);
      const to = rows.length < limit ? upTo : (rows.at(-1) as ClickRow).id;
      const fresh = { strings: new Map<string, number>(), agents: new Map<string, number>() };
      const exists = new Map<number, boolean>();
      const tally = new DayTally();
      // Every click leaving the log leaves its counts, a deleted link's too.
      const leaving = new PendingTally();
      for (const row of rows) leaving.add(row);
      this.pendingValues.take(leaving.rows());
      for (const row of rows) {
        let known = exists.get(row.linkId);
        if (known === undefined) {
          // Clicks committed just after their link was deleted are dropped here.
          known = this.linkExists.get(row.linkId) !== null;
          exists.set(row.linkId, known);
        }
        if (!known) continue;
        tally.add(row);
        this.insertRecord.run(
          row.id,
          row.linkId,
          row.createdAt,
          this.intern(row.source, fresh.strings),
          this.intern(row.querySource, fresh.strings),
          this.intern(row.referrer, fresh.strings),
          this.internAgent(row.userAgent, fresh.agents),
          row.country,
          row.route ?? null,
        );
      }
      const added: StoredDayCount[] = [];
      for (const day of tally.rows()) {
        const value = day.value === '' ? 0 : (this.intern(day.value, fresh.strings) as number);
        this.addDay.run(day.linkId, day.day, day.dimension, value, day.clicks);
        added.push({ ...day, value });
      }
      tags.addDays(added);
      this.removeRaw.run(from, to);
      this.mark.run(to);
      // Remembered only once committed (see committed()): a rolled-back insert leaves no row.
      this.pending = fresh;
      this.through = to;
      return rows.length;
    });

    this.traffic = sqlite.transaction((linkId: number, fromDay: number, toDay: number) => {
      const days = this.dayRows.all(linkId, fromDay, toDay);
      // The log's clicks as pending_values counts them: each distinct value is classified once.
      const pending = new DayTally();
      this.pendingValues.forEach(linkId, fromDay, toDay, (row) => pending.addValue(linkId, row));
      return { days, pending: pending.rows() };
    });

    this.rows = sqlite.transaction((linkId: number, afterId: number, limit: number) => {
      const records = this.recordRows.all(linkId, afterId, limit);
      if (records.length === limit) return records;
      const after = Math.max(afterId, this.readMark.get()?.t ?? 0);
      return records.concat(this.rawRows.all(linkId, after, limit - records.length));
    });
  }

  /** Ids interned by the last committed step, to remember. */
  private pending: { strings: Map<string, number>; agents: Map<string, number> } | undefined;

  /** Remembers the ids the last step committed (called after it returns). */
  committed(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending === undefined) return;
    this.strings.remember(pending.strings);
    this.agents.remember(pending.agents);
  }

  /** Forgets what the last step interned (it was rolled back). */
  rolledBack(): void {
    this.pending = undefined;
  }

  /** Removes up to `limit` click records made before `before`; returns how many. */
  pruneRecords(before: number, limit: number): number {
    return this.prune.run(before, limit).changes;
  }

  finalize(): void {
    for (const statement of this.statements) statement.finalize();
    this.pendingValues.finalize();
  }

  private intern(value: string | null, fresh: Map<string, number>): number | null {
    if (value === null) return null;
    const known = this.strings.get(value) ?? fresh.get(value);
    if (known !== undefined) return known;
    this.insertString.run(value);
    const id = (this.stringId.get(value) as { id: number }).id;
    fresh.set(value, id);
    return id;
  }

  private internAgent(value: string | null, fresh: Map<string, number>): number | null {
    if (value === null) return null;
    const known = this.agents.get(value) ?? fresh.get(value);
    if (known !== undefined) return known;
    const agent = describeAgent(value);
    this.insertAgent.run(value, agent.browser, agent.os, agent.device, agent.bot ? 1 : 0);
    const id = (this.agentId.get(value) as { id: number }).id;
    fresh.set(value, id);
    return id;
  }
}
