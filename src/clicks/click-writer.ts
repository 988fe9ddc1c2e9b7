// Clicks go through group commit: a redirect's click joins the turn's batch, and the
// 307 leaves only once that batch of click records is committed (counts are rolled
// up from them later, see store/sqlite/click-counts.ts).

import { GroupCommit, type GroupCommitOptions } from '../store/group-commit.ts';
import type { Click, Store } from '../store/store.ts';

export class ClickWriter {
  private readonly group: GroupCommit<Click, void>;

  constructor(store: Store, options: GroupCommitOptions) {
    this.group = new GroupCommit((clicks) => store.recordClicks(clicks), options);
  }

  /** Resolves once the click is committed; rejects with StoreUnavailableError otherwise. */
  record(click: Click): Promise<void> {
    return this.group.push(click);
  }

  drain(): Promise<void> {
    return this.group.drain();
  }
}
