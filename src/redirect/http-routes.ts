// The short-link routes as the app serves them: Elysia's `/:code` (what app.handle, and
// so the tests, reach; its schemas document the redirect, and redirect/model.ts the
// `+` paths it serves too) and the same route as Bun serves it natively when listening.

import { Elysia, t } from 'elysia';
import type { Mode } from '../config/config.ts';
import { errorResponses, ResponseHeaders, withHeaderSchemas } from '../http/model.ts';
import type { Redirects } from './routes.ts';

/** The route of a short code, as Elysia names it. */
export const REDIRECT_ROUTE = '/:code';

/** The Elysia routes, for app.handle(). */
export function redirectRoutes(redirects: Redirects, mode: Mode) {
  return new Elysia({ name: 'kurz/redirect' })
    .get(
      REDIRECT_ROUTE,
      ({ params, request, server }) => redirects.follow(params.code, request, server),
      {
        params: t.Object({ code: t.String({ description: 'The short code (case-sensitive).' }) }),
        // Documentation only: the redirect reads ?source= itself (accounts mode).
        ...(mode === 'accounts'
          ? {
              query: t.Object({
                source: t.Optional(
                  t.String({
                    description:
                      'Where the click came from, kept with the click (cut to 255 characters).',
                  }),
                ),
              }),
            }
          : {}),
        response: {
          307: withHeaderSchemas(
            t.Void({
              description:
                'To the original URL. The click is committed before this answer is sent; HEAD answers the same and counts nothing.',
            }),
            {
              Location: t.String({
                description:
                  'The original URL, byte for byte (non-ASCII percent-encoded as UTF-8).',
              }),
              'Cache-Control': t.String({
                const: 'private, no-store',
                description: 'Every follow is counted, so no cache may answer in its place.',
              }),
            },
          ),
          200: t.String({
            contentMediaType: 'text/html',
            description:
              'A password-protected link: a page with a form that posts the password to this address. Nothing is counted.',
          }),
          302: withHeaderSchemas(
            t.Void({
              description:
                'No link has the code on this domain, and the domain sends unknown codes to its own address (`not_found_redirect`, see /api/domains).',
            }),
            { Location: t.String({ description: "The domain's not-found address." }) },
          ),
          ...errorResponses(404, 410, 429, 500, 503),
        },
        detail: {
          operationId: 'redirect',
          tags: ['redirect'],
          summary: 'Follow a short link',
          description:
            "Needs no token. The request's `Host` chooses the short domain (an unregistered host is the default domain). Counts a click (with the creation source, the `Referer` without query or fragment and cut to 255 characters, the `User-Agent` cut to 256, the country of the client address; in accounts mode also `?source=`). A link past its `expires_at` or `max_clicks` answers 410 `Link expired` and counts nothing.",
        },
      },
    )
    .post(
      REDIRECT_ROUTE,
      ({ params, request, server }) => redirects.unlock(params.code, request, server),
      {
        // The handler reads the form itself, within the body limits.
        parse: 'none',
        params: t.Object({ code: t.String({ description: 'The short code (case-sensitive).' }) }),
        body: t.Optional(
          t.Object(
            { password: t.String({ description: "The link's password." }) },
            { description: 'application/x-www-form-urlencoded, as the password page sends it.' },
          ),
        ),
        response: {
          200: t.String({
            contentMediaType: 'text/html',
            description:
              'The right password, from a browser (its `Accept` names text/html): the click is committed and a page sends the visitor on (a refresh and a link), since the page’s `form-action` refuses a redirect away from kurz.',
          }),
          303: withHeaderSchemas(
            t.Void({
              description:
                'The right password: the click is committed and the visitor sent on with 303 See Other (a 307 would have the browser post the password on to the target).',
            }),
            { Location: t.String({ description: 'The original URL.' }) },
          ),
          401: t.String({
            contentMediaType: 'text/html',
            description: 'A wrong password: the page again, with a message.',
          }),
          429: withHeaderSchemas(
            t.String({
              contentMediaType: 'text/html',
              description:
                'Too many wrong passwords for this link from this client: the page with a message.',
            }),
            { 'Retry-After': ResponseHeaders.retryAfter },
          ),
          ...errorResponses(404, 410, 413, 500, 503),
        },
        detail: {
          operationId: 'unlockLink',
          tags: ['redirect'],
          summary: 'Send the password of a protected link',
          description:
            'What the password page posts. Wrong passwords are limited per link and client address (`--rate-link-password`, 10 per 15 minutes by default).',
        },
      },
    );
}

/** The same routes as Bun serves them natively: `{ '/:code': { GET, HEAD, POST } }` for Bun.serve. */
export function nativeRedirectRoute(
  redirects: Redirects,
  onError: (error: unknown, request: Request) => Response,
) {
  const redirect = redirects.follow;
  // redirect() answers the faults of its promise itself, so nothing here wraps it (a
  // .catch would cost a promise and a closure per redirect); a synchronous throw would
  // be a bug, still answered as one.
  const handle = (
    request: Bun.BunRequest,
    server: Bun.Server<unknown>,
  ): Response | Promise<Response> => {
    try {
      return redirect(request.params.code as string, request, server);
    } catch (error) {
      return onError(error, request);
    }
  };
  const unlock = (request: Bun.BunRequest, server: Bun.Server<unknown>) =>
    redirects.unlock(request.params.code as string, request, server);
  return { '/:code': { GET: handle, HEAD: handle, POST: unlock } };
}
