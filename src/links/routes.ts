// POST /api/shorten and the QR codes, in both modes (the owner macro decides whose); the
// list, GET /api/links, is list-routes.ts's.

import { Elysia, t } from 'elysia';
import { ownerPlugin } from '../auth/owner.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { GENERATE_ATTEMPTS, generateCode, isCodeShaped } from '../domain/codes.ts';
import { ApiError, badRequest, Messages } from '../domain/errors.ts';
import { previewText } from '../domain/link-preview.ts';
import { routingText } from '../domain/link-routing.ts';
import type { OwnHosts } from '../domain/own-hosts.ts';
import type { Blocklist } from '../domain/targets.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import {
  type AbuseLimits,
  type ClientOf,
  clientKey,
  type PeerSource,
} from '../net/abuse-limits.ts';
import type { AutoPreviews } from '../previews/auto-previews.ts';
import {
  type CreatedLink,
  LINK_LIMIT_REACHED,
  type NewLink,
  type Store,
  type Link as StoredLink,
} from '../store/store.ts';
import { parseCreateBody, pendingOf, requestHostOf } from './create-body.ts';
import { DomainQuery, type Domains, queryDomain } from './link-domain.ts';
import type { LinkEvents } from './link-events.ts';
import { linkToJson } from './link-json.ts';
import type { LinkWriter } from './link-writer.ts';
import { visibleTo } from './manage-routes.ts';
import { CodeParams, linkSchema, ShortenBody } from './model.ts';
import { QR, type QrFormat } from './qr.ts';
import { targetRulesHook } from './target-rules.ts';

export interface LinkRoutesOptions {
  mode: Mode;
  store: Store;
  links: LinkWriter;
  /** Told of every link created, once committed. */
  events: LinkEvents;
  /** Hashes the passwords of protected links. */
  passwords: Pick<PasswordHasher, 'hash'>;
  secret: TokenKey;
  /** The public address of short links, encoded in QR codes. */
  baseUrl: () => string;
  /** Rate limits; undefined when off. */
  limits: AbuseLimits | undefined;
  clientOf: ClientOf;
  /** kurz's own hosts, which a target must not be on; read on every create. */
  ownHosts: () => OwnHosts;
  /** The blocklist in force, read on every create so that a reload applies at once. */
  blocklist: () => Blocklist | undefined;
  /** Links one user may own (accounts mode); 0 or absent: no limit. */
  maxLinksPerUser?: number;
  domains: Domains;
  /** Reads the pages of links whose preview is `auto`, once committed; absent: none are read. */
  previews?: Pick<AutoPreviews, 'schedule'>;
}

