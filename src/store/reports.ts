// The reports area of the store's contract (store.ts composes it): reports of abusive
// links, made by anyone and resolved by an admin. Engines: sqlite/reports.ts and
// postgres/reports.ts.

import type {
  ReportAction,
  ReportEventRecord,
  ReportReason,
  ReportStatus,
} from '../domain/reports.ts';

/** A report as kept. */
export interface Report {
  id: number;
  /** The link reported; null once it is removed (a report outlives its link). */
  linkId: number | null;
  domainId: number;
  shortCode: string;
  reason: ReportReason;
  details: string | null;
  createdAt: number;
  /** null while it waits. */
  resolvedAt: number | null;
  resolution: ReportAction | null;
  /** The admin who resolved it; null: the admin token (or not resolved). */
  resolvedBy: number | null;
}

/** What an admin is shown of a reported link, while it exists. */
export interface ReportedLinkView {
  originalUrl: string;
  disabled: boolean;
  owner: { id: number; email: string } | null;
  clicks: number;
}

/** A report with its link as it is now (null: removed). */
export interface ReportView extends Report {
  link: ReportedLinkView | null;
}

export type NewReport = Pick<
  Report,
  'linkId' | 'domainId' | 'shortCode' | 'reason' | 'details' | 'createdAt'
>;

export interface ReportQuery {
  status: ReportStatus;
  limit?: number;
  offset: number;
}

/** What became of a resolution: the report resolved, none of that id, or one resolved before. */
export type ResolvedReport = ReportView | undefined | 'already-resolved';

export interface ReportStore {
  /**
   * Stores a report and, in the same transaction, puts a `report.created` message (the
   * report and its link as they are then: domain/reports.ts's ReportEventRecord) in the
   * outbox of every webhook that wants it and belongs to an admin or to no one (open mode).
   */
  createReport(report: NewReport): Promise<ReportView>;
  /** A page of reports, newest first, with the total of the status. */
  listReports(query: ReportQuery): Promise<{ reports: ReportView[]; total: number }>;
  findReport(id: number): Promise<ReportView | undefined>;
  /**
   * Marks a waiting report resolved (exactly once, even when two admins resolve it at
   * once: the loser gets 'already-resolved').
   */
  resolveReport(
    id: number,
    resolution: { at: number; action: ReportAction; by: number | null },
  ): Promise<ResolvedReport>;
}

/** A report's row as both engines read it: the report, and its link's columns (null: gone). */
export type ReportRow = Report & {
  originalUrl: string | null;
  disabledAt: number | null;
  ownerId: number | null;
  ownerEmail: string | null;
  clicks: number;
};

export function viewOf(row: ReportRow): ReportView {
  const { originalUrl, disabledAt, ownerId, ownerEmail, clicks, ...report } = row;
  return {
    ...report,
    link:
      originalUrl === null
        ? null
        : {
            originalUrl,
            disabled: disabledAt !== null,
            owner: ownerId === null ? null : { id: ownerId, email: ownerEmail as string },
            clicks,
          },
  };
}

/** The `report.created` record of a report just made (domain/reports.ts). */
export function reportRecord(view: ReportView): string {
  const record: ReportEventRecord = {
    id: view.id,
    domainId: view.domainId,
    shortCode: view.shortCode,
    reason: view.reason,
    details: view.details,
    createdAt: view.createdAt,
    link: view.link,
  };
  return JSON.stringify(record);
}
