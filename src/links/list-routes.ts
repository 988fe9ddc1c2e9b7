// GET /api/links in both modes (the owner macro decides whose): the whole list, streamed,
// or a page of it; filtered, ordered and in full with the parameters of list-query.ts.
// Without any of those, the answer is what it always was, from the same queries.

import { Elysia } from 'elysia';
import { ownerPlugin } from '../auth/owner.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { errorResponses } from '../http/model.ts';
import { JSON_TYPE, jsonResponse } from '../http/responses.ts';
import { COUNTED_AHEAD, type LinkSearch } from '../store/link-search.ts';
import type { Store } from '../store/store.ts';
import { hiddenTargets, type TargetView } from './hidden-targets.ts';
import { linkDetailToJson, linkToJson } from './link-json.ts';
import { ListQuery, listSchema } from './list-model.ts';
import { type ListSearch, parseListSearch } from './list-query.ts';
import { LIST_CHUNK, linkArrayStream } from './list-stream.ts';
import { nextPageLink, type Page, parsePage } from './paging.ts';

export interface ListRoutesOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  /** The short domains, which `?domain=` names; asked for only when it is given. */
  domains: DomainRegistry;
  /** Open mode's admin token: only a reader with it sees the targets of password links. */
  adminToken?: string;
}

export function listRoutes(options: ListRoutesOptions) {
  const { mode, store, secret } = options;
  const toJson = linkToJson(mode);
  const toDetailJson = linkDetailToJson(mode, options.domains.domainOf);
  const List = listSchema(mode);
  const viewOf = hiddenTargets({
    mode,
    adminToken: options.adminToken,
    store,
    domainOf: options.domains.domainOf,
  });
  const docs = {
    tags: ['links'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);

  /** The list as it always was: newest first, streamed when whole. */
  async function plainList(owner: number | null, page: Page, view: TargetView) {
    // The whole list is streamed: its first chunk is read with the total, in one
    // transaction, and the rest after it (newer links made meanwhile are not in it).
    const whole = page.limit === undefined;
    const limit = whole ? LIST_CHUNK : page.limit;
    const listed = await store.listLinks({ owner, limit, offset: page.offset });
    const { total } = listed;
    const links = await view.links(listed.links);
    const headers: Record<string, string> = { 'x-total-count': String(total) };
    const next = nextPageLink(page, total);
    if (next !== undefined) headers.link = next;
    if (!whole || links.length < LIST_CHUNK) {
      return jsonResponse(200, List, links.map(toJson), headers);
    }
    let last = links.at(-1);
    const body = linkArrayStream({
      first: links,
      async next() {
        if (last === undefined) return [];
        const after = { createdAt: last.createdAt, id: last.id };
        const chunk = await store.listLinksAfter({ owner, after, limit: LIST_CHUNK });
        last = chunk.at(-1);
        return view.links(chunk);
      },
      toJson,
    });
    return new Response(body, { headers: { 'content-type': JSON_TYPE, ...headers } });
  }

  /** A part of a searched list as JSON (links, or their details with view=full). */
  async function found(part: LinkSearch, full: boolean, view: TargetView) {
    if (!full) {
      const { links, total, bounded, last } = await store.searchLinks(part);
      return { items: (await view.links(links)).map(toJson), total, bounded, last };
    }
    const { links, total, bounded, last } = await store.searchLinkDetails(part);
    return { items: view.details(links).map(toDetailJson), total, bounded, last };
  }

  /** A searched list: a page, or the whole of it, streamed in chunks after cursors. */
  async function searchedList(
    owner: number | null,
    page: Page,
    search: ListSearch,
    view: TargetView,
  ) {
    const whole = page.limit === undefined;
    const query: LinkSearch = {
      owner,
      text: search.text,
      domainId: search.domainId,
      tag: search.tag,
      sort: search.sort,
      descending: search.descending,
      limit: page.limit ?? LIST_CHUNK,
    };
    const first = await found({ ...query, offset: page.offset }, search.full, view);
    const total = first.total ?? 0;
    const headers: Record<string, string> = { 'x-total-count': String(total) };
    if (first.bounded) headers['x-total-count-exact'] = 'false';
    const next = nextPageLink(page, total, search.query);
    if (next !== undefined) headers.link = next;
    if (!whole || first.items.length < LIST_CHUNK) {
      return jsonResponse(200, List, first.items, headers);
    }
    let after = first.last;
    const body = linkArrayStream({
      first: first.items,
      async next() {
        const chunk = await found({ ...query, after }, search.full, view);
        after = chunk.last;
        return chunk.items;
      },
      toJson: (json) => json,
    });
    return new Response(body, { headers: { 'content-type': JSON_TYPE, ...headers } });
  }

  return new Elysia({ name: 'kurz/link-list', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .get(
      '/api/links',
      async ({ request, owner }) => {
        const at = request.url.indexOf('?');
        const params = new URLSearchParams(at === -1 ? '' : request.url.slice(at));
        const page = parsePage(params);
        const domains = params.has('domain') ? options.domains : undefined;
        const search = parseListSearch(params, (name) => domains?.find(name)?.id);
        const view = viewOf(request);
        return search === undefined
          ? plainList(owner, page, view)
          : searchedList(owner, page, search, view);
      },
      {
        query: ListQuery,
        response: {
          200: List,
          ...errorResponses(400, ...authErrors, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'listLinks',
          summary: mode === 'accounts' ? 'List your links' : 'List all links',
          description:
            'Newest first (created_at, then id). Without parameters, the whole list; `limit` and `offset` page it. `q`, `domain` and `tag` filter it (together, each narrowing it), `sort` and `order` order it, `view=full` gives each link with its settings. Every answer has `X-Total-Count` (the links the filters let through; with `q`, counted up to ' +
            COUNTED_AHEAD +
            ' past the offset, and when more match it is that bound and `X-Total-Count-Exact: false` says so); a page with more after it has `Link: </api/links?limit=N&offset=M>; rel="next"`, with the filters, order and view given. Checks, in order: `limit` and `offset`, `q`, `domain`, `tag`, `sort` and `order`, `view`.' +
            (mode === 'open'
              ? ' A link with a password shows its own `short_url` as `original_url` (and, with `view=full`, no rules, variants or preview) unless the admin token is given.'
              : ''),
        },
      },
    );
}
