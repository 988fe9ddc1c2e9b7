// Headers every response of kurz carries, whichever route or error produced it: built
// once at start-up, so that no answer pays more than copying them.

import { Elysia } from 'elysia';

/** One year: the figure HSTS preload lists and most guides ask for. */
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/**
 * `nosniff` always, so that no answer (a JSON error, a QR image) is ever run as a script
 * or a page; and, when the public address is https, HSTS, so that a browser that has
 * once reached kurz never again follows a plain-http link to it (where a network could
 * tamper with a 307). It leaves out `includeSubDomains`: kurz vouches for its own host
 * only, and often runs on one name of a domain whose other names it knows nothing of.
 */
export function securityHeaders(
  baseUrl: string,
  hstsMaxAgeSeconds?: number,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff' };
  // Serving HTTPS itself, kurz knows the transport: --hsts-max-age decides (plain HTTP
  // beside it takes the header off, tls/plain-http.ts). Behind a proxy, the address does.
  const maxAge = hstsMaxAgeSeconds ?? (baseUrl.startsWith('https://') ? HSTS_MAX_AGE_SECONDS : 0);
  if (maxAge > 0) headers['strict-transport-security'] = `max-age=${maxAge}`;
  return Object.freeze(headers);
}

/**
 * Elysia's default headers: merged into every answer of the app (routes, errors, 404s),
 * under any header of the same name a route sets itself. Routes Bun serves natively
 * (the redirect) add them on their own.
 */
export function responseHeaders(headers: Readonly<Record<string, string>>) {
  return new Elysia({ name: 'kurz/headers' }).headers({ ...headers });
}

/** Adds `headers` to an answer built elsewhere (the native redirect route's faults). */
export function withHeaders(response: Response, headers: Readonly<Record<string, string>>) {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
