// The one place errors become responses: known failures get their status and exact
// message; anything unexpected is logged with a request id and answered 500 without
// internals.

import { Elysia, ValidationError } from 'elysia';
import { ApiError, type Message, Messages, StoreUnavailableError } from '../domain/errors.ts';
import { type Logger, throttled } from '../logger.ts';
import { errorResponse } from './responses.ts';

export function errorHandler(log: Logger) {
  return new Elysia({ name: 'kurz/errors' }).onError({ as: 'global' }, ({ code, error, request }) =>
    errorToResponse(error, request, log, code),
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
    unavailableLog(log).error(`database unavailable: ${cause}`);
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
  const id = crypto.randomUUID();
  const url = new URL(request.url);
  log.error(`request ${id} ${request.method} ${url.pathname} failed: ${describe(error)}`);
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

/** A request that breaks a route's schema: the message its schema names (see http/model.ts). */
function validationResponse(error: ValidationError): Response {
  const named = error.customError;
  if (typeof named === 'string' && MESSAGES.has(named)) return errorResponse(400, named as Message);
  if (error.type === 'params') return errorResponse(404, Messages.notFound);
  return errorResponse(400, error.type === 'query' ? Messages.pageRule : Messages.bodyNotObject);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
