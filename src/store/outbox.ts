// The webhook outbox as both stores keep it: a webhook's events as one text column, and
// how untried `clicks` messages of one webhook are merged when a sender claims them.
// Each store runs these in its own transactions.

import { WEBHOOK_EVENTS, type WebhookEvent } from '../domain/webhooks.ts';
import { madeLink } from './link-quota.ts';
import type { LinkDetail, NewLink } from './store.ts';

/** The `events` column: names separated by commas. */
export function eventsText(events: readonly WebhookEvent[]): string {
  return events.join(',');
}

export function eventsOf(text: string): WebhookEvent[] {
  const names = text.split(',');
  return WEBHOOK_EVENTS.filter((event) => names.includes(event));
}

/**
 * What a query looks for in `',' || events || ','` to find the webhooks that want
 * `event` (no event name is part of another, but the commas make that not matter).
 */
export function wantedNeedle(event: WebhookEvent): string {
  return `,${event},`;
}

/** Untried clicks messages of one webhook merged into one at most, and their clicks. */
export const MERGE_MESSAGES = 100;
export const MERGE_CLICKS = 1000;

/**
 * Merges `later` (untried clicks messages of the same webhook, oldest first) into the
 * data of `first`, while the clicks stay within MERGE_CLICKS: the merged data, and the
 * ids of the messages it took in (which the store deletes), or undefined when none fit.
 */
export function mergeClicks(
  first: string,
  later: readonly { id: number; payload: string }[],
): { payload: string; merged: number[] } | undefined {
  const clicks: unknown[] = JSON.parse(first).clicks;
  const merged: number[] = [];
  for (const message of later) {
    const more: unknown[] = JSON.parse(message.payload).clicks;
    if (clicks.length + more.length > MERGE_CLICKS) break;
    clicks.push(...more);
    merged.push(message.id);
  }
  return merged.length === 0 ? undefined : { payload: JSON.stringify({ clicks }), merged };
}

/** A link just inserted as `link.created` reports it: no clicks yet. */
export function createdDetail(link: NewLink, id: number): LinkDetail {
  return {
    ...madeLink(link, id),
    source: link.source,
    expiresAt: link.expiresAt ?? null,
    maxClicks: link.maxClicks ?? null,
    limitedClicks: 0,
    passwordHash: link.passwordHash ?? null,
    rules: link.rules ?? null,
    variants: link.variants ?? null,
    preview: link.preview ?? null,
    disabledAt: link.disabledAt ?? null,
    disabledReason: link.disabledReason ?? null,
    tags: [...(link.tags ?? [])].sort(),
  };
}
