// POST /api/links/bulk: up to 1,000 links in one call, each item the body of POST
// /api/shorten, checked by the same rules in the same order and answered in its own
// result, in order. The call as a whole answers as a create does (413, 401, 429, 400 for
// a body that is not an object or `links` that is not a list of 1 to 1,000); its valid
// items are committed together (bulk-create.ts), each announced as a create is.

import { Elysia } from 'elysia';
import { ownerPlugin } from '../auth/owner.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { ApiError, badRequest, type Message, Messages, tooManyRequests } from '../domain/errors.ts';
import { previewText } from '../domain/link-preview.ts';
import { routingText } from '../domain/link-routing.ts';
import type { OwnHosts } from '../domain/own-hosts.ts';
import type { Blocklist } from '../domain/targets.ts';
import { parseJsonBodyUpTo, requireJsonObject } from '../http/body.ts';
import {
  documentedBody,
  errorResponse,
  errorResponses,
  SOMETIMES,
  withHeaderSchemas,
} from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import {
  type AbuseLimits,
  type ClientOf,
  clientKey,
  type PeerSource,
} from '../net/abuse-limits.ts';
import type { AutoPreviews } from '../previews/auto-previews.ts';
import type { Store } from '../store/store.ts';
import { type Draft, hashPasswords, type Made, makeLinks } from './bulk-create.ts';
import {
  BULK_MAX_BODY_BYTES,
  BULK_MAX_LINKS,
  BulkRequest,
  bulkAnswerSchema,
} from './bulk-model.ts';
import { type CreateRequest, parseCreateBody, pendingOf, requestHostOf } from './create-body.ts';
import type { Domains } from './link-domain.ts';
import type { LinkEvents } from './link-events.ts';
import { linkToJson } from './link-json.ts';
import type { LinkWriter } from './link-writer.ts';

export interface BulkRoutesOptions {
  mode: Mode;
  store: Store;
  links: LinkWriter;
  /** Told of every link created, once committed. */
  events: LinkEvents;
  passwords: Pick<PasswordHasher, 'hash'>;
  secret: TokenKey;
  /** Rate limits; undefined when off. */
  limits: AbuseLimits | undefined;
  clientOf: ClientOf;
  /** kurz's own hosts, which a target must not be on; read on every call. */
  ownHosts: () => OwnHosts;
  blocklist: () => Blocklist | undefined;
  /** Links one user may own (accounts mode); 0 or absent: no limit. */
  maxLinksPerUser?: number;
  domains: Domains;
  /** Reads the pages of links whose preview is `auto`, once committed; absent: none are read. */
  previews?: Pick<AutoPreviews, 'schedule'>;
}

type Refusal = { status: ApiError['status']; message: Message };

const BULK_413 = `\`Request body too large\`: over ${BULK_MAX_BODY_BYTES / 1024 / 1024} MiB (this route's own limit; every other route takes 64 KiB).`;

