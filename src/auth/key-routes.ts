// POST, GET and DELETE /api/keys (accounts mode): a user's API keys. A key is shown
// once, in the answer that creates it; managing keys takes a login token, never a key.

import { type Static, Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import { ApiError, Messages, notFound } from '../domain/errors.ts';
import { parseKeySettings } from '../domain/key-settings.ts';
import { isoOrNull } from '../domain/moments.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import { type ApiKey, KEY_LIMIT_REACHED } from '../store/accounts.ts';
import type { Store } from '../store/store.ts';
import { generateKey, keyHash, shownPart } from './api-keys.ts';
import { ownerPlugin } from './owner.ts';
import type { TokenKey } from './tokens.ts';

/** Keys one user may have at once. */
export const KEYS_PER_USER = 100;

const dateOrNull = (description: string) =>
  t.Union([t.String({ format: 'date-time' }), t.Null()], { description });

const KeySchema = t.Object(
  {
    id: Type.Integer(),
    name: t.String(),
    prefix: t.String({
      description: 'The key’s first characters (`kurz_` and 8 more), to tell keys apart.',
      examples: ['kurz_3hT9xQ2b'],
    }),
    scope: t.Union([t.Literal('read'), t.Literal('write')]),
    created_at: t.String({ format: 'date-time' }),
    expires_at: dateOrNull('After this moment the key is refused (401); null: never.'),
    last_used_at: dateOrNull('Its last accepted use, to the minute; null: never used.'),
  },
  { title: 'ApiKey' },
);

const NewKeySchema = t.Object(
  {
    ...KeySchema.properties,
    key: t.String({
      description: 'The key itself, shown this once: only its SHA-256 is kept.',
      examples: ['kurz_3hT9xQ2bLr8WmZpK4vY7nC1dF6gJ0sAe5Hc2Ux'],
    }),
  },
  { title: 'NewApiKey' },
);

const KeyList = t.Array(KeySchema);

function keyToJson(key: ApiKey): Static<typeof KeySchema> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scope: key.scope,
    created_at: new Date(key.createdAt).toISOString(),
    expires_at: isoOrNull(key.expiresAt),
    last_used_at: isoOrNull(key.lastUsedAt),
  };
}

const NewKeyBody = t.Object(
  {
    name: t.Optional(
      t.Unknown({ description: '1 to 100 characters, trimmed: what the key is for.' }),
    ),
    scope: t.Optional(
      t.Unknown({
        description:
          '`read` (the default): list links, read one, its stats, clicks and QR code. `write`: also create, change and delete links.',
      }),
    ),
    expires_at: t.Optional(
      t.Unknown({
        description: 'ISO 8601 date-time with a time zone, in the future; absent or null: never.',
      }),
    ),
  },
  { title: 'ApiKeyRequest' },
);

const IdParams = t.Object({ id: t.String() });
const KEY_ID = /^[1-9][0-9]{0,14}$/;

export function keyRoutes(options: { store: Store; secret: TokenKey }) {
  const { store, secret } = options;
  const docs = { tags: ['api keys'], security: [{ bearer: [] }] };
  const forbidden = errorResponse(403, {
    description: '`Forbidden`: an API key cannot manage keys; log in for a token.',
  });
  return new Elysia({ name: 'kurz/key-routes' })
    .use(ownerPlugin({ mode: 'accounts', secret, store, apiKeys: 'refused' }))
    .post(
      '/api/keys',
      async ({ body, owner }) => {
        const now = Date.now();
        const settings = parseKeySettings(body as Record<string, unknown>, now);
        const key = generateKey();
        const stored = await store.createApiKey(
          {
            userId: owner as number,
            ...settings,
            prefix: shownPart(key),
            secretHash: keyHash(key),
            createdAt: now,
          },
          KEYS_PER_USER,
        );
        if (stored === KEY_LIMIT_REACHED) throw new ApiError(403, Messages.keyLimit);
        return jsonResponse(
          201,
          NewKeySchema,
          { ...keyToJson(stored), key },
          { 'cache-control': 'no-store' },
        );
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        body: NewKeyBody,
        response: {
          201: NewKeySchema,
          ...errorResponses(400, 401, 408, 413, 500, 503),
          403: errorResponse(403, {
            description: `\`Forbidden\`: an API key cannot make keys; log in for a token. \`${Messages.keyLimit}\`: the account has ${KEYS_PER_USER} keys already.`,
          }),
        },
        detail: {
          ...docs,
          operationId: 'createApiKey',
          summary: 'Create an API key',
          description: `Answers with the key itself, shown this once. Checks, in order: \`${Messages.keyNameRule}\`, \`${Messages.keyScopeRule}\`, \`${Messages.keyExpiryRule}\`. Use it as \`Authorization: Bearer <key>\` wherever a token works, within its scope: outside it, 403 \`Forbidden\`.`,
        },
      },
    )
    .get(
      '/api/keys',
      async ({ owner }) =>
        jsonResponse(200, KeyList, (await store.listApiKeys(owner as number)).map(keyToJson)),
      {
        response: { 200: KeyList, ...errorResponses(401, 500, 503), 403: forbidden },
        detail: {
          ...docs,
          operationId: 'listApiKeys',
          summary: 'List your API keys',
          description: 'Newest first, without the keys themselves.',
        },
      },
    )
    .delete(
      '/api/keys/:id',
      async ({ params, owner }) => {
        const id = KEY_ID.test(params.id) ? Number(params.id) : 0;
        if (id === 0 || !(await store.deleteApiKey(owner as number, id))) throw notFound();
        return new Response(null, { status: 204 });
      },
      {
        params: IdParams,
        response: {
          204: t.Void({ description: 'Revoked: the key is refused (401) from now on.' }),
          ...errorResponses(401, 404, 500, 503),
          403: forbidden,
        },
        detail: {
          ...docs,
          operationId: 'deleteApiKey',
          summary: 'Revoke an API key',
          description: 'Another user’s key, or one already revoked, is 404.',
        },
      },
    );
}
