// Group commit: writes that arrive in one event-loop turn join one batch; one flush per
// turn commits the whole batch in one transaction and only then answers every writer.
// A commit is the expensive part of a durable write (locks and WAL writes), so sharing
// it is what lets kurz acknowledge only what is committed and still be fast.
// SQLite has one writer, so one batch is committed at a time and the next one gathers
// meanwhile. A server database can take several at once: with `maxInFlight` above 1 a
// new batch starts while earlier ones wait for their commit's flush to disk, which the
// server then shares between them.

import { StoreUnavailableError } from '../domain/errors.ts';

export interface GroupCommitOptions {
  /** Items allowed to wait at once; beyond it an item is refused at once with StoreUnavailableError. */
  maxPending: number;
  /** Where a failed commit is reported (its writers get StoreUnavailableError). */
  onError?: (error: unknown) => void;
  /** Batches that may be committing at once (default 1). */
  maxInFlight?: number;
}

/** Told of each batch committed: its items and how long its commit took, in seconds. */
export type CommitObserver = (items: number, seconds: number) => void;

/** Where an item went: the batch's commit, and the item's place in it. */
export interface Batched<R> {
  done: Promise<R>;
  index: number;
}

interface Batch<T, R> {
  items: T[];
  done: Promise<R>;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T, R> {
  private pending: Batch<T, R> | undefined;
  /** Commits under way. */
  private readonly flushing = new Set<Promise<void>>();
  private scheduled = false;
  private waiting = 0;
  /** Batches whose commit failed (each of their writers got StoreUnavailableError). */
  failedBatches = 0;
  private observer: CommitObserver | undefined;
  private readonly maxInFlight: number;
  private readonly flushNow = () => {
    this.scheduled = false;
    // drain() may have started a commit meanwhile; the last one to end schedules again.
    if (this.flushing.size < this.maxInFlight) void this.flush();
  };

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<R>,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 1);
  }

  /**
   * Adds an item to the pending batch and tells its place there: `done` (shared by
   * the whole batch) resolves with the batch's result once it is committed.
   */
  add(item: T): Batched<R> {
    const done = this.push(item);
    return { done, index: (this.pending?.items.length ?? 0) - 1 };
  }

  /**
   * Adds items to the pending batch together, at consecutive places from `index`, or
   * none of them: when they would take the waiting items past maxPending, `done` is
   * rejected with StoreUnavailableError and nothing is added.
   */
  addAll(items: readonly T[]): Batched<R> {
    if (this.waiting + items.length > this.options.maxPending) {
      const refused = Promise.reject(new StoreUnavailableError());
      refused.catch(() => {});
      return { done: refused, index: 0 };
    }
    const index = this.pending?.items.length ?? 0;
    // Every push of one turn lands in the same pending batch, so they share one promise.
    let done = this.pending?.done;
    for (const item of items) done = this.push(item);
    if (done === undefined) throw new Error('addAll needs at least one item');
    return { done, index };
  }

  /**
   * Adds an item when its place in the batch does not matter (the hot path of clicks):
   * the shared promise of the batch, with no allocation for this item.
   */
  push(item: T): Promise<R> {
    if (this.waiting >= this.options.maxPending) {
      return Promise.reject(new StoreUnavailableError());
    }
    this.waiting++;
    const batch = this.pending ?? this.openBatch();
    batch.items.push(item);
    this.schedule();
    return batch.done;
  }

  /** Items waiting for their commit: gathering, or in a commit under way. */
  get itemsWaiting(): number {
    return this.waiting;
  }

  /** Has every committed batch told to `observer` (the metrics); one at most. */
  observeCommits(observer: CommitObserver): void {
    this.observer = observer;
  }

  /** Commits everything pending; resolves when nothing is left waiting. */
  async drain(): Promise<void> {
    while (this.pending !== undefined || this.flushing.size > 0) {
      if (this.pending !== undefined && this.flushing.size < this.maxInFlight) {
        await this.flush();
      } else {
        await Promise.race(this.flushing);
      }
    }
  }

  /** Flushes the pending batch after this turn, when a commit may start. */
  private schedule(): void {
    if (this.scheduled || this.pending === undefined) return;
    if (this.flushing.size >= this.maxInFlight) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the batch should gather every request of this turn.
    setImmediate(this.flushNow);
  }

  private openBatch(): Batch<T, R> {
    let resolve!: (result: R) => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<R>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be awaiting yet when a flush fails during drain; avoid an unhandled rejection.
    done.catch(() => {});
    const batch = { items: [], done, resolve, reject };
    this.pending = batch;
    return batch;
  }

  private flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    if (batch === undefined) return Promise.resolve();
    this.pending = undefined;
    const observer = this.observer;
    const started = observer === undefined ? 0 : performance.now();
    const committed =
      observer === undefined
        ? batch.resolve
        : (result: R) => {
            observer(batch.items.length, (performance.now() - started) / 1000);
            batch.resolve(result);
          };
    const flushing = this.commit(batch.items).then(committed, (error: unknown) => {
      this.failedBatches++;
      this.options.onError?.(error);
      batch.reject(
        error instanceof StoreUnavailableError
          ? error
          : new StoreUnavailableError({ cause: error }),
      );
    });
    const tracked: Promise<void> = flushing.finally(() => {
      this.waiting -= batch.items.length;
      this.flushing.delete(tracked);
      // Items that arrived while commits were under way form the next batch.
      this.schedule();
    });
    this.flushing.add(tracked);
    return tracked;
  }
}
