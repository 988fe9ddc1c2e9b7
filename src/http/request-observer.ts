// Watches the requests Elysia answers (the API, the web UI, and the redirect when run
// through app.handle) for the metrics and the access log: when each began, and once its
// answer is made, its route template and status. Registered only when one of them is on.

import { Elysia, StatusMap } from 'elysia';
import type { AccessLog, Arrival } from './access-log.ts';

/** What the observer tells the metrics of each answer (metrics/metrics.ts implements it). */
export interface RequestMetrics {
  observeRequest(route: string | undefined, method: string, status: number, seconds: number): void;
}

export interface ObserverOptions {
  metrics?: RequestMetrics;
  accessLog?: AccessLog;
  /** Routes the metrics leave to a counter of their own (the redirect's). */
  uncounted?: ReadonlySet<string>;
}

export function requestObserver({ metrics, accessLog, uncounted }: ObserverOptions) {
  const plugin = new Elysia({ name: 'kurz/request-observer' });
  if (metrics === undefined && accessLog === undefined) return plugin;
  const arrivals = new WeakMap<Request, Arrival>();
  // Not chained: these hooks add nothing to the app's types.
  plugin.onRequest(({ request, server }) => {
    arrivals.set(
      request,
      accessLog?.begin(request, server) ?? { started: performance.now(), client: '' },
    );
  });
  plugin.onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
    const arrival = arrivals.get(request);
    // A CORS preflight answered by an onRequest hook never comes here.
    if (arrival === undefined) return;
    const status = statusOf(responseValue, set.status);
    if (metrics !== undefined && !uncounted?.has(route)) {
      const seconds = (performance.now() - arrival.started) / 1000;
      metrics.observeRequest(route, request.method, status, seconds);
    }
    accessLog?.write(request, status, arrival);
  });
  return plugin;
}

/**
 * The status of an answer: a Response's own, else what the route (or the error handler,
 * http/error-handler.ts) set, a number or Elysia's name for one.
 */
function statusOf(response: unknown, set: number | keyof typeof StatusMap | undefined): number {
  if (response instanceof Response) return response.status;
  if (typeof set === 'number') return set;
  return set === undefined ? 200 : StatusMap[set];
}
