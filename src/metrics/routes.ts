// GET /api/metrics: the Prometheus text exposition of this process, for whoever holds the
// operator's metrics token (--metrics-token). Without a token configured the route does
// not exist, and the path answers 404 as any unknown one.

import { timingSafeEqual } from 'node:crypto';
import { Elysia, t } from 'elysia';
import { bearerToken } from '../auth/tokens.ts';
import { unauthorized } from '../domain/errors.ts';
import { errorResponses } from '../http/model.ts';
import type { Metrics } from './metrics.ts';

export const METRICS_PATH = '/api/metrics';

/** A route hook that lets only `token` through as `Authorization: Bearer`, compared in constant time. */
function metricsTokenOnly(token: string) {
  const expected = Buffer.from(token);
  return ({ request }: { request: Request }): void => {
    const given = Buffer.from(bearerToken(request.headers.get('authorization')) ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized();
    }
  };
}

export function metricsRoutes(metrics: Metrics, token: string) {
  return new Elysia({ name: 'kurz/metrics' }).get(
    METRICS_PATH,
    async () =>
      new Response(await metrics.exposition(), {
        headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
      }),
    {
      beforeHandle: metricsTokenOnly(token),
      response: {
        200: t.String({
          contentMediaType: 'text/plain',
          description:
            'The metrics in the Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4`).',
        }),
        ...errorResponses(401, 500),
      },
      detail: {
        operationId: 'metrics',
        tags: ['metrics'],
        summary: 'Prometheus metrics of this instance',
        description:
          'Needs the operator’s metrics token (`--metrics-token`). Counters are this process’s own: scrape each instance. Requests by route and status with their latency, redirects by outcome, click batches and their commit time, clicks waiting, the link cache’s hits and misses, database errors, links and users in the database, process memory and event-loop lag.',
        security: [{ metricsToken: [] }],
      },
    },
  );
}
