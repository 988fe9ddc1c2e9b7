// Click counts per link, kept apart from the links table. The click log (`clicks`) is
// the truth; a rollup folds it into per-link counts in a second database file,
// `<db>-counts`, attached as `counts`. Reads add the log's tail beyond the rollup, so
// they see every committed click whenever the rollup last ran. A redirect therefore
// only appends to the log, and no random page of `links` is rewritten per click.
// The counts file is derived data: if it is lost, it is rebuilt from the log.
//
// The rollup runs on the event loop in slices of at most ~0.1 ms, between click batches:
// on a single core, a thread of its own only competed with the event loop for the same
// CPU in bursts of tens of milliseconds. It tallies committed batches in memory, so the
// log is read back only for clicks it did not see committed (after a restart, or a lost
// counts file), and folds a whole cycle (1 s) into one counts transaction.

import { type Database, SQLiteError } from 'bun:sqlite';

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
  // The list sorted by clicks walks this index (link-search.ts): the rollup moves a link's
  // entry once per cycle it was clicked in, never per click. Built on the first start
  // with it (about a second per million counted links).
  db.run('CREATE INDEX IF NOT EXISTS counts.link_clicks_order ON link_clicks (clicks, link_id)');
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

function isBusy(error: unknown): boolean {
  return error instanceof SQLiteError && (error.code ?? '').startsWith('SQLITE_BUSY');
}

/** A cycle's state: folding the clicks (from, to] into counts. */
interface Cycle {
  from: number;
  to: number;
  /** Part of the range the tally did not see: read back from the log, up to logTo. */
  logFrom: number;
  logTo: number;
  deltas: Map<number, number>;
  /** Deltas still to write, once the log part is read. */
  pending: IterableIterator<[number, number]> | undefined;
  /** Whether the counts transaction is open (on a connection of the rollup's own). */
  open: boolean;
}

export interface RollupOptions {
  /** Wall-clock budget of one slice, in milliseconds. */
  sliceMs?: number;
  /** Clicks read back from the log per query within a slice. */
  logChunk?: number;
  /** Counters written per check of the budget. */
  writeChunk?: number;
}

/**
 * Folds committed clicks into the counts database, a slice at a time.
 *
 * Exactness: the counts database always holds, in one committed state, the counts of
 * exactly the clicks with `id <= rollup.through`; every counts transaction adds the
 * clicks (through, to] and moves `through` to `to`. Clicks are tallied here only after
 * their batch committed, and a batch's ids are the contiguous range ending at its last
 * rowid (one writer; a plain rowid key takes max + 1). Whatever the tally did not see is
 * read back from the log, so a failed or abandoned cycle loses nothing: its range is
 * simply read from the log by the next one.
 *
 * `counts` is the connection that writes counts: a connection of its own lets one
 * transaction stay open across slices (the store's connection commits click batches
 * meanwhile); on the store's own connection (an in-memory database) each cycle's
 * writes are made in one slice.
 */
export class ClickRollup {
  /** Clicks (tallyFrom, tallyTo] committed and counted in `tally`, not yet in a cycle. */
  private tally = new Map<number, number>();
  private tallyFrom: number;
  private tallyTo: number;
  /** `through` of the counts database, as last committed by this rollup. */
  private through: number;
  private cycle: Cycle | undefined;
  private readonly spansSlices: boolean;
  private readonly sliceMs: number;
  private readonly logChunk: number;
  private readonly writeChunk: number;
  private readonly lastId;
  private readonly readThrough;
  private readonly logCounts;
  private readonly add;
  private readonly mark;
  private readonly writeAll: (cycle: Cycle) => boolean;

  constructor(
    log: Database,
    private readonly counts: Database = log,
    options: RollupOptions = {},
  ) {
    this.spansSlices = counts !== log;
    this.sliceMs = options.sliceMs ?? 0.1;
    this.logChunk = options.logChunk ?? 256;
    this.writeChunk = options.writeChunk ?? 16;
    this.lastId = log.prepare<{ m: number }, []>('SELECT coalesce(max(id), 0) AS m FROM clicks');
    this.logCounts = log.prepare<{ link_id: number; n: number }, [number, number]>(
      'SELECT link_id, count(*) AS n FROM clicks WHERE id > ? AND id <= ? GROUP BY link_id',
    );
    this.readThrough = counts.prepare<{ t: number }, []>(
      'SELECT coalesce(max(through), 0) AS t FROM counts.rollup',
    );
    this.add = counts.prepare<unknown, [number, number]>(
      'INSERT INTO counts.link_clicks (link_id, clicks) VALUES (?, ?) ON CONFLICT (link_id) DO UPDATE SET clicks = clicks + excluded.clicks',
    );
    this.mark = counts.prepare<unknown, [number]>(
      'INSERT INTO counts.rollup (id, through) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET through = excluded.through',
    );
    this.writeAll = counts.transaction((cycle: Cycle) => {
      if (!this.claim(cycle)) return false;
      for (const [linkId, n] of cycle.deltas) this.add.run(linkId, n);
      this.mark.run(cycle.to);
      return true;
    });
    this.through = this.readThrough.get()?.t ?? 0;
    // Clicks logged before now are read back from the log; later ones are tallied.
    this.tallyFrom = this.tallyTo = Math.max(this.through, this.lastId.get()?.m ?? 0);
  }

