// The click pipeline's cadence, the same above both stores: each second, clicks committed
// to the log (by this process, another instance or `kurz import`) move into click records
// and day rollups, a slice per event-loop turn, within the budget the flood rule gives;
// and with --click-retention-days, records older than that are removed, a slice per
// turn, soon after start and every hour. A store supplies only the steps its database
// does its own way (ClickSteps); the redirect path never waits on any of this.

import type { Logger } from '../logger.ts';
import { scheduleRetention } from './retention.ts';

/** What a store does for the pipeline, each step one short transaction. */
export interface ClickSteps {
  /**
   * Moves up to `limit` committed clicks out of the log into records and day rollups;
   * returns how many it took (fewer than `limit`: the log holds no more it may move now).
   */
  move(limit: number): number | Promise<number>;
  /**
   * Clicks waiting in the log to be moved, whoever wrote them: read from marks or ids,
   * cheaply, since it is asked every cycle.
   */
  backlog(): number | Promise<number>;
  /** Removes up to `limit` click records made before `before` (ms); returns how many. */
  prune(before: number, limit: number): number | Promise<number>;
}

/** How a store's database wants the steps paced. */
export interface Cadence {
  /** Milliseconds between cycles; 0: none on a timer (tests and tools call moveAll). */
  intervalMs: number;
  /** Clicks a step of a cycle moves (one transaction, one event-loop turn). */
  moveSlice: number;
  /** Clicks a step of moveAll moves, which nothing waits behind. */
  drainSlice: number;
  /** Records a retention step removes. */
  pruneSlice: number;
  /**
   * Milliseconds per second a cycle may take (the first step of a cycle runs whenever
   * the budget is above 0): clicks arriving at up to BUSY_CLICKS a second (`idle`), a
   * flood with more than BACKLOG_CLICKS waiting (`backlog`), a flood (`flood`).
   */
  budgets: { idle: number; backlog: number; flood: number };
}

/**
 * The flood rule. Above BUSY_CLICKS a second written by this process, moving yields to
 * the redirects (measured on SQLite: moving at 4% of each second cost the redirect
 * benchmark 7% of its throughput); the log grows meanwhile (about 160 bytes a click)
 * and is moved once the flood eases, unless more than BACKLOG_CLICKS wait.
 */
export const BUSY_CLICKS = 2000;
export const BACKLOG_CLICKS = 1_000_000;

/** The milliseconds per second a cycle may take, by the flood rule. */
export function budgetOf(
  arrivingPerSecond: number,
  backlog: number,
  budgets: Cadence['budgets'],
): number {
  if (arrivingPerSecond <= BUSY_CLICKS) return budgets.idle;
  return backlog > BACKLOG_CLICKS ? budgets.backlog : budgets.flood;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ClickPipeline {
  /** Clicks this process committed since `since` (ms, performance.now()). */
  private written = 0;
  private since = performance.now();
  private cycle: Promise<void> | undefined;
  private pruning: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopRetention = () => {};
  private stopped = false;

  constructor(
    private readonly steps: ClickSteps,
    private readonly cadence: Cadence,
    private readonly log: Logger,
  ) {}

  /**
   * Starts the cycles, and retention when `retentionDays` > 0. Every cycle asks for the
   * backlog, so clicks left by a run before or written by a tool or another instance
   * are moved without waiting for a click of this process.
   */
  start(retentionDays: number): void {
    const { intervalMs } = this.cadence;
    if (intervalMs > 0) {
      this.timer = setInterval(() => this.tick(), intervalMs);
      this.timer.unref();
    }
    this.stopRetention = scheduleRetention(retentionDays, (before) => {
      if (this.pruning !== undefined || this.stopped) return;
      this.pruning = this.pruneOld(before, retentionDays).finally(() => {
        this.pruning = undefined;
      });
    });
  }

  /** Told of each batch this process committed to the log: what the flood rule measures. */
  wrote(clicks: number): void {
    this.written += clicks;
  }

  /**
   * Moves every click the log holds (after a cycle under way, whose clicks it holds),
   * a step after another with nothing in between; returns how many moved.
   */
  async moveAll(): Promise<number> {
    await this.cycle;
    let moved = 0;
    const limit = this.cadence.drainSlice;
    for (;;) {
      const n = await this.steps.move(limit);
      moved += n;
      if (n < limit) return moved;
    }
  }

  /** Removes every click record made before `before`, a step after another; how many. */
  async pruneAll(before: number): Promise<number> {
    let removed = 0;
    const limit = this.cadence.pruneSlice;
    for (;;) {
      const n = await this.steps.prune(before, limit);
      removed += n;
      if (n < limit) return removed;
    }
  }

  /** Stops the timers; resolves once a cycle or a retention run under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.stopRetention();
    await Promise.all([this.cycle, this.pruning]);
  }

  private tick(): void {
    if (this.cycle !== undefined || this.stopped) return;
    // Measured since the last cycle began: a cycle may outlast an interval.
    const now = performance.now();
    const arriving = (this.written * 1000) / Math.max(now - this.since, 1);
    this.written = 0;
    this.since = now;
    this.cycle = this.moveSome(arriving).finally(() => {
      this.cycle = undefined;
    });
  }

  /** One cycle: steps of moveSlice, one per event-loop turn, within the second's budget. */
  private async moveSome(arrivingPerSecond: number): Promise<void> {
    const { intervalMs, moveSlice, budgets } = this.cadence;
    try {
      const backlog = await this.steps.backlog();
      if (backlog <= 0) return;
      const budget = (budgetOf(arrivingPerSecond, backlog, budgets) * intervalMs) / 1000;
      let spent = 0;
      while (budget > 0 && spent < budget && !this.stopped) {
        const started = performance.now();
        const n = await this.steps.move(moveSlice);
        spent += performance.now() - started;
        if (n < moveSlice) return;
        await nextTurn();
      }
    } catch {
      // Busy or unavailable: the clicks stay in the log, moved at a later cycle; reads
      // add the log's tail meanwhile.
    }
  }

  /** Retention's run: a step per event-loop turn, and one line for what it removed. */
  private async pruneOld(before: number, days: number): Promise<void> {
    let removed = 0;
    const limit = this.cadence.pruneSlice;
    try {
      for (;;) {
        const n = await this.steps.prune(before, limit);
        removed += n;
        if (n < limit || this.stopped) break;
        await nextTurn();
      }
    } catch {
      // Tried again at the next run.
    }
    if (removed > 0)
      this.log.info(`kurz: removed ${removed} click records older than ${days} days`);
  }
}
