// The one place errors become responses: known failures get their status and exact
// message; anything unexpected is logged with a request id and answered 500 without
// internals. Requests the database failed are counted here for the metrics.

import { DrizzleQueryError } from 'drizzle-orm';
import { Elysia, ValidationError } from 'elysia';
import { ApiError, type Message, Messages, StoreUnavailableError } from '../domain/errors.ts';
import { type Logger, throttled } from '../logger.ts';
import { requestId } from './request-id.ts';
import { errorResponse } from './responses.ts';

/** What the error handler counts, per app, for GET /api/metrics. */
export interface FaultCounts {
  /** Requests answered 503 Database unavailable. */
  databaseUnavailable: number;
}

export function errorHandler(log: Logger, faults?: FaultCounts) {
  return new Elysia({ name: 'kurz/errors' }).onError(
    { as: 'global' },
    ({ code, error, request, set }) => {
      const response = errorToResponse(error, request, log, code, faults);
      // Hooks after the response (metrics, the access log) read the status here.
      set.status = response.status;
      return response;
    },
  );
}

/**
 * The response for anything thrown while answering `request`. `code` is Elysia's error
 * code when Elysia caught it (routes served natively by Bun have none).
 */
export function errorToResponse(
  thrown: unknown,
  request: Request,
  log: Logger,
  code?: string | number,
  faults?: FaultCounts,
): Response {
  // Elysia wraps whatever a parse hook throws (our 413) in a ParseError.
  const error =
    code === 'PARSE' && thrown instanceof Error && thrown.cause instanceof ApiError
      ? thrown.cause
      : thrown;
  if (error instanceof ApiError) return errorResponse(error.status, error.message, error.headers);
  if (error instanceof StoreUnavailableError) {
    // The cause's message only: a full disk would otherwise print a stack per second.
    const cause =
      error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : error.cause;
    if (faults !== undefined) faults.databaseUnavailable++;
    unavailableLog(log).error(`database unavailable: ${cause}`, { request_id: requestId(request) });
    return errorResponse(503, Messages.databaseUnavailable);
  }
  switch (code) {
    case 'NOT_FOUND':
      return errorResponse(404, Messages.notFound);
    case 'PARSE':
      return errorResponse(400, Messages.bodyNotObject);
    case 'VALIDATION':
      // A response that breaks its own schema is our fault: a 500 below.
      if (error instanceof ValidationError && error.type !== 'response') {
        return validationResponse(error);
      }
  }
  const id = requestId(request);
  const path = new URL(request.url).pathname;
  log.error(`request ${id} ${request.method} ${path} failed: ${describeFault(error)}`, {
    request_id: id,
    method: request.method,
    path,
  });
  return errorResponse(500, Messages.internal, { 'x-request-id': id });
}

/** One throttled logger per logger: while the database is down, every request fails alike. */
const unavailableLogs = new WeakMap<Logger, Logger>();
function unavailableLog(log: Logger): Logger {
  let throttledLog = unavailableLogs.get(log);
  if (throttledLog === undefined) {
    throttledLog = throttled(log);
    unavailableLogs.set(log, throttledLog);
  }
  return throttledLog;
}

const MESSAGES: ReadonlySet<string> = new Set(Object.values(Messages));

/** Whether a text is one of the messages, or one placed at a part of a body (`rules[2].url: …`). */
function isMessage(text: string): boolean {
  if (MESSAGES.has(text)) return true;
  const place = /^[A-Za-z_][\w.[\]]*: /.exec(text);
  return place !== null && MESSAGES.has(text.slice(place[0].length));
}

/** A request that breaks a route's schema: the message its schema names (see http/model.ts). */
function validationResponse(error: ValidationError): Response {
  const named = error.customError;
  if (typeof named === 'string' && isMessage(named)) return errorResponse(400, named as Message);
  if (error.type === 'params') return errorResponse(404, Messages.notFound);
  return errorResponse(400, error.type === 'query' ? Messages.pageRule : Messages.bodyNotObject);
}

/**
 * An unexpected error as the log tells it, with its stack. A failed query is told by its
 * SQL and its cause, never its parameters: a password hash, the token key or a visitor's
 * data may be among them.
 */
export function describeFault(error: unknown): string {
  if (error instanceof DrizzleQueryError) {
    return `Failed query: ${error.query}\ncaused by ${describeFault(error.cause)}`;
  }
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}

/** The same in one line, with its causes and without stacks, for faults that repeat (a batch). */
export function faultLine(error: unknown): string {
  if (error instanceof DrizzleQueryError) return `failed query (${faultLine(error.cause)})`;
  const line = String(error);
  return error instanceof Error && error.cause !== undefined
    ? `${line} (${faultLine(error.cause)})`
    : line;
}
