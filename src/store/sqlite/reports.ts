// Reports on SQLite: made with their `report.created` outbox messages in one transaction,
// listed newest first with their links as they are now, and resolved once. Statements
// are prepared once, as everywhere in this store.

import type { Database } from 'bun:sqlite';
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
import { CLICKS_COLUMN, CLICKS_JOINS, CLICKS_OF_LINKS } from './click-counts.ts';
import { writeTransaction } from './open.ts';

/** The report with its link, while a link of that id still holds its code. */
const VIEW = `${CLICKS_OF_LINKS}
  SELECT r.id, r.link_id AS linkId, r.domain_id AS domainId, r.short_code AS shortCode,
         r.reason, r.details, r.created_at AS createdAt, r.resolved_at AS resolvedAt,
         r.resolution, r.resolved_by AS resolvedBy, l.original_url AS originalUrl,
         l.disabled_at AS disabledAt, u.id AS ownerId, u.email AS ownerEmail, ${CLICKS_COLUMN}
  FROM reports r
  LEFT JOIN links l ON l.id = r.link_id AND l.short_code = r.short_code
                   AND l.domain_id = r.domain_id
  LEFT JOIN users u ON u.id = l.user_id
  ${CLICKS_JOINS}`;

const WHERE = {
  waiting: 'WHERE r.resolved_at IS NULL',
  resolved: 'WHERE r.resolved_at IS NOT NULL',
  all: '',
} as const;

const COUNT = {
  waiting: 'SELECT count(*) AS n FROM reports WHERE resolved_at IS NULL',
  resolved: 'SELECT count(*) AS n FROM reports WHERE resolved_at IS NOT NULL',
  all: 'SELECT count(*) AS n FROM reports',
} as const;

export function sqliteReports(sqlite: Database) {
  const insert = sqlite.prepare<
    { id: number },
    [number | null, number, string, string, string | null, number]
  >(
    `INSERT INTO reports (link_id, domain_id, short_code, reason, details, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const byId = sqlite.prepare<ReportRow, [number]>(`${VIEW} WHERE r.id = ?`);
  const pages = {
    waiting: sqlite.prepare<ReportRow, [number, number]>(
      `${VIEW} ${WHERE.waiting} ORDER BY r.id DESC LIMIT ? OFFSET ?`,
    ),
    resolved: sqlite.prepare<ReportRow, [number, number]>(
      `${VIEW} ${WHERE.resolved} ORDER BY r.id DESC LIMIT ? OFFSET ?`,
    ),
    all: sqlite.prepare<ReportRow, [number, number]>(`${VIEW} ORDER BY r.id DESC LIMIT ? OFFSET ?`),
  };
  const totals = {
    waiting: sqlite.prepare<{ n: number }, []>(COUNT.waiting),
    resolved: sqlite.prepare<{ n: number }, []>(COUNT.resolved),
    all: sqlite.prepare<{ n: number }, []>(COUNT.all),
  };
  // The webhooks of admins still enabled, and open mode's (no one's), that want the event.
  const enqueue = sqlite.prepare<unknown, [string, number, string]>(
    `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
     SELECT w.id, 'report.created', ?1, ?2, ?2 FROM webhooks w
     LEFT JOIN users u ON u.id = w.user_id
     WHERE instr(',' || w.events || ',', ?3) > 0
       AND (w.user_id IS NULL OR (u.admin = 1 AND u.disabled_at IS NULL))`,
  );
  const resolve = sqlite.prepare<unknown, [number, string, number | null, number]>(
    `UPDATE reports SET resolved_at = ?, resolution = ?, resolved_by = ?
     WHERE id = ? AND resolved_at IS NULL`,
  );
  const statements = [
    insert,
    byId,
    enqueue,
    resolve,
    ...Object.values(pages),
    ...Object.values(totals),
  ];

  const find = (id: number): ReportView | undefined => {
    const row = byId.get(id);
    return row === null ? undefined : viewOf(row);
  };

  return {
    operations: {
      createReport: writeTransaction(sqlite, (report: NewReport): ReportView => {
        const row = insert.get(
          report.linkId,
          report.domainId,
          report.shortCode,
          report.reason,
          report.details,
          report.createdAt,
        );
        const view = row === null ? undefined : find(row.id);
        if (view === undefined) throw new Error('report not stored');
        enqueue.run(reportRecord(view), report.createdAt, wantedNeedle('report.created'));
        return view;
      }),

      listReports(query: ReportQuery): { reports: ReportView[]; total: number } {
        const rows = pages[query.status].all(query.limit ?? -1, query.offset);
        return { reports: rows.map(viewOf), total: totals[query.status].get()?.n ?? 0 };
      },

      findReport: find,

      resolveReport: writeTransaction(
        sqlite,
        (
          id: number,
          resolution: { at: number; action: Report['resolution'] & string; by: number | null },
        ): ResolvedReport => {
          const changed = resolve.run(resolution.at, resolution.action, resolution.by, id).changes;
          if (changed > 0) return find(id);
          return find(id) === undefined ? undefined : 'already-resolved';
        },
      ),
    },
    finalize(): void {
      for (const statement of statements) statement.finalize();
    },
  };
}
