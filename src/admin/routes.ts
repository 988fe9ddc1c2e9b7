// /api/admin: the instance's figures, its users (accounts mode), every user's links and
// the database blocklist, for admins only (authorisation.ts). Each change goes through
// AdminActions, which tells the redirect cache, the webhooks and the other instances.

import { Elysia, t } from 'elysia';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { notFound } from '../domain/errors.ts';
import { parseBlockedHost } from '../domain/targets.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import { type Domains, namedDomain, queryDomain } from '../links/link-domain.ts';
import { parseLimit, parseOffset } from '../links/paging.ts';
import type { Store } from '../store/store.ts';
import type { AdminActions } from './actions.ts';
import { adminPlugin, adminSecurity, adminWho } from './authorisation.ts';
import {
  AdminLinkSchema,
  AdminUser,
  adminLinkJson,
  adminUserJson,
  BlockBody,
  BlockedHostSchema,
  blockedHostJson,
  DisableBody,
  HostParams,
  LinkCodeParams,
  LinkDomainQuery,
  LinkQuery,
  Overview,
  overviewJson,
  pagedList,
  parseBlockBody,
  parseDisableBody,
  parseDisabledFilter,
  parseRemovedLinks,
  RemoveUserQuery,
  UserChangeBody,
  UserParams,
  UserQuery,
  userIdParam,
} from './model.ts';

/** A host as the blocklist keeps it; undefined when it is no host. */
function canonicalHost(name: string): string | undefined {
  try {
    return parseBlockedHost(name);
  } catch {
    return undefined;
  }
}

export interface AdminRoutesOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  adminToken: string | undefined;
  domains: Domains;
  actions: AdminActions;
}

/** A page of an admin list: limit 1 to 1000, 100 when absent. */
function pageOf(query: { limit?: string; offset?: string }): { limit: number; offset: number } {
  return {
    limit: query.limit === undefined ? 100 : parseLimit(query.limit),
    offset: query.offset === undefined ? 0 : parseOffset(query.offset),
  };
}

const AdminUsers = pagedList(AdminUser, 'The users, oldest first.');
const AdminLinks = pagedList(AdminLinkSchema, 'The links, newest first.');
const BlockedHosts = t.Array(BlockedHostSchema, {
  description: 'The hosts, in alphabetical order.',
});

