// Group commit: writes that arrive in one event-loop turn join one batch; one flush per
// turn commits the whole batch in one transaction and only then answers every writer.
// A commit is the expensive part of a durable write (locks and WAL writes), so sharing
// it is what lets kurz acknowledge only what is committed and still be fast.

import { StoreUnavailableError } from '../domain/errors.ts';

export interface GroupCommitOptions {
  /** Items allowed to wait at once; beyond it an item is refused at once with StoreUnavailableError. */
  maxPending: number;
  /** Where a failed commit is reported (its writers get StoreUnavailableError). */
  onError?: (error: unknown) => void;
}

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
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private waiting = 0;
  private readonly flushNow = () => this.flush();

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<R>,
    private readonly options: GroupCommitOptions,
  ) {}

  /**
   * Adds an item to the pending batch and tells its place there: `done` (shared by
   * the whole batch) resolves with the batch's result once it is committed.
   */
  add(item: T): Batched<R> {
    const done = this.push(item);
    return { done, index: (this.pending?.items.length ?? 0) - 1 };
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
    if (!this.scheduled && this.flushing === undefined) {
      this.scheduled = true;
      // setImmediate, not a microtask: the batch should gather every request of this turn.
      setImmediate(this.flushNow);
    }
    return batch.done;
  }

  /** Commits everything pending; resolves when nothing is left waiting. */
  async drain(): Promise<void> {
    while (this.pending !== undefined || this.flushing !== undefined) {
      if (this.flushing !== undefined) await this.flushing;
      else await this.flush();
    }
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
    const flushing = this.commit(batch.items).then(batch.resolve, (error: unknown) => {
      this.options.onError?.(error);
      batch.reject(
        error instanceof StoreUnavailableError
          ? error
          : new StoreUnavailableError({ cause: error }),
      );
    });
    this.flushing = flushing.finally(() => {
      this.waiting -= batch.items.length;
      this.flushing = undefined;
      // Items that arrived while this batch was being written form the next one.
      if (this.pending !== undefined && !this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushNow);
      }
    });
    return this.flushing;
  }
}
