// Reading a JSON request body with a size limit, as an Elysia parse hook. A body that is
// not JSON becomes NOT_JSON rather than an error, so that a missing token (401) is
// reported before a malformed body (400), in the order the API documents.

import { ApiError, badRequest, Messages } from '../domain/errors.ts';

/** The largest body of every route but those that set their own (see parseJsonBodyUpTo). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A body must have arrived whole this long after its request was read. Bun's idle
 * timeout (set longer in index.ts) would only drop such a connection without a word;
 * this answers first, with a 408 the client can act on.
 */
export const BODY_DEADLINE_MS = 10_000;

/** Stands for a body that is absent or is not valid JSON. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

/** Elysia parse hook: reads any body as JSON, whatever its Content-Type, within the limit. */
export function parseJsonBody({ request }: { request: Request }): Promise<unknown> {
  return readJsonBody(request, BODY_DEADLINE_MS);
}

/** The same parse hook for a route whose bodies may be larger: up to `maxBytes`. */
export function parseJsonBodyUpTo(maxBytes: number) {
  return ({ request }: { request: Request }): Promise<unknown> =>
    readJsonBody(request, BODY_DEADLINE_MS, maxBytes);
}

/** The body as JSON (or NOT_JSON), 413 past `maxBytes`, 408 if not whole within `deadlineMs`. */
export async function readJsonBody(
  request: Request,
  deadlineMs: number,
  maxBytes = MAX_BODY_BYTES,
): Promise<unknown> {
  const text = await readBodyText(request, deadlineMs, maxBytes);
  if (text === '') return NOT_JSON;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** The body as text: 413 past `maxBytes`, 408 if not whole within `deadlineMs`. */
export async function readBodyText(
  request: Request,
  deadlineMs: number,
  maxBytes = MAX_BODY_BYTES,
): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  // With a declared length within the limit, Bun reads the body natively; a chunked
  // body is read piece by piece so that it can be cut off at the limit.
  const text = await withinDeadline(
    declared !== null ? request.text() : readText(request, maxBytes),
    deadlineMs,
  );
  if (Buffer.byteLength(text) > maxBytes) throw tooLarge();
  return text;
}

/**
 * A route's `transform` hook: a body that is not a JSON object is 400. It runs after
 * the token check and before schema validation, which would otherwise see an object
 * made up by Elysia in place of a body that is not one.
 */
export function requireJsonObject({ body }: { body: unknown }): void {
  requireObject(body);
}

/** The parsed body as a JSON object, or 400. */
export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(Messages.bodyNotObject);
  }
  return body as Record<string, unknown>;
}

function tooLarge() {
  return new ApiError(413, Messages.bodyTooLarge);
}

/**
 * `reading`, or a 408 once `ms` have passed. The connection is closed after the 408:
 * the rest of the body, should it come, must not be read as a next request.
 */
function withinDeadline<T>(reading: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ApiError(408, Messages.requestTimeout, { connection: 'close' })),
      ms,
    );
  });
  return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}

/** Reads the body as UTF-8, stopping as soon as it passes `maxBytes` (chunked bodies too). */
async function readText(request: Request, maxBytes: number): Promise<string> {
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
