// What the short-link paths answer besides the redirect, for the OpenAPI document: the
// `+` page's JSON (LinkInfo), and the `+`, `+report` and `+go` paths, which the one
// `/{code}` route serves (a code never holds `+`), described here as paths of their own.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { ErrorBody, ResponseHeaders } from '../http/model.ts';

export const LinkInfoSchema = t.Object(
  {
    code: t.String(),
    short_url: t.String(),
    original_url: t.String({
      description:
        "The target. For a link with a password, the link's own `short_url` (following it asks for the password).",
    }),
    created_at: t.String({ format: 'date-time' }),
    disabled: t.Boolean({ description: 'Disabled by an admin: the link answers 410.' }),
    disabled_reason: t.Union([t.String(), t.Null()], {
      description: "The admin's reason, when the link is disabled and one was given.",
    }),
    expired: t.Boolean({
      description: 'Past its expiry or its click limit: the link answers 410.',
    }),
    expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    max_clicks: t.Union([Type.Integer({ minimum: 1 }), t.Null()]),
    password: t.Boolean({ description: 'Following it asks for a password.' }),
    rules: Type.Integer({
      minimum: 0,
      description: 'Redirect rules that may send a visit elsewhere (by device, language, …).',
    }),
    variants: Type.Integer({
      minimum: 0,
      description: 'Targets an A/B split shares visits between (0: none).',
    }),
  },
  {
    title: 'LinkInfo',
    description:
      'What a link is, before following it: never its owner, and never the target of a link with a password.',
  },
);

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON
type Json = any;

const json = (schema: unknown): Json => JSON.parse(JSON.stringify(schema));
const html = { 'text/html': {} };
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: json(ErrorBody) } },
});
const tooMany = () => ({
  ...error('`Too many requests`: too many unknown codes from this client.'),
  // Said as the routes' schemas say it: fixResponses moves the description to the header.
  headers: { 'Retry-After': { schema: json(ResponseHeaders.retryAfter) } },
});
const serverError = () => ({
  ...error('`Internal server error`: an unexpected fault, logged with a request id.'),
  headers: { 'X-Request-Id': { schema: json(ResponseHeaders.requestId) } },
});
const codeParameter = {
  name: 'code',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'The short code (case-sensitive), followed by the suffix.',
};
const NO_TOKEN =
  "Needs no token; the request's `Host` chooses the short domain, as for the redirect.";

/** GET and HEAD of a page: HEAD answers the same status and headers without a body. */
function pageItem(get: Json): Json {
  const head = {
    ...get,
    operationId: `${get.operationId}Head`,
    responses: Object.fromEntries(
      Object.entries(get.responses as Record<string, Json>).map(([status, response]) => [
        status,
        // A copy: the document's later passes change each header in place, once.
        { description: response.description, headers: response.headers && json(response.headers) },
      ]),
    ),
  };
  return { get, head };
}

/**
 * Adds the `+` paths to the document's `paths`, and to `/{code}` what a disabled link
 * and the new-account interstitial answer there.
 */
export function documentLinkPages(paths: Json): void {
  const info = json(LinkInfoSchema);
  const redirect = paths['/{code}']?.get;
  if (redirect !== undefined) {
    const responses = redirect.responses;
    responses['200'] = {
      description:
        'A password-protected link: a page with a form that posts the password to this address. Or, with `--new-account-interstitial`, a link whose owner’s account is younger than the setting: the `+` page with a Continue button (its JSON for `Accept: application/json`). Nothing is counted.',
      content: { ...html, 'application/json': { schema: info } },
    };
    const disabled = {
      description:
        'Past its `expires_at` or `max_clicks` (`Link expired`), or disabled by an admin (`Link disabled`; a browser, whose `Accept` names text/html, gets a page with the reason). Nothing is counted.',
      content: { 'application/json': { schema: json(ErrorBody) }, ...html },
    };
    responses['410'] = disabled;
    const unlock = paths['/{code}'].post;
    if (unlock !== undefined) unlock.responses['410'] = json(disabled);
  }
  paths['/{code}+'] = pageItem({
    operationId: 'linkInfo',
    tags: ['redirect'],
    summary: 'Look at a short link before following it',
    description: `${NO_TOKEN} The link's target (not for a link with a password), its age, whether it expires, has a click limit or rules and variants that may send a visit elsewhere; never its owner. A page in the reader's language (the \`kurz-lang\` cookie, else \`Accept-Language\`, else English), or JSON for \`Accept: application/json\` (the same in every language). Counts nothing, and answers for expired and disabled links too.`,
    parameters: [codeParameter],
    security: [],
    responses: {
      200: {
        description: 'The page, or its JSON.',
        content: { ...html, 'application/json': { schema: info } },
      },
      404: error('`Not found`: no link has the code.'),
      429: tooMany(),
      500: serverError(),
      503: error('`Database unavailable`.'),
    },
  });
  paths['/{code}+report'] = pageItem({
    operationId: 'reportPage',
    tags: ['redirect'],
    summary: 'The report form of a short link',
    description: `${NO_TOKEN} A form (reason and details), in the reader's language, that sends a report to POST /api/reports with kurz's own script.`,
    parameters: [codeParameter],
    security: [],
    responses: {
      200: { description: 'The form.', content: html },
      404: error('`Not found`: no link has the code.'),
      429: tooMany(),
      500: serverError(),
      503: error('`Database unavailable`.'),
    },
  });
  if (redirect !== undefined) {
    const unlock = paths['/{code}']?.post;
    paths['/{code}+go'] = pageItem({
      ...json({ ...redirect, responses: undefined }),
      operationId: 'redirectDirect',
      summary: 'Follow a short link without the new-account interstitial',
      description:
        'What the interstitial’s Continue button links to: the redirect of `/{code}`, counted as it is, without the `+` page in its place.',
      parameters: [codeParameter],
      security: [],
      responses: Object.fromEntries(
        Object.entries(json(redirect.responses) as Record<string, Json>).map(
          ([status, response]) =>
            status === '200'
              ? [status, { description: 'A password-protected link: its form.', content: html }]
              : [status, response],
        ),
      ),
    });
    if (unlock !== undefined) {
      paths['/{code}+go'].post = {
        ...json(unlock),
        operationId: 'unlockLinkDirect',
        summary: 'Send the password of a protected link reached through the interstitial',
      };
    }
  }
}
