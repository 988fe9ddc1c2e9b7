// POST /api/reports: anyone (no credential, both modes) reports an abusive link for the
// operator to see, limited per client address. The report and its `report.created`
// messages to the admins' webhooks are stored together (store/reports.ts).

import { Elysia } from 'elysia';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { notFound } from '../domain/errors.ts';
import { parseReportBody, type ReportedLink } from '../domain/reports.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { errorResponse, errorResponses } from '../http/model.ts';
import { jsonResponse } from '../http/responses.ts';
import { type Domains, namedDomain } from '../links/link-domain.ts';
import { type AbuseLimits, type ClientOf, perClient } from '../net/abuse-limits.ts';
import type { LinkDetail, Store } from '../store/store.ts';
import { ReportBody, ReportReceived } from './model.ts';

export interface ReportRoutesOptions {
  mode: Mode;
  store: Store;
  domains: Domains;
  limits: AbuseLimits | undefined;
  clientOf: ClientOf;
  /** Tells the webhook sender that messages wait in the outbox. */
  wake: () => void;
}

/** A short URL's path, as a visitor may paste it: the code, or one of its `+` pages. */
const SHORT_PATH = /^\/([A-Za-z0-9_-]{1,32})(?:\+(?:report|go)?)?$/;

export function reportRoutes(options: ReportRoutesOptions) {
  const { store, domains, limits, clientOf, wake } = options;

  /** The link a report names; 404 when none (a domain named but unknown is 400, as elsewhere). */
  async function reported(link: ReportedLink): Promise<LinkDetail> {
    let found: LinkDetail | undefined;
    if ('code' in link) {
      const domain = namedDomain(domains, link.domain);
      if (isCodeShaped(link.code)) found = await store.findLinkDetail(link.code, domain.id);
    } else {
      const url = URL.parse(link.shortUrl);
      const domain = url === null ? undefined : domains.find(`${url.protocol}//${url.host}`);
      const code = url === null ? undefined : SHORT_PATH.exec(url.pathname)?.[1];
      if (domain !== undefined && code !== undefined) {
        found = await store.findLinkDetail(code, domain.id);
      }
    }
    if (found === undefined) throw notFound();
    return found;
  }

  return new Elysia({ name: 'kurz/reports', seed: options.mode }).post(
    '/api/reports',
    async ({ body }) => {
      const { link, reason, details } = parseReportBody(body);
      const target = await reported(link);
      const report = await store.createReport({
        linkId: target.id,
        domainId: target.domainId,
        shortCode: target.shortCode,
        reason,
        details,
        createdAt: Date.now(),
      });
      wake();
      return jsonResponse(201, ReportReceived, { id: report.id, status: 'received' });
    },
    {
      parse: parseJsonBody,
      transform: [perClient(limits?.report, clientOf), requireJsonObject],
      body: ReportBody,
      response: {
        201: ReportReceived,
        ...errorResponses(400, 408, 413, 429, 500, 503),
        403: errorResponse(403),
        404: errorResponse(404, {
          description: '`Not found`: no link has this code or short URL.',
        }),
      },
      detail: {
        operationId: 'createReport',
        tags: ['reports'],
        security: [],
        summary: 'Report an abusive link',
        description:
          'Needs no token. Tells the operator that a link is abusive: admins see it in GET /api/admin/reports, and the webhooks of admins (and of open mode) that ask for `report.created` are told at once. Limited per client address (`--rate-report`, 10 an hour by default). Checks, in order: `code` or `short_url` (`code or short_url is required`), `reason` (`reason must be phishing, malware, spam, illegal or other`), `details` (`details must be a string of at most 1000 characters`), then the link (404).',
      },
    },
  );
}
