// GET /health: "Healthy" when the database answers, else 503 "Database unavailable".

import { Elysia, t } from 'elysia';
import { Messages } from '../domain/errors.ts';
import { jsonResponse } from '../http/responses.ts';
import type { Store } from '../store/store.ts';
import { HealthCheck } from './health-check.ts';

const Healthy = t.Literal('Healthy', { description: 'The service and its database work.' });
const Unavailable = t.Literal(Messages.databaseUnavailable, {
  description: 'The database cannot be reached.',
});

export function healthRoutes(store: Store) {
  const health = new HealthCheck(store);
  return new Elysia({ name: 'kurz/health' }).get(
    '/health',
    async () => {
      try {
        await health.check();
        return jsonResponse(200, Healthy, 'Healthy');
      } catch {
        return jsonResponse(503, Unavailable, Messages.databaseUnavailable);
      }
    },
    {
      response: { 200: Healthy, 503: Unavailable },
      detail: {
        operationId: 'health',
        tags: ['health'],
        summary: 'Health check',
        description: 'Needs no token. The body is a JSON string.',
      },
    },
  );
}
