// What a webhook is told. The stores keep each event's record in the outbox, fixed when
// the change commits (domain/webhooks.ts: link events, the link as it then was; clicks,
// the batch's clicks of the webhook's owner); the dispatcher makes the message it sends,
// `{"type", "timestamp", "data"}`, from it and what follows from it alone (the link as
// GET /api/links/{code} shows it, the short URL, the browser behind a user agent), so
// every attempt sends the same body.

import { describeAgent } from '../analytics/user-agents.ts';
import type { ClickEventRecord, DeliveryType, LinkEventRecord } from '../domain/webhooks.ts';
import { isExpired, type LinkDetailJson, linkDetailToJson } from '../links/link-json.ts';
import type { LinkDetail } from '../store/store.ts';

const linkOfUser = linkDetailToJson('accounts');
const linkOfNoOne = linkDetailToJson('open');

/**
 * The data of a link event: the link as its owner saw it at GET /api/links/{code} when
 * the change committed, at `at` (a link of open mode, which belongs to no one, without
 * `user_id`, as open mode shows it). An outbox written before it kept records holds
 * that JSON already.
 */
export function linkEventData(
  stored: LinkEventRecord | LinkDetailJson,
  at: number,
): LinkDetailJson {
  if (!('shortCode' in stored)) return stored;
  // The hash is never kept; the JSON only says whether there is one.
  const link: LinkDetail = {
    ...stored,
    domainId: stored.domainId ?? 0,
    tags: stored.tags ?? [],
    passwordHash: stored.passwordProtected ? '' : null,
  };
  const json = (link.userId === null ? linkOfNoOne : linkOfUser)(link);
  return { ...json, status: isExpired(link, at) ? 'expired' : 'active' };
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
    data: withDerived(message.type, data, message.createdAt, baseUrl),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the stored data is JSON of the records above
function withDerived(type: DeliveryType, data: any, at: number, baseUrl: string): unknown {
  if (type === 'clicks') {
    return {
      clicks: (data.clicks as ClickEventRecord[]).map((click) => {
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
  for (const [key, value] of Object.entries(linkEventData(data, at))) {
    link[key] = value;
    if (key === 'short_code') link.short_url = `${baseUrl}/${value}`;
  }
  return link;
}
