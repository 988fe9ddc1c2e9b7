// The rules of a webhook's registration: the events it may ask for, its URL (https, a
// host, no credentials) and how many one owner may have. Whether the URL's host is a
// public address needs DNS, and is checked in webhooks/targets.ts.

import { badRequest, Messages } from './errors.ts';

/**
 * What a webhook can be told of, in the order they are listed everywhere. `report.created`
 * (a link reported as abusive) goes to the webhooks of admins and open mode's only.
 */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'clicks',
  'report.created',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The events of an owner's own links: what a webhook registered without `events` is told of. */
export const LINK_WEBHOOK_EVENTS: readonly WebhookEvent[] = [
  'link.created',
  'link.updated',
  'link.deleted',
  'clicks',
];

/** The events only an admin (or open mode's operator) may ask for. */
export const ADMIN_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['report.created'];

/** Webhooks one user (or, in open mode, the operator) may register. */
export const MAX_WEBHOOKS = 20;
export const WEBHOOK_URL_MAX_LENGTH = 2048;

const FORBIDDEN_CHARS = /[\s\p{Cc}]/u;

/**
 * Parses the `url` of a webhook: https (http too when private targets are allowed, for
 * a receiver on the operator's own network), at most WEBHOOK_URL_MAX_LENGTH characters,
 * a host, and no user-info (a secret in a URL ends up in logs; the signature is the
 * credential here).
 */
export function parseWebhookUrl(value: unknown, allowPrivate: boolean): URL {
  if (typeof value !== 'string') throw badRequest(Messages.urlRequired);
  const https = value.startsWith('https://');
  if (!https && !(allowPrivate && value.startsWith('http://'))) {
    throw badRequest(allowPrivate ? Messages.webhookSchemePrivate : Messages.webhookScheme);
  }
  if (
    value.length > WEBHOOK_URL_MAX_LENGTH ||
    FORBIDDEN_CHARS.test(value) ||
    !value.isWellFormed()
  ) {
    throw badRequest(Messages.urlInvalid);
  }
  const rest = value.slice(value.indexOf('//') + 2);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes('@')) throw badRequest(Messages.webhookCredentials);
  const url = URL.parse(value);
  if (authority === '' || authority.includes('\\') || url === null || url.hostname === '') {
    throw badRequest(Messages.urlInvalid);
  }
  return url;
}

/**
 * The `events` of a webhook: absent or null asks for the link events (report.created
 * only when named); otherwise known names, at least one.
 */
export function parseWebhookEvents(value: unknown): WebhookEvent[] {
  if (value === undefined || value === null) return [...LINK_WEBHOOK_EVENTS];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((event) => (WEBHOOK_EVENTS as readonly unknown[]).includes(event))
  ) {
    throw badRequest(Messages.webhookEvents);
  }
  return WEBHOOK_EVENTS.filter((event) => value.includes(event));
}

/** What a delivery reports: an event, or `ping` (POST /api/webhooks/{id}/test). */
export type DeliveryType = WebhookEvent | 'ping';

// What the outbox keeps of an event, fixed when the change commits (in its transaction):
// domain data, as JSON text. The message a receiver gets is made from it when it is sent
// (webhooks/payloads.ts), so the stores know nothing of the API's JSON.

/** A link as a link event's record keeps it: its state after the change, never the password's hash. */
export interface LinkEventRecord {
  id: number;
  userId: number | null;
  /** Absent in records kept before domains: the default domain (0). */
  domainId?: number;
  originalUrl: string;
  shortCode: string;
  createdAt: number;
  clicks: number;
  source: string | null;
  expiresAt: number | null;
  maxClicks: number | null;
  limitedClicks: number;
  passwordProtected: boolean;
  /** Absent in records kept before tags: none. */
  tags?: string[];
  /** Redirect rules, A/B variants and preview as the store keeps them (JSON text); absent in older records: none. */
  rules?: string | null;
  variants?: string | null;
  preview?: string | null;
  /** When an admin disabled the link, and why; absent in older records and new links: enabled. */
  disabledAt?: number | null;
  disabledReason?: string | null;
}

/**
 * The record of a link event, JSON text (the PostgreSQL store writes the same for a link
 * it inserts, with row_to_json).
 */
export function linkEventRecord(
  link: Omit<LinkEventRecord, 'passwordProtected'> & {
    passwordHash: string | null;
  },
): string {
  const record: LinkEventRecord = {
    id: link.id,
    userId: link.userId,
    domainId: link.domainId,
    originalUrl: link.originalUrl,
    shortCode: link.shortCode,
    createdAt: link.createdAt,
    clicks: link.clicks,
    source: link.source,
    expiresAt: link.expiresAt,
    maxClicks: link.maxClicks,
    limitedClicks: link.limitedClicks,
    passwordProtected: link.passwordHash !== null,
    tags: link.tags,
    rules: link.rules ?? null,
    variants: link.variants ?? null,
    preview: link.preview ?? null,
    disabledAt: link.disabledAt ?? null,
    disabledReason: link.disabledReason ?? null,
  };
  return JSON.stringify(record);
}

/**
 * One click in the record of a `clicks` event. The message sends it as it is (with what
 * its user agent tells), so it is kept in the API's spelling; the PostgreSQL store
 * writes the same in SQL.
 */
export interface ClickEventRecord {
  code: string;
  at: string;
  referrer: string | null;
  country: string | null;
  source: string | null;
  query_source: string | null;
  user_agent: string | null;
}

/** A click of the link `code` as a `clicks` record lists it. */
export function clickEventRecord(
  code: string,
  click: {
    createdAt: number;
    referrer: string | null;
    country: string | null;
    source: string | null;
    querySource: string | null;
    userAgent: string | null;
  },
): ClickEventRecord {
  return {
    code,
    at: new Date(click.createdAt).toISOString(),
    referrer: click.referrer,
    country: click.country,
    source: click.source,
    query_source: click.querySource,
    user_agent: click.userAgent,
  };
}

/** The record of a `clicks` event: one owner's clicks of a batch, in batch order. */
export function clicksEventRecord(clicks: readonly ClickEventRecord[]): string {
  return JSON.stringify({ clicks });
}
