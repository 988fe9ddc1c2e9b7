// /api/domains: the short domains links may be made on. Anyone who may list links may
// list them (the choice a client offers); adding, changing and removing them is the
// operator's, with the admin token (--admin-token) in both modes, as `kurz domain` is on
// the command line. Each change is read again by this instance's registry before the
// answer, and by the others when the store's notice reaches them.

import { Elysia, t } from 'elysia';
import { adminOnly, bearerIs } from '../auth/admin.ts';
import { ownerOf } from '../auth/owner.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { badRequest, Messages, notFound } from '../domain/errors.ts';
import { domainHostOf, parseDomainRedirect, parseDomainUrl } from '../domain/short-domains.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { Domain, DomainChanges, Store } from '../store/store.ts';
import {
  DomainBody,
  DomainChangeBody,
  DomainList,
  DomainParams,
  DomainSchema,
  domainJson,
  RemovalQuery,
} from './model.ts';
import type { DomainRegistry, ShortDomain } from './registry.ts';

export interface DomainRoutesOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  domains: DomainRegistry;
  /** The operator's token; undefined: domains can be listed, not managed. */
  adminToken: string | undefined;
  /** Told when links went with a removed domain: their link.deleted messages wait in the outbox. */
  linksRemoved?: () => void;
}

const WHO_ADMIN =
  'Needs the admin token (`--admin-token`) as `Authorization: Bearer …`, in either mode: without one configured, 403 `Domain management needs an admin token (--admin-token)`; a missing or wrong token is 401.';

/** A domain of the store as the registry holds it (one added here is never the default). */
function shortDomain(domain: Domain): ShortDomain {
  const { id, baseUrl, host, rootRedirect, notFoundRedirect } = domain;
  return { id, baseUrl, host, rootRedirect, notFoundRedirect, isDefault: false };
}