  /** Counts a batch of clicks just committed, whose last click has id `lastId`. */
  committed(batch: readonly { linkId: number }[], lastId: number): void {
    const first = lastId - batch.length;
    if (first !== this.tallyTo) {
      // Not contiguous with what was tallied (not expected with one writer): the tally
      // starts again at this batch, and the next cycle reads what precedes it from the log.
      this.tally.clear();
      this.tallyFrom = first;
    }
    const tally = this.tally;
    for (const { linkId } of batch) tally.set(linkId, (tally.get(linkId) ?? 0) + 1);
    this.tallyTo = lastId;
  }

  /**
   * Takes in clicks another process appended to the log (`kurz import`) past all this
   * rollup has seen: the next cycle reads them back from the log. One read of the log's
   * last id (its primary key).
   */
  catchUp(): void {
    const last = this.lastId.get()?.m ?? 0;
    if (last <= this.tallyTo) return;
    this.tally.clear();
    this.tallyFrom = this.tallyTo = last;
  }

  /** The id of the last click folded into the counts: clicks up to it may leave the log. */
  get counted(): number {
    return this.through;
  }

  /** Whether clicks are waiting to be folded or a cycle is under way. */
  get busy(): boolean {
    return this.cycle !== undefined || this.tallyTo > this.through;
  }

  /**
   * Runs one slice (at most ~sliceMs of work); starts a cycle when none is under way and
   * clicks are waiting. Returns whether the cycle needs more slices.
   */
  step(): boolean {
    const cycle = this.cycle ?? this.begin();
    if (cycle === undefined) return false;
    try {
      const done = this.work(cycle);
      if (done) this.cycle = undefined;
      return !done;
    } catch (error) {
      // Refused the counts write lock before writing anything (the checkpoint thread
      // holds it a moment): the cycle is kept whole for the next try.
      if (!cycle.open && isBusy(error)) throw error;
      this.abandon(cycle);
      throw error;
    }
  }

  /** Folds everything committed so far, in as many slices as it takes (at close). */
  flush(): void {
    while (this.step()) {}
    if (this.tallyTo > this.through) while (this.step()) {}
  }

  /** Ends a cycle under way without writing it (its clicks stay in the log's tail). */
  cancel(): void {
    if (this.cycle !== undefined) this.abandon(this.cycle);
  }

  /** Finalizes its statements, and closes its own counts connection if it has one. */
  close(): void {
    this.cancel();
    for (const statement of [this.lastId, this.logCounts, this.readThrough, this.add, this.mark]) {
      statement.finalize();
    }
    if (this.spansSlices) this.counts.close(true);
  }

  private begin(): Cycle | undefined {
    if (this.tallyTo <= this.through) return undefined;
    const cycle: Cycle = {
      from: this.through,
      to: this.tallyTo,
      logFrom: this.through,
      logTo: this.tallyFrom,
      deltas: this.tally,
      pending: undefined,
      open: false,
    };
    this.tally = new Map();
    this.tallyFrom = this.tallyTo;
    this.cycle = cycle;
    return cycle;
  }

  /** One slice of a cycle; true once it is committed (or found stale and dropped). */
  private work(cycle: Cycle): boolean {
    const until = performance.now() + this.sliceMs;
    // First the part of the range the tally did not see, from the log.
    while (cycle.logFrom < cycle.logTo) {
      const to = Math.min(cycle.logTo, cycle.logFrom + this.logChunk);
      for (const { link_id, n } of this.logCounts.all(cycle.logFrom, to)) {
        cycle.deltas.set(link_id, (cycle.deltas.get(link_id) ?? 0) + n);
      }
      cycle.logFrom = to;
      if (performance.now() >= until) return false;
    }
    if (!this.spansSlices) {
      if (this.writeAll(cycle)) this.through = cycle.to;
      return true;
    }
    if (!cycle.open) {
      this.counts.run('BEGIN IMMEDIATE');
      cycle.open = true;
      if (!this.claim(cycle)) {
        this.counts.run('ROLLBACK');
        return true;
      }
      cycle.pending = cycle.deltas.entries();
    }
    const pending = cycle.pending as IterableIterator<[number, number]>;
    for (;;) {
      for (let i = 0; i < this.writeChunk; i++) {
        const next = pending.next();
        if (next.done) {
          this.mark.run(cycle.to);
          this.counts.run('COMMIT');
          cycle.open = false;
          this.through = cycle.to;
          return true;
        }
        this.add.run(next.value[0], next.value[1]);
      }
      if (performance.now() >= until) return false;
    }
  }

  /**
   * Inside the counts transaction: whether `through` is still where this cycle starts.
   * If something else moved it, the cycle and the tally are dropped and later cycles
   * start from the stored mark, reading the log.
   */
  private claim(cycle: Cycle): boolean {
    const stored = this.readThrough.get()?.t ?? 0;
    if (stored === cycle.from) return true;
    this.through = stored;
    this.tally.clear();
    this.tallyTo = Math.max(this.tallyTo, stored);
    this.tallyFrom = this.tallyTo;
    return false;
  }

  private abandon(cycle: Cycle): void {
    this.cycle = undefined;
    if (cycle.open) {
      cycle.open = false;
      try {
        this.counts.run('ROLLBACK');
      } catch {
        // Nothing open after all: a failed COMMIT rolls back by itself.
      }
    }
    // The cycle's clicks were taken out of the tally: the next cycle reads its whole
    // range back from the log, from `through` (unchanged) to where the tally now starts.
  }
}
