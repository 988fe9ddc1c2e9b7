// /api/webhooks: registering, listing and removing webhooks, their recent deliveries,
// and a test ping. In accounts mode each user has their own (another's is 404, as if it
// did not exist); in open mode they are the operator's, and every route needs the admin
// token, as changing links does.

import { Elysia, t } from 'elysia';
import { adminOnly } from '../auth/admin.ts';
import { ownerPlugin } from '../auth/owner.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { ApiError, forbidden, Messages, notFound } from '../domain/errors.ts';
import {
  ADMIN_WEBHOOK_EVENTS,
  MAX_WEBHOOKS,
  parseWebhookEvents,
  parseWebhookUrl,
} from '../domain/webhooks.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { BROWSER_REFUSALS, errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import { type Store, WEBHOOK_LIMIT_REACHED, type Webhook } from '../store/store.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import {
  CreatedWebhookSchema,
  DeliverySchema,
  deliveryJson,
  WebhookParams,
  WebhookSchema,
  webhookBody,
  webhookJson,
} from './model.ts';
import { newWebhookSecret } from './signature.ts';
import { checkTarget } from './targets.ts';

const CROSS_SITE = ` ${BROWSER_REFUSALS}`;

/** Ids are 32-bit integers (PostgreSQL's integer): a larger one names no webhook. */
const MAX_ID = 2_147_483_647;

/** Deliveries GET /api/webhooks/{id}/deliveries shows, newest first. */
export const RECENT_DELIVERIES = 100;

export interface WebhookRoutesOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  /** Open mode's admin token; undefined: webhooks are refused in open mode. */
  adminToken: string | undefined;
  /** Its target policy is the registrations' too; woken when a ping is put in the outbox. */
  dispatcher: WebhookDispatcher;
}

