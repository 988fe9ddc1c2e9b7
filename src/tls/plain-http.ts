// Plain HTTP beside HTTPS (--http-port): it answers ACME's HTTP-01 challenges, and sends
// every other request to the same host over HTTPS: 308 for the API and for any method but
// GET and HEAD (a client must repeat the method and the body), 301 for pages. A host with
// no certificate yet (--tls auto before its first, or after a failing challenge) is
// served the app itself over plain HTTP, so that kurz keeps working meanwhile.

import { Messages } from '../domain/errors.ts';
import { normalizeHost, splitHost } from '../domain/hosts.ts';
import { errorResponse } from '../http/responses.ts';
import type { CertificateSet } from './certificates.ts';
import { CHALLENGE_PREFIX, type ChallengeResponses } from './challenges.ts';
import type { NativeRoutes, RouteHandler, ServeOptions } from './https-listener.ts';

/** An ACME token: base64url (RFC 8555, section 8.1). */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

export interface PlainHttpOptions {
  certificates: CertificateSet;
  challenges: ChallengeResponses;
  /** Where HTTPS is served, for the redirect's Location (left out when 443). */
  httpsPort: number;
}

type Answer = Response | Promise<Response>;

/**
 * What plain HTTP answers itself: a challenge, a redirect to HTTPS, or 400 for a request
 * without a usable Host; undefined when the app should answer (no certificate for the host).
 * Only ever to the host the client asked for: the redirect cannot send anyone elsewhere.
 */
export function plainAnswer(request: Request, options: PlainHttpOptions): Answer | undefined {
  const url = request.url;
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const target = pathStart === -1 ? '/' : url.slice(pathStart);
  const isRead = request.method === 'GET' || request.method === 'HEAD';
  if (isRead && target.startsWith(CHALLENGE_PREFIX)) {
    return challengeAnswer(target.slice(CHALLENGE_PREFIX.length), options.challenges);
  }
  const host = normalizeHost(request.headers.get('host') ?? '', 'http:');
  if (host === undefined) return errorResponse(400, Messages.hostRequired);
  const { hostname } = splitHost(host);
  const { certificates } = options;
  if (certificates.get(hostname) === undefined && certificates.get('*') === undefined) {
    return undefined;
  }
  const port = options.httpsPort === 443 ? '' : `:${options.httpsPort}`;
  const api = target === '/api' || target.startsWith('/api/') || target.startsWith('/api?');
  return new Response(null, {
    status: api || !isRead ? 308 : 301,
    headers: { location: `https://${hostname}${port}${target}` },
  });
}

async function challengeAnswer(token: string, challenges: ChallengeResponses): Promise<Response> {
  const keyAuthorization = TOKEN.test(token) ? await challenges.find(token) : undefined;
  if (keyAuthorization === undefined) return errorResponse(404, Messages.notFound);
  return new Response(keyAuthorization, {
    headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' },
  });
}

/** The app's answer as plain HTTP sends it: without HSTS, which is for HTTPS answers only. */
function withoutHsts(answer: Answer): Answer {
  if (answer instanceof Promise) return answer.then(dropHsts);
  return dropHsts(answer);
}

function dropHsts(response: Response): Response {
  response.headers.delete('strict-transport-security');
  return response;
}

/**
 * Bun.serve's options for plain HTTP: the app's native routes and its fetch, each behind
 * plainAnswer.
 */
export function plainHttpServe(
  app: { routes: NativeRoutes; fetch: (request: Request) => Answer },
  options: PlainHttpOptions,
): Pick<ServeOptions, 'routes' | 'fetch'> {
  const routes: NativeRoutes = {};
  for (const [path, methods] of Object.entries(app.routes)) {
    const wrapped: Record<string, RouteHandler> = {};
    for (const [method, handle] of Object.entries(methods)) {
      wrapped[method] = (request, server) =>
        plainAnswer(request, options) ?? withoutHsts(handle(request, server));
    }
    routes[path] = wrapped;
  }
  return {
    routes,
    fetch: (request: Request) => plainAnswer(request, options) ?? withoutHsts(app.fetch(request)),
  };
}
