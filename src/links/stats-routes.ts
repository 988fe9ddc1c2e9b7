// GET /api/links/{code}/stats and /api/links/{code}/clicks.csv: a link's traffic. They
// follow the list: the owner only in accounts mode, open in open mode.

import { Elysia, t } from 'elysia';
import { DayTally, UNKNOWN_COUNTRY } from '../analytics/fold.ts';
import { LinkStats, RANGE_FIELDS } from '../analytics/model.ts';
import { referrerHost } from '../analytics/referrers.ts';
import { buildStats, MAX_RANGE_DAYS, parseRange } from '../analytics/stats.ts';
import { describeAgent } from '../analytics/user-agents.ts';
import { ownerPlugin } from '../auth/owner.ts';
import type { TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import type { ClickRow } from '../domain/clicks.ts';
import { DEFAULT_ROUTE } from '../domain/clicks.ts';
import { Messages } from '../domain/errors.ts';
import { errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { Store } from '../store/store.ts';
import { DomainQuery, type Domains, domainQueryField } from './link-domain.ts';
import { visibleLink } from './manage-routes.ts';
import { CodeParams } from './model.ts';

/** Records per read while the CSV streams: memory stays flat whatever the link's clicks. */
const CSV_CHUNK = 2000;

const CSV_HEADER =
  'time,source,query_source,referrer,referrer_host,browser,os,device,country,bot,route\n';

export function statsRoutes(options: {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  domains: Domains;
}) {
  const { mode, store, secret, domains } = options;
  const authErrors = mode === 'accounts' ? ([401] as const) : ([] as const);
  const docs = {
    tags: ['stats'],
    ...(mode === 'accounts' ? { security: [{ bearer: [] }] } : {}),
  };
  const who =
    mode === 'accounts'
      ? 'Only the owner: another user’s link is 404.'
      : 'Open to all, as the list is.';

  return new Elysia({ name: 'kurz/stats', seed: mode })
    .use(ownerPlugin({ mode, secret, store }))
    .get(
      '/api/links/:code/stats',
      async ({ params, owner, request }) => {
        const query = new URL(request.url).searchParams;
        const range = parseRange(query, Date.now());
        const link = await visibleLink(store, domains, request, params.code, owner);
        const traffic = await store.linkTraffic(link.id, range.from, range.to);
        const tally = new DayTally();
        for (const row of traffic.days) tally.addCount(row);
        for (const row of traffic.pending) tally.addCount(row);
        const stats = buildStats(link.shortCode, link.clicks, range, tally.rows());
        // The domain beside the code that it makes unique.
        const domain = domains.domainOf(link.domainId).host;
        const { short_code, ...rest } = stats;
        return jsonResponse(200, LinkStats, { short_code, domain, ...rest });
      },
      {
        params: CodeParams,
        // Read and checked by parseRange, which names the rule: a schema's own refusal would not.
        query: t.Object({ ...domainQueryField, ...RANGE_FIELDS }, { error: Messages.statsRange }),
        response: {
          200: LinkStats,
          ...errorResponses(400, ...authErrors, 404, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'getLinkStats',
          summary: 'Traffic of a link',
          description: `${who} UTC days; the default range is the last 30 days, at most ${MAX_RANGE_DAYS}. Every click committed is in it, rolled up or not.`,
        },
      },
    )
    .get(
      '/api/links/:code/clicks.csv',
      async ({ params, owner, request }) => {
        const link = await visibleLink(store, domains, request, params.code, owner);
        // The domain names the file when it is not the default one: `promo` may be on two.
        const domain = domains.domainOf(link.domainId);
        const name = domain.isDefault ? link.shortCode : `${domain.host}-${link.shortCode}`;
        return new Response(csvStream(store, link.id), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}-clicks.csv"`,
            'cache-control': 'private, no-store',
          },
        });
      },
      {
        params: CodeParams,
        query: DomainQuery,
        response: {
          200: t.String({
            contentMediaType: 'text/csv',
            description: `RFC 4180, oldest first, with a header row: ${CSV_HEADER.trim()}. \`time\` is ISO 8601 UTC; \`bot\` is true or false. Records removed by \`--click-retention-days\` are not in it.`,
          }),
          ...errorResponses(400, ...authErrors, 404, 500, 503),
        },
        detail: {
          ...docs,
          operationId: 'getLinkClicksCsv',
          summary: 'Click records of a link, as CSV',
          description: `${who} Streamed a chunk at a time, so any number of records is sent in flat memory.`,
        },
      },
    );
}

/** The records as CSV, read a chunk at a time as the client takes them. */
function csvStream(store: Store, linkId: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(CSV_HEADER));
      }
      const rows = await store.clickRows(linkId, after, CSV_CHUNK);
      if (rows.length > 0) {
        after = (rows.at(-1) as ClickRow).id;
        controller.enqueue(encoder.encode(rows.map(csvLine).join('')));
      }
      if (rows.length < CSV_CHUNK) controller.close();
    },
  });
}

function csvLine(row: ClickRow): string {
  const agent = describeAgent(row.userAgent);
  return `${[
    new Date(row.createdAt).toISOString(),
    row.source ?? '',
    row.querySource ?? '',
    row.referrer ?? '',
    referrerHost(row.referrer),
    agent.browser,
    agent.os,
    agent.device,
    row.country ?? UNKNOWN_COUNTRY,
    String(agent.bot),
    row.route ?? DEFAULT_ROUTE,
  ]
    .map(csvField)
    .join(',')}\n`;
}

/**
 * RFC 4180 quoting; a field a spreadsheet would run as a formula (= + - @ at its start)
 * is prefixed with ', so a crafted referrer or source cannot become one (OWASP's advice).
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
