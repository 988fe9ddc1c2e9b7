// Response builders shared by the HTTP modules. Bodies are JSON, set explicitly, since
// Elysia would send a returned string as text/plain.

import type { Message } from '../domain/errors.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(status: number, body: unknown, headers?: Record<string, string>) {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers ? { 'content-type': JSON_TYPE, ...headers } : { 'content-type': JSON_TYPE },
  });
}

export function errorResponse(status: number, message: Message, headers?: Record<string, string>) {
  return jsonResponse(status, { error: message }, headers);
}

/** A moment (ms since the epoch) as the API writes it, ISO 8601 UTC; null stays null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
