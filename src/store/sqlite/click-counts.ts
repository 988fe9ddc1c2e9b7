// Click counts per link, kept apart from the links table. The click log (`clicks`) is
// the truth; a rollup folds it into per-link counts in a second database file,
// `<db>-counts`, attached as `counts`. Reads add the log's tail beyond the rollup, so
// they see every committed click whenever the rollup last ran. A redirect therefore
// only appends to the log, and no random page of `links` is rewritten per click.
// The counts file is derived data: if it is lost, it is rebuilt from the log.

import type { Database } from 'bun:sqlite';

/** The counts file beside a database file (an in-memory database keeps them in memory). */
export function countsPathOf(path: string): string {
  return path === ':memory:' ? ':memory:' : `${path}-counts`;
}

/** Attaches the counts database as `counts`, creating its tables when new. */
export function attachCounts(db: Database, path: string): void {
  db.run('ATTACH DATABASE ? AS counts', [path]);
  if (path !== ':memory:') {
    db.run('PRAGMA counts.journal_mode = WAL');
    db.run('PRAGMA counts.synchronous = NORMAL');
  }
  db.run(
    'CREATE TABLE IF NOT EXISTS counts.link_clicks (link_id INTEGER PRIMARY KEY, clicks INTEGER NOT NULL)',
  );
  // One row: the id of the last click folded into link_clicks.
  db.run(
    'CREATE TABLE IF NOT EXISTS counts.rollup (id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL)',
  );
}

/** SQL for "clicks of each link": the rolled-up count plus the log beyond it. */
export const CLICKS_OF_LINKS = `
  WITH tail AS (
    SELECT link_id, count(*) AS n FROM clicks
    WHERE id > (SELECT coalesce(max(through), 0) FROM counts.rollup)
    GROUP BY link_id
  )`;
export const CLICKS_COLUMN = 'coalesce(c.clicks, 0) + coalesce(t.n, 0) AS clicks';
export const CLICKS_JOINS =
  'LEFT JOIN counts.link_clicks c ON c.link_id = l.id LEFT JOIN tail t ON t.link_id = l.id';

/**
 * Folds the click log into counts, a bounded slice per run. It writes only the counts
 * database, in a deferred transaction, so it never holds the main database's write lock
 * and may run on its own connection beside the writer.
 */
export class ClickRollup {
  private readonly through;
  private readonly last;
  private readonly tail;
  private readonly add;
  private readonly mark;
  private readonly run: (maxClicks: number) => number;

  constructor(db: Database) {
    this.through = db.prepare<{ t: number }, []>(
      'SELECT coalesce(max(through), 0) AS t FROM counts.rollup',
    );
    this.last = db.prepare<{ m: number }, []>('SELECT coalesce(max(id), 0) AS m FROM clicks');
    this.tail = db.prepare<{ link_id: number; n: number }, [number, number]>(
      'SELECT link_id, count(*) AS n FROM clicks WHERE id > ? AND id <= ? GROUP BY link_id',
    );
    this.add = db.prepare<unknown, [number, number]>(
      'INSERT INTO counts.link_clicks (link_id, clicks) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET clicks = clicks + excluded.clicks',
    );
    this.mark = db.prepare<unknown, [number]>(
      'INSERT INTO counts.rollup (id, through) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET through = excluded.through',
    );
    this.run = db.transaction((maxClicks: number) => {
      const from = this.through.get()?.t ?? 0;
      const to = Math.min(this.last.get()?.m ?? 0, from + maxClicks);
      if (to <= from) return 0;
      for (const { link_id, n } of this.tail.all(from, to)) this.add.run(link_id, n);
      this.mark.run(to);
      return to - from;
    });
  }

  /** Folds up to `maxClicks` clicks beyond the last rollup; returns how many it folded. */
  step(maxClicks = 100_000): number {
    return this.run(maxClicks);
  }

  finalize(): void {
    for (const statement of [this.through, this.last, this.tail, this.add, this.mark]) {
      statement.finalize();
    }
  }
}