export function linkRoutes(options: LinkRoutesOptions) {
  const { mode, store, links, events, passwords, secret, baseUrl, limits, clientOf, domains } =
    options;
  const toJson = linkToJson(mode);
  const Link = linkSchema(mode);
  // Open mode has no users, so no quota (its creates are rate limited per address).
  const ownerLimit = mode === 'accounts' ? (options.maxLinksPerUser ?? 0) : 0;

  /** The stored link; a code taken or the owner's quota reached answer the client. */
  function stored(link: CreatedLink): StoredLink | undefined {
    if (link === LINK_LIMIT_REACHED) throw new ApiError(403, Messages.linkLimit);
    return link;
  }

  /** Creates per user in accounts mode, per client address in open mode; before the body is read. */
  const createLimit = ({
    owner,
    request,
    server,
  }: {
    owner: number | null;
    request: Request;
    server: PeerSource | null;
  }) => {
    if (limits === undefined) return;
    limits.create.enforce(owner !== null ? `user:${owner}` : clientKey(clientOf, request, server));
  };

  const targetRules = targetRulesHook(options.ownHosts, options.blocklist);

  async function create(fields: Omit<NewLink, 'shortCode'>, custom: string | undefined) {
    const limited = { ...fields, ownerLimit };
    if (custom !== undefined) {
      const link = stored(await links.create({ ...limited, shortCode: custom }));
      if (link === undefined) throw badRequest(Messages.codeTaken);
      return link;
    }
    for (let attempt = 0; attempt < GENERATE_ATTEMPTS; attempt++) {
      const link = stored(await links.create({ ...limited, shortCode: generateCode() }));
      if (link !== undefined) return link;
    }
    throw new Error('could not generate a free short code');
  }

  /**
   * The short URL of a link (on the domain `?domain=` names) the caller may see (owner
   * only in accounts mode), or 404.
   */
  async function shortUrlOf(request: Request, code: string, owner: number | null) {
    const domain = queryDomain(domains, request);
    const link = isCodeShaped(code) ? await store.findLinkByCode(code, domain.id) : undefined;
    visibleTo(link, owner);
    return `${domain.isDefault ? baseUrl() : domain.baseUrl}/${code}`;
  }
  // In accounts mode every link route needs a bearer token.
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);
  const docs = {
    tags: ['links'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };

  async function qrAnswer(request: Request, code: string, owner: number | null, format: QrFormat) {
    const image = await format.render(await shortUrlOf(request, code, owner));
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
    query: DomainQuery,
    response: {
      200: t.String({ contentMediaType: format.type, description: format.description }),
      ...errorResponses(400, ...authErrors, 404, 500, 503),
    },
    detail: { ...docs, operationId, summary: `QR code of a short URL (${format.name})` },
  });

  return new Elysia({ name: 'kurz/links', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .post(
      '/api/shorten',
      async ({ body, owner, request }) => {
        const asked = parseCreateBody(body, {
          self: { own: options.ownHosts(), requestHost: requestHostOf(request) },
          blocklist: options.blocklist(),
          domains,
        });
        const { originalUrl, source, expiresAt, maxClicks, password, tags, domain } = asked;
        const { rules, variants, preview } = asked;
        const passwordHash = password ? await passwords.hash(password) : null;
        const link: StoredLink = await create(
          {
            userId: owner,
            domainId: domain.id,
            tags,
            originalUrl,
            source,
            createdAt: Date.now(),
            expiresAt,
            maxClicks,
            passwordHash,
            rules: routingText(rules),
            variants: routingText(variants),
            preview: previewText(preview),
          },
          asked.custom,
        );
        events.emit({ kind: 'created', code: link.shortCode, domainId: link.domainId });
        if (preview?.status === 'pending') options.previews?.schedule(pendingOf(link));
        return jsonResponse(201, Link, toJson(link));
      },
      {
        parse: parseJsonBody,
        transform: [createLimit, requireJsonObject, targetRules],
        body: ShortenBody,
        response: {
          201: Link,
          ...errorResponses(400, ...authErrors, 403, 408, 413, 429, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'shorten',
          summary: 'Shorten a URL',
          description: `Creates a short link${mode === 'accounts' ? ' owned by the caller' : ''}. Checks, in order: body size (413), ${mode === 'accounts' ? 'token (401), ' : ''}a JSON object, \`url\`, \`custom_code\` (\`This code is reserved and cannot be used\` for reserved words), \`source\`, \`expires_at\`, \`max_clicks\`, \`password\`, \`tags\`, \`domain\`, then \`Custom code already taken\` (a code is unique per domain)${mode === 'accounts' ? ' and the per-user quota (403 `Link limit reached`)' : ''}. The 201 is sent once the link is committed.`,
        },
      },
    )
    .get(
      '/api/links/:code/qr.svg',
      ({ params, owner, request }) => qrAnswer(request, params.code, owner, QR.svg),
      qrHooks(QR.svg, 'getLinkQrSvg'),
    )
    .get(
      '/api/links/:code/qr.png',
      ({ params, owner, request }) => qrAnswer(request, params.code, owner, QR.png),
      qrHooks(QR.png, 'getLinkQrPng'),
    );
}
