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

  /**
   * Links committed together, in one batch (with whatever else this turn brings): each
   * one's result, in order, as create() gives it.
   */
  async createMany(links: readonly NewLink[]): Promise<CreatedLink[]> {
    if (links.length === 0) return [];
    const { done, index } = this.group.addAll(links);
    return (await done).slice(index, index + links.length);
  }

  /** Batches of links that failed to commit. */
  get failedBatches(): number {
    return this.group.failedBatches;
  }

  drain(): Promise<void> {
    return this.group.drain();
  }
}
