// New links go through group commit too: a create joins the turn's batch and its 201
// leaves once the batch is committed, so concurrent creates share one commit.

import { GroupCommit, type GroupCommitOptions } from '../clicks/group-commit.ts';
import type { CreatedLink, NewLink, Store } from '../store/store.ts';

export class LinkWriter {
  private readonly group: GroupCommit<NewLink, CreatedLink[]>;

  constructor(store: Store, options: GroupCommitOptions) {
    this.group = new GroupCommit((links) => store.createLinks(links), options);
  }

  /** The committed link, undefined when its short code was taken, or LINK_LIMIT_REACHED. */
  async create(link: NewLink): Promise<CreatedLink> {
    const { done, index } = this.group.add(link);
    return (await done)[index];
  }

  /** Batches of links that failed to commit. */
  get failedBatches(): number {
    return this.group.failedBatches;
  }

  drain(): Promise<void> {
    return this.group.drain();
  }
}
