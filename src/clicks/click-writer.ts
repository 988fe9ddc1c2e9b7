// Clicks go through group commit: a redirect's click joins the turn's batch, and the
// 307 leaves only once that batch of click records is committed (counts are rolled
// up from them later, see store/sqlite/click-counts.ts). The client address rides
// with a click in memory only: the batch turns it into a country before the store
// sees it, so the redirect itself does no lookup and no address is ever stored.

import type { Click, RefusedClicks, Store } from '../store/store.ts';
import { type CommitObserver, GroupCommit, type GroupCommitOptions } from './group-commit.ts';

/** ISO 3166-1 alpha-2 code of a client address, or null when unknown. */
export type CountryOf = (address: string) => string | null;

export class ClickWriter {
  private readonly group: GroupCommit<Click, RefusedClicks>;

  constructor(store: Store, options: GroupCommitOptions, countryOf?: CountryOf) {
    this.group = new GroupCommit((clicks) => {
      for (let i = 0; i < clicks.length; i++) {
        const click = clicks[i] as Click;
        if (click.address === null) continue;
        click.country = countryOf?.(click.address) ?? null;
        click.address = null;
      }
      return store.recordClicks(clicks);
    }, options);
  }

  /** Resolves once the click is committed; rejects with StoreUnavailableError otherwise. */
  record(click: Click): Promise<unknown> {
    return this.group.push(click);
  }

  /**
   * A click of a link with max_clicks: resolves true once committed, false when the
   * limit was reached and nothing was stored; rejects with StoreUnavailableError.
   */
  async recordLimited(click: Click): Promise<boolean> {
    const { done, index } = this.group.add(click);
    return !(await done)?.has(index);
  }

  /** Clicks waiting for their commit. */
  get pending(): number {
    return this.group.itemsWaiting;
  }

  /** Batches of clicks that failed to commit. */
  get failedBatches(): number {
    return this.group.failedBatches;
  }

  /** Tells `observer` the size and commit time of every batch committed (the metrics). */
  observeCommits(observer: CommitObserver): void {
    this.group.observeCommits(observer);
  }

  drain(): Promise<void> {
    return this.group.drain();
  }
}
