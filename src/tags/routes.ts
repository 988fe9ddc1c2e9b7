// GET /api/tags and GET /api/tags/{tag}/stats: the tags of the caller's links, and a
// tag's traffic summed over the links that carry it. They follow the list and a link's
// stats: in accounts mode the caller's links only (another user's tag is not theirs: a
// tag none of the caller's links carries is 404, as another user's link is), in open
// mode every link, open to all.

import { Elysia } from 'elysia';
import { RangeQuery } from '../analytics/model.ts';
import { buildTraffic, MAX_RANGE_DAYS, parseRange } from '../analytics/stats.ts';
import { ownerPlugin } from '../auth/owner.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { notFound } from '../domain/errors.ts';
import { parseTag } from '../domain/tags.ts';
import { errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { Store } from '../store/store.ts';
import { TagList, TagParams, TagStats } from './model.ts';

export function tagRoutes(options: { mode: Mode; store: Store; secret: TokenKey }) {
  const { mode, store, secret } = options;
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);
  const docs = {
    tags: ['tags'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };
  const whose = mode === 'accounts' ? 'your links' : 'all links';

  return new Elysia({ name: 'kurz/tags', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .get(
      '/api/tags',
      async ({ owner }) => {
        const tags = await store.listTags(owner);
        return jsonResponse(
          200,
          TagList,
          tags.map(({ tag, links, clicks }) => ({ tag, links, clicks })),
        );
      },
      {
        response: { 200: TagList, ...errorResponses(...authErrors, 500, 503) },
        detail: {
          ...docs,
          operationId: 'listTags',
          summary: `Tags of ${whose}`,
          description: `Every tag ${mode === 'accounts' ? 'your links carry' : 'a link carries'}, with how many links carry it and their clicks of all time. The whole list in one answer (not paged).`,
        },
      },
    )
    .get(
      '/api/tags/:tag/stats',
      async ({ params, owner, request }) => {
        const tag = parseTag(params.tag);
        const range = parseRange(new URL(request.url).searchParams, Date.now());
        const traffic = await store.tagTraffic(tag, owner, range.from, range.to);
        if (traffic === undefined) throw notFound();
        // Rolled-up and pending counts of many links: buildTraffic adds them up.
        const counts = [...traffic.days, ...traffic.pending];
        return jsonResponse(200, TagStats, {
          tag,
          links: traffic.links,
          ...buildTraffic(traffic.clicks, range, counts),
        });
      },
      {
        params: TagParams,
        query: RangeQuery,
        response: {
          200: TagStats,
          ...errorResponses(400, ...authErrors, 404, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'getTagStats',
          summary: 'Traffic of a tag',
          description: `The traffic of ${whose} that carry the tag, summed, as a link's stats show it${mode === 'accounts' ? '; a tag none of your links carries is 404' : '; a tag no link carries is 404'}. UTC days; the default range is the last 30 days, at most ${MAX_RANGE_DAYS}. Every click committed is in it, rolled up or not; a link's clicks count for the tags it carries now.`,
        },
      },
    );
}
