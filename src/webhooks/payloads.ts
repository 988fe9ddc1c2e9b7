// What a webhook is told. The stores keep each event's record in the outbox, fixed when
// the change commits (domain/webhooks.ts: link events, the link as it then was; clicks,
// the batch's clicks of the webhook's owner); the dispatcher makes the message it sends,
// `{"type", "timestamp", "data"}`, from it and what follows from it alone (the link as
// GET /api/links/{code} shows it, the short URL, the browser behind a user agent), so
// every attempt sends the same body.

import { describeAgent } from '../analytics/user-agents.ts';
import type { ReportEventRecord } from '../domain/reports.ts';
import type { ClickEventRecord, DeliveryType, LinkEventRecord } from '../domain/webhooks.ts';
import {
  type DomainOf,
  isExpired,
  type LinkDetailJson,
  linkDetailToJson,
} from '../links/link-json.ts';
import { reportJson } from '../reports/model.ts';
import type { LinkDetail } from '../store/store.ts';

/**
 * The data of a link event: the link as its owner saw it at GET /api/links/{code} when
 * the change committed, at `at` (a link of open mode, which belongs to no one, without
 * `user_id`, as open mode shows it). An outbox written before it kept records holds
 * that JSON already.
 */
export function linkEventData(
  stored: LinkEventRecord | LinkDetailJson,
  at: number,
  domainOf: DomainOf,
): LinkDetailJson {
  if (!('shortCode' in stored)) return stored;
  // The hash is never kept; the JSON only says whether there is one.
  const link: LinkDetail = {
    ...stored,
    domainId: stored.domainId ?? 0,
    tags: stored.tags ?? [],
    passwordHash: stored.passwordProtected ? '' : null,
    rules: stored.rules ?? null,
    variants: stored.variants ?? null,
    preview: stored.preview ?? null,
    disabledAt: stored.disabledAt ?? null,
    disabledReason: stored.disabledReason ?? null,
  };
  const json = linkDetailToJson(link.userId === null ? 'open' : 'accounts', domainOf)(link);
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
export function messageBody(message: Message, domainOf: DomainOf): string {
  const data = JSON.parse(message.payload);
  return JSON.stringify({
    type: message.type,
    timestamp: new Date(message.createdAt).toISOString(),
    data: withDerived(message.type, data, message.createdAt, domainOf),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the stored data is JSON of the records above
function withDerived(type: DeliveryType, data: any, at: number, domainOf: DomainOf): unknown {
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
  // A report, as GET /api/admin/reports lists it (its link as it was when reported).
  if (type === 'report.created') return reportJson(data as ReportEventRecord, domainOf);
  // The short URL beside the code, as the link object's fields are ordered (a record
  // kept as JSON before records were kept has none: its domain is the default one).
  const link: Record<string, unknown> = {};
  const json = linkEventData(data, at, domainOf);
  for (const [key, value] of Object.entries(json)) {
    if (key === 'short_url') continue;
    link[key] = value;
    if (key === 'short_code') link.short_url = json.short_url ?? `${domainOf(0).baseUrl}/${value}`;
  }
  return link;
}
