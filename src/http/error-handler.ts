// The one place errors become responses: known failures get their status and exact
// message; anything unexpected is logged with a request id and answered 500 without
// internals.

import { Elysia } from 'elysia';
import { ApiError, Messages, StoreUnavailableError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
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
  if (error instanceof ApiError) return errorResponse(error.status, error.message);
  if (error instanceof StoreUnavailableError) {
    log.error(`database unavailable: ${describe(error.cause)}`);
    return errorResponse(503, Messages.databaseUnavailable);
  }
  switch (code) {
    case 'NOT_FOUND':
      return errorResponse(404, Messages.notFound);
    case 'PARSE':
      return errorResponse(400, Messages.bodyNotObject);
  }
  const id = crypto.randomUUID();
  const url = new URL(request.url);
  log.error(`request ${id} ${request.method} ${url.pathname} failed: ${describe(error)}`);
  return errorResponse(500, Messages.internal, { 'x-request-id': id });
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
