// GET, PATCH and DELETE /api/links/{code}: one link, its settings, its changes. In
// accounts mode only the owner sees or changes a link (another's is 404, as if it did
// not exist); in open mode reading is open, as the list is, and changing needs the
// operator's admin token.

import { Elysia, t } from 'elysia';
import { adminOnly } from '../auth/admin.ts';
import { ownerPlugin } from '../auth/owner.ts';
import type { PasswordHasher } from '../auth/passwords.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { notFound } from '../domain/errors.ts';
import {
  parsePreview,
  pendingPreview,
  previewText,
  storedPreview,
} from '../domain/link-preview.ts';
import { parseRules, parseVariants, routingText } from '../domain/link-routing.ts';
import { parseExpiresAt, parseLinkPassword, parseMaxClicks } from '../domain/link-settings.ts';
import type { OwnHosts } from '../domain/own-hosts.ts';
import { parseTags } from '../domain/tags.ts';
import { type Blocklist, checkTarget } from '../domain/targets.ts';
import { parseTargetUrl } from '../domain/urls.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { AutoPreviews } from '../previews/auto-previews.ts';
import type { LinkChanges, LinkDetail, Store } from '../store/store.ts';
import { pendingOf, requestHostOf } from './create-body.ts';
import { hiddenTargets } from './hidden-targets.ts';
import { DomainQuery, type Domains, queryDomain } from './link-domain.ts';
import type { LinkEvents } from './link-events.ts';
import { linkDetailToJson } from './link-json.ts';
import { ChangeBody, CodeParams, linkDetailSchema } from './model.ts';
import { targetRulesHook } from './target-rules.ts';

export interface ManageRoutesOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  events: LinkEvents;
  passwords: Pick<PasswordHasher, 'hash'>;
  /** Open mode's management token; undefined: management is refused in open mode. */
  adminToken: string | undefined;
  /** kurz's own hosts, which a target must not be on. */
  ownHosts: () => OwnHosts;
  blocklist: () => Blocklist | undefined;
  domains: Domains;
  /** Reads the pages of links whose preview is `auto`, once committed; absent: none are read. */
  previews?: Pick<AutoPreviews, 'schedule'>;
}

/** A link the caller may see (its owner, or anyone in open mode); 404 for any other, or none. */
export function visibleTo<L extends { userId: number | null }>(
  link: L | undefined,
  owner: number | null,
): L {
  if (link === undefined || (owner !== null && link.userId !== owner)) throw notFound();
  return link;
}

/**
 * The link of `code` on the domain `?domain=` names (the default one when absent), with
 * its settings, when the caller may see it; else 404 (400 for an unknown domain).
 */
export async function visibleLink(
  store: Store,
  domains: Domains,
  request: Request,
  code: string,
  owner: number | null,
): Promise<LinkDetail> {
  const domain = queryDomain(domains, request);
  return visibleTo(
    isCodeShaped(code) ? await store.findLinkDetail(code, domain.id) : undefined,
    owner,
  );
}