export function domainRoutes(options: DomainRoutesOptions) {
  const { mode, store, secret, domains } = options;
  const admin = adminOnly(options.adminToken, Messages.domainsAdminMissing);
  const isAdmin = options.adminToken === undefined ? () => false : bearerIs(options.adminToken);
  const adminDocs = { tags: ['domains'], security: [{ adminToken: [] }] };
  const adminErrors = [401, 403] as const;
  const forbidden = errorResponse(403, {
    description:
      '`Domain management needs an admin token (--admin-token)`: none is configured. `Cross-origin request refused`: a browser sent it from a site not allowed by `--cors-origins`.',
  });

  /**
   * The domain a path names (its host, or its whole base URL and nothing more), read from
   * the store; 400 for the default one, 404 for none.
   */
  async function namedDomain(name: string): Promise<Domain> {
    const host = domainHostOf(name);
    if (host === undefined) throw notFound();
    if (host === domains.default.host) throw badRequest(Messages.domainIsDefault);
    const domain = (await store.listDomains()).find((d) => d.host === host);
    if (domain === undefined) throw notFound();
    return domain;
  }

  async function linksOn(id: number): Promise<number> {
    return (await store.countLinksByDomain()).get(id) ?? 0;
  }

  return new Elysia({ name: 'kurz/domains', seed: mode })
    .get(
      '/api/domains',
      async ({ request }) => {
        // The admin token sees how many links each domain has; anyone else, as the
        // links list lets them in, sees the choice without counts of others' links.
        if (!isAdmin(request)) {
          await ownerOf(request, { mode, store, secret });
          return jsonResponse(
            200,
            DomainList,
            domains.all().map((d) => domainJson(d)),
          );
        }
        const counts = await store.countLinksByDomain();
        return jsonResponse(
          200,
          DomainList,
          domains.all().map((d) => domainJson(d, counts.get(d.id) ?? 0)),
        );
      },
      {
        response: {
          200: DomainList,
          ...errorResponses(...(mode === 'accounts' ? ([401, 403] as const) : []), 500, 503),
        },
        detail: {
          tags: ['domains'],
          security:
            mode === 'accounts' ? [{ bearer: [] }, { adminToken: [] }] : [{}, { adminToken: [] }],
          operationId: 'listDomains',
          summary: 'List the short domains',
          description: `${mode === 'accounts' ? 'Needs what listing links needs (a token or an API key), or the admin token.' : 'Open to all, as the links list is; the admin token may be given too.'} Only the admin token’s answer has \`links\`, each domain’s count of links of every user.`,
        },
      },
    )
    .post(
      '/api/domains',
      async ({ body }) => {
        const name = parseDomainUrl(body.base_url);
        const rootRedirect = parseDomainRedirect(body.root_redirect) ?? null;
        const notFoundRedirect = parseDomainRedirect(body.not_found_redirect) ?? null;
        if (name.host === domains.default.host) throw badRequest(Messages.domainIsDefault);
        const made = await store.createDomain({
          ...name,
          rootRedirect,
          notFoundRedirect,
          createdAt: Date.now(),
        });
        if (made === undefined) throw badRequest(Messages.domainTaken);
        await domains.reload();
        return jsonResponse(201, DomainSchema, domainJson(shortDomain(made), 0));
      },
      {
        parse: parseJsonBody,
        transform: [admin, requireJsonObject],
        body: DomainBody,
        response: {
          201: DomainSchema,
          ...errorResponses(400, ...adminErrors, 408, 413, 500, 503),
          403: forbidden,
        },
        detail: {
          ...adminDocs,
          operationId: 'createDomain',
          summary: 'Add a short domain',
          description: `${WHO_ADMIN} Checks, in order: a JSON object, \`base_url\`, \`root_redirect\`, \`not_found_redirect\`, then that its host is not the default domain’s (\`This is the default domain, set by --base-url\`) nor another’s (\`Domain already exists\`, whatever the scheme). Point the name at kurz (DNS, and a proxy that passes \`Host\`) for its links to be followed.`,
        },
      },
    )
    .patch(
      '/api/domains/:domain',
      async ({ params, body }) => {
        const domain = await namedDomain(params.domain);
        const changes: DomainChanges = {};
        const rootRedirect = parseDomainRedirect(body.root_redirect);
        if (rootRedirect !== undefined) changes.rootRedirect = rootRedirect;
        const notFoundRedirect = parseDomainRedirect(body.not_found_redirect);
        if (notFoundRedirect !== undefined) changes.notFoundRedirect = notFoundRedirect;
        const changed = await store.updateDomain(domain.id, changes);
        if (changed === undefined) throw notFound();
        await domains.reload();
        return jsonResponse(
          200,
          DomainSchema,
          domainJson(shortDomain(changed), await linksOn(changed.id)),
        );
      },
      {
        parse: parseJsonBody,
        transform: [admin, requireJsonObject],
        params: DomainParams,
        body: DomainChangeBody,
        response: {
          200: DomainSchema,
          ...errorResponses(400, ...adminErrors, 404, 408, 413, 500, 503),
          403: forbidden,
        },
        detail: {
          ...adminDocs,
          operationId: 'updateDomain',
          summary: 'Change where a domain’s root and unknown codes go',
          description: `${WHO_ADMIN} The default domain’s answers are kurz’s own (\`This is the default domain, set by --base-url\`). Every instance follows the change within a second.`,
        },
      },
    )
    .delete(
      '/api/domains/:domain',
      async ({ params, query }) => {
        const domain = await namedDomain(params.domain);
        const withLinks = query.with_links === 'true';
        const removal = await store.deleteDomain(domain.id, withLinks);
        if (removal === 'missing') throw notFound();
        if (removal === 'in-use') throw badRequest(Messages.domainInUse);
        await domains.reload();
        if (withLinks) options.linksRemoved?.();
        return new Response(null, { status: 204 });
      },
      {
        transform: admin,
        params: DomainParams,
        query: RemovalQuery,
        response: {
          204: t.Void({ description: 'Removed (with its links, when asked).' }),
          ...errorResponses(400, ...adminErrors, 404, 500, 503),
          403: forbidden,
        },
        detail: {
          ...adminDocs,
          operationId: 'deleteDomain',
          summary: 'Remove a short domain',
          description: `${WHO_ADMIN} A domain that has links is refused (400 \`Domain still has links: move or delete them first, or remove it with_links\`) unless \`with_links=true\`, which removes them too, with their clicks. The default domain is not removed here.`,
        },
      },
    );
}
