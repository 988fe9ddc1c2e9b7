// TypeBox schemas of POST /api/links/bulk: the body the OpenAPI document shows (each item
// is POST /api/shorten's body) and the answer, one result per item in order.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Mode } from '../config/config.ts';
import { ErrorBody } from '../http/model.ts';
import { linkSchema, ShortenBody } from './model.ts';

/** Links one call may ask for. */
export const BULK_MAX_LINKS = 1000;

/**
 * The largest body of a bulk call: 1,000 links of the longest URLs (8,192 characters)
 * with room for their other fields, where every other route takes 64 KiB.
 */
export const BULK_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * What the document shows of the body. The route does not validate it by this schema:
 * an item that breaks a rule is answered in its own result, not with a 400 for the call.
 */
export const BulkRequest = t.Object(
  {
    links: t.Array(ShortenBody, {
      minItems: 1,
      maxItems: BULK_MAX_LINKS,
      description: `1 to ${BULK_MAX_LINKS} links, each as the body of POST /api/shorten (url, custom_code, source, domain, tags, expires_at, max_clicks, password), each checked and created on its own.`,
    }),
  },
  {
    title: 'BulkRequest',
    description: `A JSON object (any Content-Type is read as JSON); at most ${BULK_MAX_BODY_BYTES / 1024 / 1024} MiB.`,
  },
);

/** One item's result: its status and the body POST /api/shorten would have answered. */
function bulkResultSchema(mode: Mode) {
  return t.Object(
    {
      status: Type.Integer({
        description:
          "What POST /api/shorten would have answered for this item alone: 201 (created), 400 (a rule broken, or `Custom code already taken`), 403 (`Link limit reached`: the account's quota), 429 (`Too many requests`: past the caller's create allowance).",
        examples: [201],
      }),
      body: t.Union([linkSchema(mode), ErrorBody], {
        description: 'The link object of the 201, or the error.',
      }),
      short_url: t.Optional(
        t.String({
          description: "With a 201: the short link, its domain's base URL and its code.",
        }),
      ),
    },
    { title: 'BulkResult' },
  );
}

/** The answer: a result per item, in the order of the items. */
export function bulkAnswerSchema(mode: Mode) {
  return t.Object(
    {
      results: t.Array(bulkResultSchema(mode), {
        description: 'One result per item of `links`, in the same order.',
      }),
    },
    { title: 'BulkAnswer' },
  );
}