export function adminRoutes(options: AdminRoutesOptions) {
  const { mode, store, domains, actions } = options;
  const accounts = mode === 'accounts';
  const refusals = [401, 403] as const;
  const forbidden = errorResponse(403, {
    description: accounts
      ? '`Forbidden`: an API key (of any scope), or the token of a user who is no admin. `Cross-origin request refused`: a browser sent it from a site not allowed by `--cors-origins`.'
      : '`Administration needs an admin token (--admin-token)`: none is configured. `Cross-origin request refused`: a browser sent it from a site not allowed by `--cors-origins`.',
  });
  const docs = (summary: string, operationId: string, more = '') => ({
    tags: ['admin'],
    security: adminSecurity(mode),
    operationId,
    summary,
    description: `${adminWho(mode)}${more === '' ? '' : ` ${more}`}`,
  });

  /** The link a path names, on `?domain=`'s domain; 404 for none. */
  async function linkOf(request: Request, code: string) {
    const domain = queryDomain(domains, request);
    const link = isCodeShaped(code) ? await store.findLinkDetail(code, domain.id) : undefined;
    if (link === undefined) throw notFound();
    return link;
  }

  const adminLink = async (link: Parameters<AdminActions['adminLink']>[0]) =>
    adminLinkJson(await actions.adminLink(link), domains.domainOf(link.domainId));

  const app = new Elysia({ name: 'kurz/admin', seed: mode })
    .use(adminPlugin(options))
    .get(
      '/api/admin/overview',
      async () => {
        const midnight = Date.now() - (Date.now() % 86_400_000);
        return jsonResponse(200, Overview, overviewJson(await store.figures(midnight), accounts));
      },
      {
        response: { 200: Overview, ...errorResponses(...refusals, 500, 503), 403: forbidden },
        detail: docs('The instance’s figures', 'adminOverview'),
      },
    )
    .get(
      '/api/admin/links',
      async ({ query }) => {
        const page = pageOf(query);
        const domainId =
          query.domain === undefined ? undefined : namedDomain(domains, query.domain).id;
        const found = await store.searchAllLinks({
          text: query.q === undefined || query.q === '' ? undefined : query.q,
          ownerEmail: query.owner === undefined || query.owner === '' ? undefined : query.owner,
          domainId,
          disabled: parseDisabledFilter(query.disabled),
          ...page,
        });
        return jsonResponse(
          200,
          AdminLinks,
          found.links.map((link) => adminLinkJson(link, domains.domainOf(link.domainId))),
          { 'x-total-count': String(found.total) },
        );
      },
      {
        query: LinkQuery,
        response: {
          200: AdminLinks,
          ...errorResponses(400, ...refusals, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'Every user’s links',
          'adminListLinks',
          'Newest first, each filter given narrowing the list; `X-Total-Count` is the number the filters let through. Checks, in order: `limit` and `offset`, `domain`, `disabled`.',
        ),
      },
    )
    .post(
      '/api/admin/links/:code/disable',
      async ({ params, body, request, admin }) => {
        const link = await linkOf(request, params.code);
        const { reason, blockHost } = parseDisableBody(body);
        const changed = await actions.setLinkDisabled(link, { reason, blockHost }, admin);
        return jsonResponse(200, AdminLinkSchema, await adminLink(changed));
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        params: LinkCodeParams,
        query: LinkDomainQuery,
        body: DisableBody,
        response: {
          200: AdminLinkSchema,
          ...errorResponses(400, ...refusals, 404, 408, 413, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'Disable a link',
          'adminDisableLink',
          'From now on the link answers 410 `Link disabled` (a page saying so, with the reason, to browsers) on every instance, counting nothing; its owner’s webhooks are told (`link.updated`). `block_host: true` also puts its target’s host on the blocklist. Disabling it again changes only the reason.',
        ),
      },
    )
    .post(
      '/api/admin/links/:code/enable',
      async ({ params, request, admin }) => {
        const link = await linkOf(request, params.code);
        const changed = await actions.setLinkDisabled(link, null, admin);
        return jsonResponse(200, AdminLinkSchema, await adminLink(changed));
      },
      {
        params: LinkCodeParams,
        query: LinkDomainQuery,
        response: {
          200: AdminLinkSchema,
          ...errorResponses(400, ...refusals, 404, 500, 503),
          403: forbidden,
        },
        detail: docs('Enable a link again', 'adminEnableLink', 'It redirects again at once.'),
      },
    )
    .delete(
      '/api/admin/links/:code',
      async ({ params, request }) => {
        await actions.deleteLink(await linkOf(request, params.code));
        return new Response(null, { status: 204 });
      },
      {
        params: LinkCodeParams,
        query: LinkDomainQuery,
        response: {
          204: t.Void({ description: 'Removed, with its clicks.' }),
          ...errorResponses(400, ...refusals, 404, 500, 503),
          403: forbidden,
        },
        detail: docs('Delete any link', 'adminDeleteLink'),
      },
    )
    .get(
      '/api/admin/blocklist',
      async () =>
        jsonResponse(200, BlockedHosts, (await store.listBlockedHosts()).map(blockedHostJson)),
      {
        response: { 200: BlockedHosts, ...errorResponses(...refusals, 500, 503), 403: forbidden },
        detail: docs(
          'The database blocklist',
          'adminListBlocklist',
          'The hosts admins added (the `--blocklist` file is not listed): new links, and changes of a target, to any of them or their subdomains are refused with 400 `URL is blocked`, on every instance.',
        ),
      },
    )
    .post(
      '/api/admin/blocklist',
      async ({ body, admin }) => {
        const { host, reason } = parseBlockBody(body);
        await actions.blockHost(host, reason, admin);
        const entry = (await store.listBlockedHosts()).find((h) => h.host === host);
        if (entry === undefined) throw notFound();
        return jsonResponse(201, BlockedHostSchema, blockedHostJson(entry));
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        body: BlockBody,
        response: {
          201: BlockedHostSchema,
          ...errorResponses(400, ...refusals, 408, 413, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'Block a host',
          'adminBlockHost',
          'Answers with the entry; a host already blocked keeps its entry (and its reason). Links made before stay as they are.',
        ),
      },
    )
    .delete(
      '/api/admin/blocklist/:host',
      async ({ params }) => {
        // Named as it was added (`*.evil.example`, capitals, an IDN), or as it is listed.
        const host = canonicalHost(params.host);
        if (host === undefined || !(await actions.unblockHost(host))) throw notFound();
        return new Response(null, { status: 204 });
      },
      {
        params: HostParams,
        response: {
          204: t.Void({ description: 'Removed from the blocklist.' }),
          ...errorResponses(...refusals, 404, 500, 503),
          403: forbidden,
        },
        detail: docs('Unblock a host', 'adminUnblockHost'),
      },
    );
  if (!accounts) return app;
  return app
    .get(
      '/api/admin/users',
      async ({ query }) => {
        const page = pageOf(query);
        const found = await store.searchUsers({ text: query.q || undefined, ...page });
        return jsonResponse(200, AdminUsers, found.users.map(adminUserJson), {
          'x-total-count': String(found.total),
        });
      },
      {
        query: UserQuery,
        response: {
          200: AdminUsers,
          ...errorResponses(400, ...refusals, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'The users',
          'adminListUsers',
          'Oldest first; `q` keeps those whose e-mail contains it. `X-Total-Count` is their number.',
        ),
      },
    )
    .patch(
      '/api/admin/users/:id',
      async ({ params, body, admin }) => {
        const id = userIdParam(params.id);
        const changed = id === undefined ? undefined : await actions.changeUser(id, body, admin);
        if (changed === undefined) throw notFound();
        return jsonResponse(200, AdminUser, adminUserJson(changed));
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        params: UserParams,
        body: UserChangeBody,
        response: {
          200: AdminUser,
          ...errorResponses(400, ...refusals, 404, 408, 413, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'Disable, enable, promote or demote a user',
          'adminChangeUser',
          '`disabled: true` ends the user’s access at once: their tokens and API keys answer 401 from the next request, signing in 403 `Account disabled`; their links keep working. `false` restores it (tokens issued before are valid again until they expire). An admin cannot disable or demote themselves: 400 `You cannot disable, demote or remove your own account`.',
        ),
      },
    )
    .delete(
      '/api/admin/users/:id',
      async ({ params, query, admin }) => {
        const links = parseRemovedLinks(query.links);
        const id = userIdParam(params.id);
        if (id === undefined || !(await actions.removeUser(id, links, admin))) throw notFound();
        return new Response(null, { status: 204 });
      },
      {
        params: UserParams,
        query: RemoveUserQuery,
        response: {
          204: t.Void({ description: 'Removed, with their API keys and webhooks.' }),
          ...errorResponses(400, ...refusals, 404, 500, 503),
          403: forbidden,
        },
        detail: docs(
          'Remove a user',
          'adminRemoveUser',
          '`links` is required: `delete` removes their links with their clicks, `keep` keeps them as no one’s (400 `links must be delete or keep` otherwise). An admin cannot remove themselves (400).',
        ),
      },
    );
}
