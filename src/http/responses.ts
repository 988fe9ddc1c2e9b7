// Response builders shared by the HTTP modules. Bodies are JSON, set explicitly, since
// Elysia would send a returned string as text/plain. A body is typed by the schema the
// route declares for its status, so tsc refuses an answer the OpenAPI document does not show.

import type { Static, TSchema } from '@sinclair/typebox';
import type { Message } from '../domain/errors.ts';
import { ErrorBody } from './model.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** `body` as JSON with `status`; `schema` is the route's response schema for that status. */
export function jsonResponse<S extends TSchema>(
  status: number,
  _schema: S,
  body: Static<S>,
  headers?: Record<string, string>,
) {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers ? { 'content-type': JSON_TYPE, ...headers } : { 'content-type': JSON_TYPE },
  });
}

export function errorResponse(status: number, message: Message, headers?: Record<string, string>) {
  return jsonResponse(status, ErrorBody, { error: message }, headers);
}