export function bulkRoutes(options: BulkRoutesOptions) {
  const { mode, store, links, events, passwords, secret, limits, clientOf } = options;
  const { ownHosts, blocklist, domains } = options;
  const toJson = linkToJson(mode);
  const Answer = bulkAnswerSchema(mode);
  const ownerLimit = mode === 'accounts' ? (options.maxLinksPerUser ?? 0) : 0;
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);

  /** Whose create allowance a call spends: the user's in accounts mode, the address's in open mode. */
  const limitKey = (owner: number | null, request: Request, server: PeerSource | null) =>
    owner !== null ? `user:${owner}` : clientKey(clientOf, request, server);

  /** 429 at once when the caller has no create left, as POST /api/shorten answers; spends nothing. */
  const allowanceLeft = (hook: {
    owner: number | null;
    request: Request;
    server: PeerSource | null;
  }) => {
    limits?.create.enforceLeft(limitKey(hook.owner, hook.request, hook.server));
  };

  /** The items of a body, or 400 (a call refused whole spends one create, as a refused shorten does). */
  function itemsOf(body: Record<string, unknown>, spendOne: () => void): unknown[] {
    const items = body.links;
    if (!Array.isArray(items) || items.length === 0 || items.length > BULK_MAX_LINKS) {
      spendOne();
      throw badRequest(Messages.bulkRule);
    }
    return items;
  }

  /** Each item read by the create rules: what it asks for, or why it is refused. */
  function readItems(items: unknown[], allowed: number, request: Request) {
    const context = {
      self: { own: ownHosts(), requestHost: requestHostOf(request) },
      blocklist: blocklist(),
      domains,
    };
    return items.map((item, i): CreateRequest | Refusal => {
      // Past the allowance an item is refused before it is read, as a refused create is.
      if (i >= allowed) return { status: 429, message: Messages.tooManyRequests };
      try {
        return parseCreateBody(item, context);
      } catch (error) {
        if (error instanceof ApiError) return { status: error.status, message: error.message };
        throw error;
      }
    });
  }

  /** The link an item asks for, owned by `owner`, its password already hashed. */
  const draftOf = (
    asked: CreateRequest,
    owner: number | null,
    passwordHash: string | null,
    createdAt: number,
  ): Draft => ({
    link: {
      userId: owner,
      domainId: asked.domain.id,
      tags: asked.tags,
      originalUrl: asked.originalUrl,
      source: asked.source,
      createdAt,
      expiresAt: asked.expiresAt,
      maxClicks: asked.maxClicks,
      passwordHash,
      rules: routingText(asked.rules),
      variants: routingText(asked.variants),
      preview: previewText(asked.preview),
      ownerLimit,
    },
    custom: asked.custom,
  });

  /** The result of an item: its refusal, or the link made of it (announced once committed). */
  function resultOf(item: CreateRequest | Refusal, made: Made | undefined) {
    if ('message' in item) return { status: item.status, body: { error: item.message } };
    if (made === undefined) throw new Error('an item asked for a link and got no result');
    if (made === 'limit-reached') return { status: 403, body: { error: Messages.linkLimit } };
    if (made === 'code-taken') return { status: 400, body: { error: Messages.codeTaken } };
    events.emit({ kind: 'created', code: made.shortCode, domainId: made.domainId });
    if (item.preview?.status === 'pending') options.previews?.schedule(pendingOf(made));
    return {
      status: 201,
      body: toJson(made),
      short_url: `${item.domain.baseUrl}/${made.shortCode}`,
    };
  }

  return new Elysia({ name: 'kurz/links-bulk', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .post(
      '/api/links/bulk',
      async ({ body, owner, request, server }) => {
        const key = limitKey(owner, request, server);
        const items = itemsOf(body as Record<string, unknown>, () => limits?.create.take(key));
        const allowance = limits?.create.takeUpTo(key, items.length) ?? {
          taken: items.length,
          wait: 0,
        };
        if (allowance.taken === 0) throw tooManyRequests(allowance.wait);
        const read = readItems(items, allowance.taken, request);
        const asked = read.filter((item): item is CreateRequest => !('message' in item));
        const hashes = await hashPasswords(
          passwords,
          asked.map((a) => a.password),
        );
        const createdAt = Date.now();
        const made = await makeLinks(
          links,
          asked.map((a, k) => draftOf(a, owner, hashes[k] ?? null, createdAt)),
        );
        let k = 0;
        const results = read.map((item) =>
          resultOf(item, 'message' in item ? undefined : made[k++]),
        );
        const limited = allowance.taken < items.length;
        return jsonResponse(
          200,
          Answer,
          { results },
          limited ? { 'retry-after': String(allowance.wait) } : undefined,
        );
      },
      {
        parse: parseJsonBodyUpTo(BULK_MAX_BODY_BYTES),
        transform: [allowanceLeft, requireJsonObject],
        response: {
          200: withHeaderSchemas(Answer, {
            'Retry-After': {
              ...errorResponse(429).headers?.['Retry-After'],
              [SOMETIMES]: true,
              description:
                'When items past the create allowance were answered 429: whole seconds until one more may pass.',
            },
          }),
          ...errorResponses(400, ...authErrors, 403, 408, 429, 500, 503),
          413: errorResponse(413, { description: BULK_413 }),
        },
        detail: {
          tags: ['links'],
          ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
          operationId: 'shortenBulk',
          summary: 'Shorten many URLs at once',
          description: `Up to ${BULK_MAX_LINKS} links in one call, each item the body of POST /api/shorten, checked by the same rules in the same order and created on its own: the answer (200) has one result per item, in order, with the status and body POST /api/shorten would have answered for it. The call itself is refused only for its body size (413), ${mode === 'accounts' ? 'its token (401), ' : ''}no create allowance left (429), a body that is not a JSON object, or \`links\` that is not a list of 1 to ${BULK_MAX_LINKS} (400). Each item counts as one create against the rate limit${mode === 'accounts' ? ' and the per-user quota (403 `Link limit reached`)' : ''}: items past the allowance are answered 429 each. The valid items are committed together, in one transaction, before the answer is sent.`,
          requestBody: documentedBody(BulkRequest),
        },
      },
    );
}
