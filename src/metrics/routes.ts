// GET /api/metrics: the Prometheus text exposition of this process, for whoever holds the
// operator's metrics token (--metrics-token). Without a token configured the route does
// not exist, and the path answers 404 as any unknown one.

import { Elysia, t } from 'elysia';
import { bearerOnly } from '../auth/admin.ts';
import { errorResponses } from '../http/model.ts';
import type { Metrics } from './metrics.ts';

export const METRICS_PATH = '/api/metrics';

export function metricsRoutes(metrics: Metrics, token: string) {
  return new Elysia({ name: 'kurz/metrics' }).get(
    METRICS_PATH,
    async () =>
      new Response(await metrics.exposition(), {
        headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
      }),
    {
      beforeHandle: bearerOnly(token),
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
