// The shapes of reports: what POST /api/reports takes and answers, and a report as the
// admin API lists it and the `report.created` webhook message carries it (one shape, so
// an operator's alert and the queue say the same).

import { Type } from '@sinclair/typebox';
import { type Static, t } from 'elysia';
import {
  parseReportBody,
  REPORT_ACTIONS,
  REPORT_DETAILS_MAX_LENGTH,
  REPORT_REASONS,
  type ReportEventRecord,
} from '../domain/reports.ts';
import { bodyError } from '../http/model.ts';
import type { DomainOf } from '../links/link-json.ts';
import type { ReportView } from '../store/reports.ts';

const error = bodyError(parseReportBody);

export const ReportBody = t.Object(
  {
    code: t.Optional(
      t.String({ error, description: 'The short code (with `domain`, when not the default one).' }),
    ),
    domain: t.Optional(
      t.String({
        error,
        description: 'The short domain of `code`: a host or base URL (absent: the default one).',
      }),
    ),
    short_url: t.Optional(
      t.String({ error, description: 'The whole short URL, in place of `code` and `domain`.' }),
    ),
    reason: t.UnionEnum(REPORT_REASONS, {
      error,
      default: undefined,
      description: 'What is wrong with the link.',
    }),
    details: t.Optional(
      t.Union([t.String({ maxLength: REPORT_DETAILS_MAX_LENGTH, error }), t.Null({ error })], {
        error,
        description: 'Anything the operator should know, at most 1000 characters.',
      }),
    ),
  },
  { title: 'ReportRequest', error, description: '`code` or `short_url` names the link.' },
);

export const ReportReceived = t.Object(
  {
    id: Type.Integer(),
    status: t.Literal('received'),
  },
  { title: 'ReportReceived', description: 'The report was stored for the operator to see.' },
);

const nullableDate = t.Union([t.String({ format: 'date-time' }), t.Null()]);

export const ReportSchema = t.Object(
  {
    id: Type.Integer(),
    code: t.String(),
    short_url: t.String(),
    domain: t.String({ description: 'The short domain (its host).' }),
    reason: t.UnionEnum(REPORT_REASONS, { default: undefined }),
    details: t.Union([t.String(), t.Null()]),
    created_at: t.String({ format: 'date-time' }),
    resolved_at: nullableDate,
    resolution: t.Union([...REPORT_ACTIONS.map((action) => t.Literal(action)), t.Null()], {
      description: 'How an admin resolved it; null while it waits.',
    }),
    link: t.Union(
      [
        t.Object({
          original_url: t.String(),
          disabled: t.Boolean(),
          owner: t.Union([t.Object({ id: Type.Integer(), email: t.String() }), t.Null()], {
            description: 'null: a link of open mode, which belongs to no one.',
          }),
          clicks: Type.Integer({ minimum: 0 }),
        }),
        t.Null(),
      ],
      { description: 'The link as it is now; null once it is removed.' },
    ),
  },
  { title: 'Report', description: 'A report of an abusive link, as an admin sees it.' },
);

export type ReportJson = Static<typeof ReportSchema>;

/** A report as the admin API shows it; a `report.created` record (no resolution yet) too. */
export function reportJson(report: ReportView | ReportEventRecord, domainOf: DomainOf): ReportJson {
  const domain = domainOf(report.domainId);
  const resolved = 'resolvedAt' in report ? report : undefined;
  return {
    id: report.id,
    code: report.shortCode,
    short_url: `${domain.baseUrl}/${report.shortCode}`,
    domain: domain.host,
    reason: report.reason,
    details: report.details,
    created_at: new Date(report.createdAt).toISOString(),
    resolved_at: resolved?.resolvedAt == null ? null : new Date(resolved.resolvedAt).toISOString(),
    resolution: resolved?.resolution ?? null,
    link:
      report.link === null
        ? null
        : {
            original_url: report.link.originalUrl,
            disabled: report.link.disabled,
            owner: report.link.owner,
            clicks: report.link.clicks,
          },
  };
}
