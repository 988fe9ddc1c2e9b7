// POST /api/shorten and GET /api/links, in both modes (the owner macro decides whose).

import { Elysia, t } from 'elysia';
import { ownerPlugin } from '../auth/owner.ts';
import type { Mode } from '../config/config.ts';
import { generateCode, isCodeShaped, parseCustomCode } from '../domain/codes.ts';
import { badRequest, Messages, notFound } from '../domain/errors.ts';
import { parseSource } from '../domain/sources.ts';
import { parseTargetUrl } from '../domain/urls.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { LinkCache } from '../redirect/link-cache.ts';
import type { NewLink, Store, Link as StoredLink } from '../store/store.ts';
import { linkToJson } from './link-json.ts';
import type { LinkWriter } from './link-writer.ts';
import { CodeParams, linkListSchema, linkSchema, PageQuery, ShortenBody } from './model.ts';
import { nextPageLink, parsePage } from './paging.ts';
import { QR, type QrFormat } from './qr.ts';

/** Generated codes collide about once in 10^12 draws; a few retries are plenty. */
const GENERATE_ATTEMPTS = 8;

export interface LinkRoutesOptions {
  mode: Mode;
  store: Store;
  links: LinkWriter;
  cache: LinkCache;
  secret: string;
  /** The public address of short links, encoded in QR codes. */
  baseUrl: () => string;
}

export function linkRoutes({ mode, store, links, cache, secret, baseUrl }: LinkRoutesOptions) {
  const toJson = linkToJson(mode);

  async function create(fields: Omit<NewLink, 'shortCode'>, custom: string | undefined) {
    if (custom !== undefined) {
      const link = await links.create({ ...fields, shortCode: custom });
      if (link === undefined) throw badRequest(Messages.codeTaken);
      return link;
    }
    for (let attempt = 0; attempt < GENERATE_ATTEMPTS; attempt++) {
      const link = await links.create({ ...fields, shortCode: generateCode() });
      if (link !== undefined) return link;
    }
    throw new Error('could not generate a free short code');
  }

  /** The short URL of a link the caller may see (owner only in accounts mode), or 404. */
  async function shortUrlOf(code: string, owner: number | null): Promise<string> {
    const link = isCodeShaped(code) ? await store.findLinkByCode(code) : undefined;
    if (link === undefined || (owner !== null && link.userId !== owner)) throw notFound();
    return `${baseUrl()}/${code}`;
  }
  const Link = linkSchema(mode);
  // In accounts mode every link route needs a bearer token.
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);
  const docs = {
    tags: ['links'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };

  async function qrAnswer(code: string, owner: number | null, format: QrFormat) {
    const image = await format.render(await shortUrlOf(code, owner));
    return new Response(image, {
      headers: {
        'content-type': format.type,
        'cache-control': 'private, max-age=300',
        'x-content-type-options': 'nosniff',
      },
    });
  }
  const qrHooks = (format: QrFormat, operationId: string) => ({
    params: CodeParams,
    response: {
      200: t.String({ contentMediaType: format.type, description: format.description }),
      ...errorResponses(...authErrors, 404, 500, 503),
    },
    detail: { ...docs, operationId, summary: `QR code of a short URL (${format.name})` },
  });

  return new Elysia({ name: 'kurz/links', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .post(
      '/api/shorten',
      async ({ body, owner }) => {
        const originalUrl = parseTargetUrl(body.url);
        const custom = parseCustomCode(body.custom_code);
        const source = parseSource(body.source) ?? null;
        const link: StoredLink = await create(
          { userId: owner, originalUrl, source, createdAt: Date.now() },
          custom,
        );
        cache.forgetMissing(link.shortCode);
        return jsonResponse(201, toJson(link));
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        body: ShortenBody,
        response: {
          201: Link,
          ...errorResponses(400, ...authErrors, 403, 413, 429, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'shorten',
          summary: 'Shorten a URL',
          description: `Creates a short link${mode === 'accounts' ? ' owned by the caller' : ''}. Checks, in order: body size (413), ${mode === 'accounts' ? 'token (401), ' : ''}a JSON object, \`url\`, \`custom_code\` (\`This code is reserved and cannot be used\` for reserved words), \`source\`, then \`Custom code already taken\`. The 201 is sent once the link is committed.`,
        },
      },
    )
    .get(
      '/api/links',
      async ({ request, owner }) => {
        const query = request.url.indexOf('?');
        const page = parsePage(new URLSearchParams(query === -1 ? '' : request.url.slice(query)));
        const { links, total } = await store.listLinks({ owner, ...page });
        const headers: Record<string, string> = { 'x-total-count': String(total) };
        const next = nextPageLink(page, total);
        if (next !== undefined) headers.link = next;
        return jsonResponse(200, links.map(toJson), headers);
      },
      {
        query: PageQuery,
        response: {
          200: linkListSchema(mode),
          ...errorResponses(400, ...authErrors, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'listLinks',
          summary: mode === 'accounts' ? 'List your links' : 'List all links',
          description:
            'Newest first (created_at, then id). Without parameters, the whole list; `limit` and `offset` page it. Every answer has `X-Total-Count`; a page with more after it has `Link: </api/links?limit=N&offset=M>; rel="next"`.',
        },
      },
    )
    .get(
      '/api/links/:code/qr.svg',
      ({ params, owner }) => qrAnswer(params.code, owner, QR.svg),
      qrHooks(QR.svg, 'getLinkQrSvg'),
    )
    .get(
      '/api/links/:code/qr.png',
      ({ params, owner }) => qrAnswer(params.code, owner, QR.png),
      qrHooks(QR.png, 'getLinkQrPng'),
    );
}
