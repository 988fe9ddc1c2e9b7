// The rules of a webhook's registration: the events it may ask for, its URL (https, a
// host, no credentials) and how many one owner may have. Whether the URL's host is a
// public address needs DNS, and is checked in webhooks/targets.ts.

import { badRequest, Messages } from './errors.ts';

/** What a webhook can be told of, in the order they are listed everywhere. */
export const WEBHOOK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'clicks'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

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

/** The `events` of a webhook: absent or null asks for all; otherwise known names, at least one. */
export function parseWebhookEvents(value: unknown): WebhookEvent[] {
  if (value === undefined || value === null) return [...WEBHOOK_EVENTS];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((event) => (WEBHOOK_EVENTS as readonly unknown[]).includes(event))
  ) {
    throw badRequest(Messages.webhookEvents);
  }
  return WEBHOOK_EVENTS.filter((event) => value.includes(event));
}
