// Reports on PostgreSQL: made with their `report.created` outbox messages in one
// transaction (which webhooks want it is read there, so a webhook registered on another
// instance counts at once), listed newest first with their links as they are now, and
// resolved once: the UPDATE's own condition decides between two admins at once.

import type { SQL } from 'bun';
import { wantedNeedle } from '../outbox.ts';
import {
  type NewReport,
  type Report,
  type ReportQuery,
  type ReportRow,
  type ReportView,
  type ResolvedReport,
  reportRecord,
  viewOf,
} from '../reports.ts';

/** The report with its link, while a link of that id still holds its code. */
const VIEW = `
  SELECT r.id, r.link_id AS "linkId", r.domain_id AS "domainId", r.short_code AS "shortCode",
         r.reason, r.details, r.created_at::float8 AS "createdAt",
         r.resolved_at::float8 AS "resolvedAt", r.resolution, r.resolved_by AS "resolvedBy",
         l.original_url AS "originalUrl", l.disabled_at::float8 AS "disabledAt",
         u.id AS "ownerId", u.email AS "ownerEmail",
         CASE WHEN l.id IS NULL THEN 0 ELSE
           (SELECT coalesce(sum(c.clicks), 0)::float8 FROM link_clicks c WHERE c.link_id = l.id)
         END AS clicks
  FROM reports r
  LEFT JOIN links l ON l.id = r.link_id AND l.short_code = r.short_code
                   AND l.domain_id = r.domain_id
  LEFT JOIN users u ON u.id = l.user_id`;

const WHERE = {
  waiting: 'WHERE r.resolved_at IS NULL',
  resolved: 'WHERE r.resolved_at IS NOT NULL',
  all: '',
} as const;

export class PostgresReports {
  constructor(private readonly client: SQL) {}

  async createReport(report: NewReport): Promise<ReportView> {
    return this.client.begin(async (tx) => {
      const [row]: { id: number }[] = await tx`
        INSERT INTO reports (link_id, domain_id, short_code, reason, details, created_at)
        VALUES (${report.linkId}, ${report.domainId}, ${report.shortCode}, ${report.reason},
                ${report.details}, ${report.createdAt})
        RETURNING id`;
      const view = row === undefined ? undefined : await find(tx, row.id);
      if (view === undefined) throw new Error('report not stored');
      // The webhooks of admins still enabled, and open mode's (no one's), that want it.
      await tx.unsafe(
        `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
         SELECT w.id, 'report.created', $1, $2, $2 FROM webhooks w
         LEFT JOIN users u ON u.id = w.user_id
         WHERE strpos(',' || w.events || ',', $3) > 0
           AND (w.user_id IS NULL OR (u.admin AND u.disabled_at IS NULL))`,
        [reportRecord(view), report.createdAt, wantedNeedle('report.created')],
      );
      return view;
    });
  }

  async listReports(query: ReportQuery): Promise<{ reports: ReportView[]; total: number }> {
    const where = WHERE[query.status];
    const [rows, [count]] = await Promise.all([
      this.client.unsafe(`${VIEW} ${where} ORDER BY r.id DESC LIMIT $1 OFFSET $2`, [
        query.limit ?? null,
        query.offset,
      ]) as Promise<ReportRow[]>,
      this.client.unsafe(`SELECT count(*)::float8 AS n FROM reports r ${where}`) as Promise<
        { n: number }[]
      >,
    ]);
    return { reports: rows.map(viewOf), total: count?.n ?? 0 };
  }

  findReport(id: number): Promise<ReportView | undefined> {
    return find(this.client, id);
  }

  async resolveReport(
    id: number,
    resolution: { at: number; action: NonNullable<Report['resolution']>; by: number | null },
  ): Promise<ResolvedReport> {
    const changed = await this.client`
      UPDATE reports SET resolved_at = ${resolution.at}, resolution = ${resolution.action},
                         resolved_by = ${resolution.by}
      WHERE id = ${id} AND resolved_at IS NULL RETURNING id`;
    const view = await find(this.client, id);
    if (changed.length > 0) return view;
    return view === undefined ? undefined : 'already-resolved';
  }
}

async function find(sql: SQL, id: number): Promise<ReportView | undefined> {
  const [row] = (await sql.unsafe(`${VIEW} WHERE r.id = $1`, [id])) as Parameters<
    typeof viewOf
  >[0][];
  return row === undefined ? undefined : viewOf(row);
}
