// Group commit for clicks. A redirect joins the pending batch and waits; one flush per
// event-loop turn writes the whole batch in one transaction and then releases every
// waiting response, so a 307 only leaves once its click is durable.

import { StoreUnavailableError } from '../domain/errors.ts';
import type { Click, Store } from '../store/store.ts';

export interface ClickWriterOptions {
  /** Clicks allowed to wait at once; beyond it redirects get 503 instead of queueing. */
  maxPending: number;
  /** Where a failed flush is reported (the waiting requests get 503). */
  onError?: (error: unknown) => void;
}

interface Batch {
  clicks: Click[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class ClickWriter {
  private pending: Batch | undefined;
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private waiting = 0;
  private readonly flushNow = () => this.flush();

  constructor(
    private readonly store: Store,
    private readonly options: ClickWriterOptions,
  ) {}

  /** Resolves once the click is committed; rejects with StoreUnavailableError otherwise. */
  record(click: Click): Promise<void> {
    if (this.waiting >= this.options.maxPending) {
      return Promise.reject(new StoreUnavailableError());
    }
    this.waiting++;
    const batch = this.pending ?? this.openBatch();
    batch.clicks.push(click);
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

  private openBatch(): Batch {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Nobody may be awaiting yet when a flush fails during drain; avoid an unhandled rejection.
    done.catch(() => {});
    const batch = { clicks: [], done, resolve, reject };
    this.pending = batch;
    return batch;
  }

  private flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    if (batch === undefined) return Promise.resolve();
    this.pending = undefined;
    const flushing = this.store.recordClicks(batch.clicks).then(
      () => batch.resolve(),
      (error: unknown) => {
        this.options.onError?.(error);
        batch.reject(
          error instanceof StoreUnavailableError
            ? error
            : new StoreUnavailableError({ cause: error }),
        );
      },
    );
    this.flushing = flushing.finally(() => {
      this.waiting -= batch.clicks.length;
      this.flushing = undefined;
      // Clicks that arrived while this batch was being written form the next one.
      if (this.pending !== undefined && !this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushNow);
      }
    });
    return this.flushing;
  }
}