export function webhookRoutes(options: WebhookRoutesOptions) {
  const { mode, store, secret, dispatcher } = options;
  const { policy } = dispatcher;
  const admin = mode === 'open' ? [adminOnly(options.adminToken)] : [];
  const authErrors = mode === 'accounts' ? ([401] as const) : ([401, 403] as const);
  const docs = {
    tags: ['webhooks'],
    security: mode === 'accounts' ? [{ bearer: [] }] : [{ adminToken: [] }],
  };
  const who =
    mode === 'accounts'
      ? 'Each user has their own: another user’s webhook is 404.'
      : 'Needs the admin token (`--admin-token`) as `Authorization: Bearer …`: without one configured, 403 `Link management needs an admin token in open mode`; a missing or wrong token is 401.';

  /** Accounts mode: an API key never manages webhooks (open mode's 403s are in authErrors). */
  const keyRefused = (changes: boolean): Record<number, ReturnType<typeof errorResponse>> =>
    mode === 'accounts'
      ? {
          403: errorResponse(403, {
            description: `\`Forbidden\`: an API key cannot manage webhooks; log in for a token.${changes ? CROSS_SITE : ''}`,
          }),
        }
      : {};

  /** The caller's webhook of the id in the path, or 404. */
  async function ownWebhook(id: string, owner: number | null): Promise<Webhook> {
    const webhook =
      /^[1-9]\d{0,9}$/.test(id) && Number(id) <= MAX_ID
        ? await store.findWebhook(Number(id), owner)
        : undefined;
    if (webhook === undefined) throw notFound();
    return webhook;
  }

  const WebhookList = t.Array(WebhookSchema, { description: 'The webhooks, oldest first.' });
  const DeliveryList = t.Array(DeliverySchema, {
    description: `The latest ${RECENT_DELIVERIES} messages, newest first.`,
  });

  return new Elysia({ name: 'kurz/webhooks', seed: mode })
    .use(ownerPlugin({ mode, secret, store, apiKeys: 'refused' }))
    .post(
      '/api/webhooks',
      async ({ body, owner }) => {
        const url = parseWebhookUrl(body.url, policy.allowPrivate);
        const events = parseWebhookEvents(body.events);
        // Reports are for admins: in accounts mode only an admin's webhook hears of them
        // (open mode's are the operator's, behind the admin token).
        if (
          owner !== null &&
          events.some((event) => ADMIN_WEBHOOK_EVENTS.includes(event)) &&
          (await store.standing(owner))?.admin !== true
        ) {
          throw forbidden();
        }
        await checkTarget(url, policy);
        const made = await store.createWebhook(
          {
            userId: owner,
            url: body.url,
            secret: newWebhookSecret(),
            events,
            createdAt: Date.now(),
          },
          MAX_WEBHOOKS,
        );
        if (made === WEBHOOK_LIMIT_REACHED) throw new ApiError(403, Messages.webhookLimit);
        return jsonResponse(201, CreatedWebhookSchema, {
          ...webhookJson(made),
          secret: made.secret,
        });
      },
      {
        parse: parseJsonBody,
        transform: [...admin, requireJsonObject],
        body: webhookBody(policy.allowPrivate),
        response: {
          201: CreatedWebhookSchema,
          ...errorResponses(400, ...authErrors, 408, 413, 500, 503),
          403: errorResponse(403, {
            description: `\`Webhook limit reached\`: ${MAX_WEBHOOKS} webhooks already.${mode === 'open' ? ' Or no admin token is configured.' : ' `Forbidden`: an API key cannot manage webhooks; log in for a token. Or `report.created` asked for by a user who is no admin.'}${CROSS_SITE}`,
          }),
        },
        detail: {
          ...docs,
          operationId: 'createWebhook',
          summary: 'Register a webhook',
          description: `${who} Checks, in order: a JSON object, \`url\` (${policy.allowPrivate ? 'http:// or https://' : 'https://, and its host must not be or resolve to a loopback, private, link-local or other non-public address'}; no user name or password), \`events\`, then the limit of ${MAX_WEBHOOKS}. The answer holds the signing secret, shown only here.`,
        },
      },
    )
    .get(
      '/api/webhooks',
      async ({ owner }) =>
        jsonResponse(200, WebhookList, (await store.listWebhooks(owner)).map(webhookJson)),
      {
        transform: admin,
        response: {
          200: WebhookList,
          ...errorResponses(...authErrors, 500, 503),
          ...keyRefused(false),
        },
        detail: {
          ...docs,
          operationId: 'listWebhooks',
          summary: mode === 'accounts' ? 'List your webhooks' : 'List the webhooks',
          description: `${who} Without their secrets.`,
        },
      },
    )
    .delete(
      '/api/webhooks/:id',
      async ({ params, owner }) => {
        const webhook = await ownWebhook(params.id, owner);
        if (!(await store.deleteWebhook(webhook.id, owner))) throw notFound();
        return new Response(null, { status: 204 });
      },
      {
        transform: admin,
        params: WebhookParams,
        response: {
          204: t.Void({ description: 'Removed, with the messages not sent yet.' }),
          ...errorResponses(...authErrors, 404, 500, 503),
          ...keyRefused(true),
        },
        detail: {
          ...docs,
          operationId: 'deleteWebhook',
          summary: 'Remove a webhook',
          description: `${who} Its messages go with it; an attempt already under way may still arrive.`,
        },
      },
    )
    .get(
      '/api/webhooks/:id/deliveries',
      async ({ params, owner }) => {
        const webhook = await ownWebhook(params.id, owner);
        const deliveries = await store.listDeliveries(webhook.id, RECENT_DELIVERIES);
        return jsonResponse(200, DeliveryList, deliveries.map(deliveryJson));
      },
      {
        transform: admin,
        params: WebhookParams,
        response: {
          200: DeliveryList,
          ...errorResponses(...authErrors, 404, 500, 503),
          ...keyRefused(false),
        },
        detail: {
          ...docs,
          operationId: 'listWebhookDeliveries',
          summary: 'Recent deliveries of a webhook',
          description: `${who} Pending, delivered and failed (given up) messages, with their attempts; delivered and failed ones are kept 7 days.`,
        },
      },
    )
    .post(
      '/api/webhooks/:id/test',
      async ({ params, owner }) => {
        const webhook = await ownWebhook(params.id, owner);
        const delivery = await store.addDelivery(
          webhook.id,
          'ping',
          JSON.stringify({ webhook_id: webhook.id }),
          Date.now(),
        );
        dispatcher.wake();
        return jsonResponse(202, DeliverySchema, deliveryJson(delivery));
      },
      {
        transform: admin,
        params: WebhookParams,
        response: {
          202: DeliverySchema,
          ...errorResponses(...authErrors, 404, 500, 503),
          ...keyRefused(true),
        },
        detail: {
          ...docs,
          operationId: 'testWebhook',
          summary: 'Send a test ping',
          description: `${who} Puts a \`ping\` message (\`{"webhook_id": N}\`) in the webhook's outbox, sent at once and retried like any other; follow it in the deliveries.`,
        },
      },
    );
}
