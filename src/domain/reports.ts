// The rules of a report of an abusive link (POST /api/reports) and of its resolution by
// an admin, and the record a `report.created` webhook message is made from.

import { badRequest, Messages } from './errors.ts';

/** Why a link is reported, in the order the report page and the messages list them. */
export const REPORT_REASONS = ['phishing', 'malware', 'spam', 'illegal', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REPORT_DETAILS_MAX_LENGTH = 1000;

/** How an admin resolves a report. */
export const REPORT_ACTIONS = ['disable_link', 'disable_user', 'dismiss'] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];

/** The reason an admin gives when disabling a link (shown on its disabled page). */
export const DISABLED_REASON_MAX_LENGTH = 500;

/** Which reports a list shows. */
export const REPORT_STATUSES = ['waiting', 'resolved', 'all'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** The link a report names: by code (and short domain), or by its short URL. */
export type ReportedLink = { code: string; domain: string | undefined } | { shortUrl: string };

/** A report's body, parsed: which link, why, and what the reporter adds. */
export interface ReportBody {
  link: ReportedLink;
  reason: ReportReason;
  details: string | null;
}

/**
 * Parses the body of POST /api/reports, in the order the messages are documented: the
 * link (code or short_url), the reason, the details. A code that cannot be one is not a
 * 400: no link has it (404), as with any unknown code.
 */
export function parseReportBody(body: Record<string, unknown>): ReportBody {
  const { code, domain, short_url: shortUrl, reason, details } = body;
  let link: ReportedLink;
  if (typeof code === 'string' && code !== '') {
    link = { code, domain: typeof domain === 'string' && domain !== '' ? domain : undefined };
  } else if (typeof shortUrl === 'string' && shortUrl !== '') {
    link = { shortUrl };
  } else {
    throw badRequest(Messages.reportLinkRequired);
  }
  if (typeof reason !== 'string' || !(REPORT_REASONS as readonly string[]).includes(reason)) {
    throw badRequest(Messages.reportReasonRule);
  }
  if (
    details !== undefined &&
    details !== null &&
    (typeof details !== 'string' || [...details].length > REPORT_DETAILS_MAX_LENGTH)
  ) {
    throw badRequest(Messages.reportDetailsRule);
  }
  const text = typeof details === 'string' && details.trim() !== '' ? details : null;
  return { link, reason: reason as ReportReason, details: text };
}

/** A resolution's body, parsed. */
export interface Resolution {
  action: ReportAction;
  /** The reason shown on the disabled page (disable_link, disable_user); null: none. */
  reason: string | null;
  /** Whether the link's target host joins the blocklist (with a disabling action). */
  blockHost: boolean;
}

export function parseResolution(body: Record<string, unknown>): Resolution {
  const { action, reason, block_host: blockHost } = body;
  if (typeof action !== 'string' || !(REPORT_ACTIONS as readonly string[]).includes(action)) {
    throw badRequest(Messages.reportActionRule);
  }
  return {
    action: action as ReportAction,
    reason: parseDisabledReason(reason),
    blockHost: parseBlockHost(blockHost),
  };
}

/**
 * The optional reason of a disabling (a resolution, a disable body, a blocklist entry): a
 * string of at most 500 characters, counted as the bodies' schemas count them (UTF-16
 * units), trimmed; null when absent or blank.
 */
export function parseDisabledReason(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > DISABLED_REASON_MAX_LENGTH) {
    throw badRequest(Messages.disableReasonRule);
  }
  return value.trim() === '' ? null : value.trim();
}

/** The optional `block_host` of a disabling: true or false (not null, as the bodies' schemas say); false when absent. */
export function parseBlockHost(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw badRequest(Messages.blockHostRule);
  return value;
}

/**
 * What the outbox keeps of a `report.created` event (domain data, JSON text): the report
 * and its link as the admin API shows them when it was made. The message is made from it
 * when it is sent (webhooks/payloads.ts).
 */
export interface ReportEventRecord {
  id: number;
  domainId: number;
  shortCode: string;
  reason: ReportReason;
  details: string | null;
  createdAt: number;
  link: {
    originalUrl: string;
    disabled: boolean;
    owner: { id: number; email: string } | null;
    clicks: number;
  } | null;
}
