// What a webhook is told. The stores keep each event's data in the outbox as JSON text,
// fixed when the change commits (link events: the link as GET /api/links/{code} shows
// it; clicks: the batch's clicks of the webhook's owner); the dispatcher wraps it in the
// message it sends, `{"type", "timestamp", "data"}`, adding what follows from it alone
// (the short URL, the browser behind a user agent), so every attempt sends the same body.

import { describeAgent } from '../analytics/user-agents.ts';
import type { WebhookEvent } from '../domain/webhooks.ts';
import { linkDetailToJson } from '../links/link-json.ts';
import type { Click, LinkDetail } from '../store/store.ts';

/** What a delivery reports: an event, or `ping` (POST /api/webhooks/{id}/test). */
export type DeliveryType = WebhookEvent | 'ping';

const linkOfUser = linkDetailToJson('accounts');
const linkOfNoOne = linkDetailToJson('open');

/**
 * The data of a link event: the link as its owner sees it at GET /api/links/{code} (a
 * link of open mode, which belongs to no one, without `user_id`, as open mode shows it).
 */
export function linkEventData(link: LinkDetail): string {
  return JSON.stringify((link.userId === null ? linkOfNoOne : linkOfUser)(link));
}

/** One click in the data of a `clicks` event, as the stores write it. */
export interface ClickJson {
  code: string;
  at: string;
  referrer: string | null;
  country: string | null;
  source: string | null;
  query_source: string | null;
  user_agent: string | null;
}

/** A click of the link `code` as a `clicks` event lists it (the PostgreSQL store builds the same in SQL). */
export function clickJson(code: string, click: Click): ClickJson {
  return {
    code,
    at: new Date(click.createdAt).toISOString(),
    referrer: click.referrer,
    country: click.country,
    source: click.source,
    query_source: click.querySource,
    user_agent: click.userAgent,
  };
}

/** The data of a `clicks` event. */
export function clicksEventData(clicks: readonly ClickJson[]): string {
  return JSON.stringify({ clicks });
}

/** A delivery as the dispatcher sends it. */
export interface Message {
  id: number;
  type: DeliveryType;
  /** The event's moment (ms): the message's `timestamp`. */
  createdAt: number;
  /** The stored data, JSON text. */
  payload: string;
}

/** `webhook-id`: the same on every attempt of one message, so receivers can drop repeats. */
export function messageId(message: Pick<Message, 'id' | 'createdAt'>): string {
  return `msg_${message.id}_${message.createdAt}`;
}

/** The body of every attempt of `message`. */
export function messageBody(message: Message, baseUrl: string): string {
  const data = JSON.parse(message.payload);
  return JSON.stringify({
    type: message.type,
    timestamp: new Date(message.createdAt).toISOString(),
    data: withDerived(message.type, data, baseUrl),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the stored data is JSON of the shapes above
function withDerived(type: DeliveryType, data: any, baseUrl: string): unknown {
  if (type === 'clicks') {
    return {
      clicks: (data.clicks as ClickJson[]).map((click) => {
        const agent = describeAgent(click.user_agent);
        return {
          ...click,
          browser: agent.browser,
          os: agent.os,
          device: agent.device,
          bot: agent.bot,
        };
      }),
    };
  }
  if (type === 'ping') return data;
  // The short URL beside the code, as the link object's fields are ordered.
  const link: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    link[key] = value;
    if (key === 'short_code') link.short_url = `${baseUrl}/${value}`;
  }
  return link;
}
