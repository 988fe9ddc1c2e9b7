// How the clicks of one batch share the room their links' max_clicks leave: worked out
// once for both stores, each of which reads the room (and writes what was taken) in the
// batch's own transaction.

import type { Click, RefusedClicks } from './store.ts';

export interface LimitShare {
  /** The clicks to store, in batch order: every unlimited one, and limited ones with room. */
  stored: Click[];
  refused: RefusedClicks;
  /** Per limited link, the clicks counted against its max_clicks (to add to limited_clicks). */
  counted: Map<number, number>;
}

/**
 * `roomOf(linkId)` says how many more clicks a link may take: max_clicks minus
 * limited_clicks, Infinity when it has no limit (any more), 0 when it is gone. It is
 * asked once per link, for its first limited click in the batch.
 */
export function shareLimits(
  batch: readonly Click[],
  roomOf: (linkId: number) => number,
): LimitShare {
  const room = new Map<number, number>();
  const counted = new Map<number, number>();
  const stored: Click[] = [];
  const refused = new Set<number>();
  batch.forEach((click, i) => {
    if (!click.limited) {
      stored.push(click);
      return;
    }
    const left = room.get(click.linkId) ?? roomOf(click.linkId);
    if (left <= 0) {
      refused.add(i);
      room.set(click.linkId, 0);
      return;
    }
    room.set(click.linkId, left - 1);
    if (left !== Infinity) counted.set(click.linkId, (counted.get(click.linkId) ?? 0) + 1);
    stored.push(click);
  });
  return { stored, refused: refused.size > 0 ? refused : undefined, counted };
}
