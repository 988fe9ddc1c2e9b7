// /api/admin/reports: the queue of reports of abusive links, and their resolution
// (disable the link, disable its owner and the link, or dismiss), for admins only
// (authorisation.ts). What a resolution does to links and users goes through
// AdminActions, as the admin's own changes do.

import { Elysia, t } from 'elysia';
import { badRequest, Messages, notFound } from '../domain/errors.ts';
import {
  DISABLED_REASON_MAX_LENGTH,
  parseResolution,
  REPORT_ACTIONS,
  REPORT_STATUSES,
  type ReportStatus,
} from '../domain/reports.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { bodyError, errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import type { Domains } from '../links/link-domain.ts';
import { MAX_PAGE, parseLimit, parseOffset } from '../links/paging.ts';
import { ReportSchema, reportJson } from '../reports/model.ts';
import type { ReportView } from '../store/reports.ts';
import type { AdminActions } from './actions.ts';
import { type AdminAccessOptions, adminPlugin, adminSecurity, adminWho } from './authorisation.ts';
import { pagedList } from './model.ts';

export type AdminReportRoutesOptions = AdminAccessOptions & {
  domains: Domains;
  actions: AdminActions;
};

const Reports = pagedList(ReportSchema, 'The reports, newest first.');

const ReportQuery = t.Object({
  status: t.Optional(
    t.String({
      description: 'waiting (the default: not resolved yet), resolved, or all.',
      examples: ['waiting'],
    }),
  ),
  limit: t.Optional(
    t.String({ description: `Page size, 1 to ${MAX_PAGE}; 100 when absent.`, examples: ['100'] }),
  ),
  offset: t.Optional(t.String({ description: 'Entries to skip, 0 or more.', examples: ['0'] })),
});

const ReportParams = t.Object({ id: t.String({ description: 'The report’s id.' }) });

const resolutionError = bodyError(parseResolution);

const ResolveBody = t.Object(
  {
    action: t.UnionEnum(REPORT_ACTIONS, {
      default: undefined,
      error: resolutionError,
      description:
        'disable_link: the link answers 410 from now on; disable_user: its owner’s account too (accounts mode); dismiss: nothing is done.',
    }),
    reason: t.Optional(
      t.Union(
        [
          t.String({ maxLength: DISABLED_REASON_MAX_LENGTH, error: resolutionError }),
          t.Null({ error: resolutionError }),
        ],
        {
          error: resolutionError,
          description: 'Shown on the disabled link’s page, at most 500 characters.',
        },
      ),
    ),
    block_host: t.Optional(
      t.Boolean({
        error: resolutionError,
        description: 'With a disabling action: the target’s host joins the blocklist too.',
      }),
    ),
  },
  { title: 'ReportResolution', error: resolutionError },
);

function statusOf(value: string | undefined): ReportStatus {
  if (value === undefined || value === '') return 'waiting';
  if (!(REPORT_STATUSES as readonly string[]).includes(value)) {
    throw badRequest(Messages.reportStatusRule);
  }
  return value as ReportStatus;
}

export function adminReportRoutes(options: AdminReportRoutesOptions) {
  const { mode, store, domains, actions } = options;
  const refusals = [401, 403] as const;
  const docs = (summary: string, operationId: string, more: string) => ({
    tags: ['admin'],
    security: adminSecurity(mode),
    operationId,
    summary,
    description: `${adminWho(mode)} ${more}`,
  });
  const json = (report: ReportView) => reportJson(report, domains.domainOf);

  return new Elysia({ name: 'kurz/admin-reports', seed: mode })
    .use(adminPlugin(options))
    .get(
      '/api/admin/reports',
      async ({ query }) => {
        const status = statusOf(query.status);
        const limit = query.limit === undefined ? 100 : parseLimit(query.limit);
        const offset = query.offset === undefined ? 0 : parseOffset(query.offset);
        const page = await store.listReports({ status, limit, offset });
        return jsonResponse(200, Reports, page.reports.map(json), {
          'x-total-count': String(page.total),
        });
      },
      {
        query: ReportQuery,
        response: { 200: Reports, ...errorResponses(400, ...refusals, 500, 503) },
        detail: docs(
          'The reports of abusive links',
          'adminListReports',
          'Newest first; `X-Total-Count` is the number of the status. Checks, in order: `status`, `limit` and `offset`.',
        ),
      },
    )
    .post(
      '/api/admin/reports/:id/resolve',
      async ({ params, body, admin }) => {
        const id = /^\d{1,9}$/.test(params.id) ? Number(params.id) : undefined;
        const report = id === undefined ? undefined : await store.findReport(id);
        if (report === undefined) throw notFound();
        if (report.resolvedAt !== null) throw badRequest(Messages.reportResolved);
        const { action, reason, blockHost } = parseResolution(body);
        if (action !== 'dismiss') {
          const link = await store.findLinkDetail(report.shortCode, report.domainId);
          // The code may hold another link by now: only the one reported is acted on.
          const reported = link !== undefined && link.id === report.linkId ? link : undefined;
          if (action === 'disable_user') {
            if (mode !== 'accounts' || reported?.userId == null) {
              throw badRequest(Messages.reportNoOwner);
            }
            await actions.changeUser(reported.userId, { disabled: true }, admin);
          }
          if (reported !== undefined) {
            await actions.setLinkDisabled(reported, { reason, blockHost }, admin);
          }
        }
        const resolved = await store.resolveReport(report.id, {
          at: Date.now(),
          action,
          by: admin.userId,
        });
        if (resolved === undefined) throw notFound();
        if (resolved === 'already-resolved') throw badRequest(Messages.reportResolved);
        return jsonResponse(200, ReportSchema, json(resolved));
      },
      {
        parse: parseJsonBody,
        transform: requireJsonObject,
        params: ReportParams,
        body: ResolveBody,
        response: {
          200: ReportSchema,
          ...errorResponses(400, ...refusals, 408, 413, 500, 503),
          404: errorResponse(404, { description: '`Not found`: no report has this id.' }),
        },
        detail: docs(
          'Resolve a report',
          'adminResolveReport',
          'Checks, in order: the report (404; `Report already resolved`), then the body. `disable_link` disables the reported link (as POST /api/admin/links/{code}/disable does: 410 on every instance, `link.updated` to its owner’s webhooks; `block_host` adds its target’s host to the blocklist); `disable_user` also disables its owner’s account (400 `The link has no owner to disable` for a link of no one, as in open mode); `dismiss` changes nothing. A link removed since is left as it is. Answers the report, resolved.',
        ),
      },
    );
}
