// TypeBox schemas of the webhook endpoints, and the JSON of a webhook and of a delivery:
// what Elysia validates and what the OpenAPI document shows. Field rules are the
// domain's (see http/model.ts).

import { type Static, Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { isoOrNull } from '../domain/moments.ts';
import {
  parseWebhookEvents,
  parseWebhookUrl,
  WEBHOOK_EVENTS,
  WEBHOOK_URL_MAX_LENGTH,
} from '../domain/webhooks.ts';
import { bodyError, ruleFormat } from '../http/model.ts';
import type { DeliveryRecord, Webhook } from '../store/store.ts';
import { messageId } from './payloads.ts';

// The URL rule differs with --webhook-allow-private: one format for each.
const httpsUrl = ruleFormat('kurz-webhook-url', (value) => parseWebhookUrl(value, false), {
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  // The scheme, then an authority with a host and no user-info; no whitespace anywhere.
  pattern: '^https://[^\\s/?#@\\\\]+(?:[/?#]\\S*)?$',
});
const anyUrl = ruleFormat('kurz-webhook-url-private', (value) => parseWebhookUrl(value, true), {
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  pattern: '^https?://[^\\s/?#@\\\\]+(?:[/?#]\\S*)?$',
});

/** The body of POST /api/webhooks; the URL's rule depends on whether private targets are allowed. */
export function webhookBody(allowPrivate: boolean) {
  const error = bodyError((body) => {
    parseWebhookUrl(body.url, allowPrivate);
    parseWebhookEvents(body.events);
  });
  const Event = t.UnionEnum(WEBHOOK_EVENTS, { error, default: undefined });
  return t.Object(
    {
      url: t.String({
        format: allowPrivate ? anyUrl : httpsUrl,
        error,
        description: allowPrivate
          ? `Where events are POSTed: http:// or https:// (this server allows private addresses), a host, no user name or password, at most ${WEBHOOK_URL_MAX_LENGTH} characters.`
          : `Where events are POSTed: https://, a host whose every address is public, no user name or password, at most ${WEBHOOK_URL_MAX_LENGTH} characters.`,
        examples: ['https://hooks.example.com/kurz'],
      }),
      events: t.Optional(
        t.Union([t.Array(Event, { minItems: 1, error }), t.Null({ error })], {
          error,
          description:
            'What to be told of; absent or null: the link events (link.created, link.updated, link.deleted, clicks). `report.created` (a report of an abusive link) only for an admin, or the admin token in open mode.',
          examples: [['link.created', 'clicks']],
        }),
      ),
    },
    {
      error,
      title: 'WebhookRequest',
      description: 'A JSON object (any Content-Type is read as JSON); at most 64 KiB.',
    },
  );
}

/** Elysia gives an enum its first value as `default`, which the document would show as one. */
const NO_DEFAULT = { default: undefined };

const webhookFields = {
  id: Type.Integer(),
  url: t.String({ description: 'Where events are POSTed, as given.' }),
  events: t.Array(t.UnionEnum(WEBHOOK_EVENTS, NO_DEFAULT), { description: 'What it is told of.' }),
  created_at: t.String({ format: 'date-time' }),
};

export const WebhookSchema = t.Object(webhookFields, {
  title: 'Webhook',
  description: 'A webhook (its secret is shown only when it is made).',
});

export const CreatedWebhookSchema = t.Object(
  {
    ...webhookFields,
    secret: t.String({
      description:
        'The signing secret (`whsec_` and base64), shown this once: every delivery is signed with it by the Standard Webhooks scheme.',
    }),
  },
  { title: 'CreatedWebhook', description: 'A new webhook with its signing secret.' },
);

export const DeliverySchema = t.Object(
  {
    id: Type.Integer(),
    message_id: t.String({
      description: 'The `webhook-id` header of its calls, the same on every attempt.',
    }),
    type: t.UnionEnum([...WEBHOOK_EVENTS, 'ping'], NO_DEFAULT),
    created_at: t.String({ format: 'date-time', description: 'When the event happened.' }),
    attempts: Type.Integer({ minimum: 0 }),
    status: t.UnionEnum(['pending', 'delivered', 'failed'], {
      ...NO_DEFAULT,
      description: '`failed`: given up, a day after the event.',
    }),
    last_status: t.Union([Type.Integer(), t.Null()], {
      description: 'The HTTP status of the last attempt; null: no answer.',
    }),
    last_error: t.Union([t.String(), t.Null()], { description: 'What went wrong last.' }),
    next_attempt_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    delivered_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { title: 'WebhookDelivery', description: 'One message to a webhook and its attempts.' },
);

export const WebhookParams = t.Object({ id: t.String({ description: 'A webhook id.' }) });

export function webhookJson(hook: Webhook): Static<typeof WebhookSchema> {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    created_at: new Date(hook.createdAt).toISOString(),
  };
}

export function deliveryJson(delivery: DeliveryRecord): Static<typeof DeliverySchema> {
  return {
    id: delivery.id,
    message_id: messageId(delivery),
    type: delivery.type,
    created_at: new Date(delivery.createdAt).toISOString(),
    attempts: delivery.attempts,
    status:
      delivery.deliveredAt !== null
        ? 'delivered'
        : delivery.nextAttemptAt !== null
          ? 'pending'
          : 'failed',
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    next_attempt_at: isoOrNull(delivery.nextAttemptAt),
    delivered_at: isoOrNull(delivery.deliveredAt),
  };
}
