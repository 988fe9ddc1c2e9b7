// The tags area of the store's contract (store.ts composes it): what the tag list and a
// tag's stats read. Engines: sqlite/tags.ts and postgres/tags.ts.

import type { DayCount } from '../domain/clicks.ts';

/** A tag and the links of an owner that carry it, with their clicks of all time. */
export interface TagSummary {
  tag: string;
  links: number;
  clicks: number;
}

/** A tag's traffic over a range of days, summed over the links that carry it. */
export interface TagTraffic {
  /** The links carrying the tag, and their clicks of all time (not only the range's). */
  links: number;
  clicks: number;
  /** Rolled-up counts of the range's days, as LinkTraffic's (`linkId` 0). */
  days: DayCount[];
  /** Counts of the links' clicks not rolled up yet, as LinkTraffic's (`linkId` 0). */
  pending: DayCount[];
}

/**
 * Tags, as the tag list and a tag's stats read them. `owner` as in LinkQuery: a user's
 * links only, or null for every link (open mode). Tags are given lower-cased.
 */
export interface TagStore {
  /** Every tag the owner's links carry, in code-unit order, with their links and clicks. */
  listTags(owner: number | null): Promise<TagSummary[]>;
  /**
   * A tag's day counts in [fromDay, toDay] over the owner's links that carry it, rolled
   * up and not, read from one snapshot; undefined when none of them carries it.
   */
  tagTraffic(
    tag: string,
    owner: number | null,
    fromDay: number,
    toDay: number,
  ): Promise<TagTraffic | undefined>;
}