export function manageRoutes(options: ManageRoutesOptions) {
  const { mode, store, secret, events, passwords, domains } = options;
  const toJson = linkDetailToJson(mode, domains.domainOf);
  const viewOf = hiddenTargets({
    mode,
    adminToken: options.adminToken,
    store,
    domainOf: domains.domainOf,
  });
  const Detail = linkDetailSchema(mode);
  const targetRules = targetRulesHook(options.ownHosts, options.blocklist);
  // Accounts mode: the owner's token (401 without one, by the owner plugin). Open mode:
  // the admin token for changes, before the body is looked at.
  const admin = mode === 'open' ? [adminOnly(options.adminToken)] : [];
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);
  const changeErrors = mode === 'accounts' ? ([401] as const) : ([401, 403] as const);
  const docs = {
    tags: ['links'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };
  const changeDocs =
    mode === 'accounts'
      ? docs
      : { ...docs, security: [{ adminToken: [] }] as Record<string, string[]>[] };
  const who =
    mode === 'accounts'
      ? 'Only the owner: another user’s link is 404.'
      : 'Needs the admin token (`--admin-token`) as `Authorization: Bearer …`: without one configured, 403 `Link management needs an admin token in open mode`; a missing or wrong token is 401.';

  /** What a PATCH body asks for, its password hashed; `checkUrl`: the target rules of the service. */
  async function changesOf(
    body: Record<string, unknown>,
    checkUrl: (url: string) => void,
    current: LinkDetail,
  ): Promise<LinkChanges> {
    const changes: LinkChanges = {};
    if (body.url !== undefined) changes.originalUrl = parseTargetUrl(body.url);
    const expiresAt = parseExpiresAt(body.expires_at);
    if (expiresAt !== undefined) changes.expiresAt = expiresAt;
    const maxClicks = parseMaxClicks(body.max_clicks);
    if (maxClicks !== undefined) changes.maxClicks = maxClicks;
    const password = parseLinkPassword(body.password);
    if (password !== undefined) {
      changes.passwordHash = password === null ? null : await passwords.hash(password);
    }
    const tags = parseTags(body.tags);
    if (tags !== undefined) changes.tags = tags;
    const rules = parseRules(body.rules, checkUrl);
    if (rules !== undefined) changes.rules = routingText(rules);
    const variants = parseVariants(body.variants, checkUrl);
    if (variants !== undefined) changes.variants = routingText(variants);
    const preview = parsePreview(body.preview);
    if (preview !== undefined) changes.preview = previewText(preview);
    // An auto preview is read again from a new target.
    else if (
      changes.originalUrl !== undefined &&
      changes.originalUrl !== current.originalUrl &&
      storedPreview(current.preview)?.mode === 'auto'
    ) {
      changes.preview = previewText(pendingPreview());
    }
    return changes;
  }

  return new Elysia({ name: 'kurz/links-manage', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .get(
      '/api/links/:code',
      async ({ params, owner, request }) =>
        jsonResponse(
          200,
          Detail,
          toJson(
            viewOf(request).detail(await visibleLink(store, domains, request, params.code, owner)),
          ),
        ),
      {
        params: CodeParams,
        query: DomainQuery,
        response: { 200: Detail, ...errorResponses(400, ...authErrors, 404, 500, 503) },
        detail: {
          ...docs,
          operationId: 'getLink',
          summary: 'One link with its settings',
          description:
            mode === 'accounts'
              ? 'Only the owner: another user’s link is 404.'
              : 'Open to all, as the list is; a link with a password shows its own `short_url` as `original_url` and no rules, variants or preview, unless the admin token is given.',
        },
      },
    )
    .patch(
      '/api/links/:code',
      async ({ params, owner, body, request }) => {
        const link = await visibleLink(store, domains, request, params.code, owner);
        const self = { own: options.ownHosts(), requestHost: requestHostOf(request) };
        const checkUrl = (url: string) => checkTarget(url, self, options.blocklist());
        const changes = await changesOf(body, checkUrl, link);
        const changed = await store.updateLink(link.id, changes);
        if (changed === undefined) throw notFound();
        events.emit({ kind: 'updated', code: changed.shortCode, domainId: changed.domainId });
        if (changes.preview != null && storedPreview(changes.preview)?.status === 'pending') {
          options.previews?.schedule(pendingOf(changed));
        }
        return jsonResponse(200, Detail, toJson(changed));
      },
      {
        parse: parseJsonBody,
        transform: [...admin, requireJsonObject, targetRules],
        params: CodeParams,
        query: DomainQuery,
        body: ChangeBody,
        response: {
          200: Detail,
          ...errorResponses(400, ...changeErrors, 404, 408, 413, 500, 503),
        },
        detail: {
          ...changeDocs,
          operationId: 'updateLink',
          summary: 'Change a link',
          description: `${who} Only the fields given change, each checked by the rules of creation (\`url\`, then \`expires_at\`, \`max_clicks\`, \`password\`, \`tags\`, \`rules\`, \`variants\`); null clears all but \`url\` (\`tags\` and \`rules\` replace the whole list). A new target is followed at once, by every instance on the same database within a second.`,
        },
      },
    )
    .delete(
      '/api/links/:code',
      async ({ params, owner, request }) => {
        const link = await visibleLink(store, domains, request, params.code, owner);
        if (!(await store.deleteLink(link.id))) throw notFound();
        events.emit({ kind: 'deleted', code: link.shortCode, domainId: link.domainId });
        return new Response(null, { status: 204 });
      },
      {
        transform: admin,
        params: CodeParams,
        query: DomainQuery,
        response: {
          204: t.Void({ description: 'Deleted, with its click records and stats.' }),
          ...errorResponses(400, ...changeErrors, 404, 500, 503),
        },
        detail: {
          ...changeDocs,
          operationId: 'deleteLink',
          summary: 'Delete a link',
          description: `${who} The link, its click records and its stats go; its code answers 404 at once, on every instance within a second, and may be taken again.`,
        },
      },
    );
}
