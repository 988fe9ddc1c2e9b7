// TypeBox schemas of GET /api/links: its query (paging, filters, order, view) and its
// answer, for Elysia's checks and the OpenAPI document. Rules are the domain's.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Mode } from '../config/config.ts';
import { Messages } from '../domain/errors.ts';
import { parseTag, TAG_MAX_LENGTH } from '../domain/tags.ts';
import { ruleFormat, SOMETIMES, withHeaderSchemas } from '../http/model.ts';
import { COUNTED_AHEAD } from '../store/link-search.ts';
import {
  LIST_ORDERS,
  LIST_QUERY_MAX_LENGTH,
  LIST_SORTS,
  parseListOrder,
  parseListSort,
  parseListText,
  parseListView,
} from './list-query.ts';
import { linkDetailSchema, linkSchema } from './model.ts';
import { MAX_PAGE, parseLimit, parseOffset } from './paging.ts';

// The query is read as text and checked by the domain rule; to a client, these are integers.
const limit = ruleFormat('kurz-limit', parseLimit, {
  type: 'integer',
  minimum: 1,
  maximum: MAX_PAGE,
});
const offset = ruleFormat('kurz-offset', parseOffset, { type: 'integer', minimum: 0 });
const text = ruleFormat('kurz-list-q', parseListText, {
  minLength: 1,
  maxLength: LIST_QUERY_MAX_LENGTH,
});
const tag = ruleFormat('kurz-tag', parseTag, {
  minLength: 1,
  maxLength: TAG_MAX_LENGTH,
  pattern: `^[A-Za-z0-9_-]{1,${TAG_MAX_LENGTH}}$`,
});
const sort = ruleFormat('kurz-list-sort', parseListSort, { enum: [...LIST_SORTS] });
const order = ruleFormat('kurz-list-order', parseListOrder, { enum: [...LIST_ORDERS] });
const view = ruleFormat('kurz-list-view', parseListView, { enum: ['full'] });

export const ListQuery = t.Object({
  limit: t.Optional(
    t.String({
      format: limit,
      error: Messages.pageRule,
      description: `Page size, 1 to ${MAX_PAGE}. Without it, the whole list (from offset).`,
    }),
  ),
  offset: t.Optional(
    t.String({
      format: offset,
      error: Messages.pageRule,
      description: 'Links to skip, 0 or more.',
    }),
  ),
  q: t.Optional(
    t.String({
      format: text,
      error: Messages.listQueryRule,
      description: `Only links whose short code or target contains this text (letters A-Z in either case; \`%\` and \`_\` are themselves), or that have it as a tag. 1 to ${LIST_QUERY_MAX_LENGTH} characters.`,
      examples: ['spring'],
    }),
  ),
  domain: t.Optional(
    t.String({
      error: Messages.unknownDomain,
      description:
        "Only links of this short domain, named by its host (with its port, if it has one) or its base URL; one that is not this service's is a 400.",
      examples: ['go.example.com'],
    }),
  ),
  tag: t.Optional(
    t.String({
      format: tag,
      error: Messages.tagRule,
      description: 'Only links with this tag (either case).',
      examples: ['promo'],
    }),
  ),
  sort: t.Optional(
    t.String({
      format: sort,
      error: Messages.listSortRule,
      description:
        '`created` (the default), `clicks` or `code` (by its bytes: `-`, digits, A-Z, `_`, a-z); ties by id. By clicks, the order follows the counts the click rollup has folded in, about a second behind the newest clicks; the `clicks` shown are exact.',
    }),
  ),
  order: t.Optional(
    t.String({
      format: order,
      error: Messages.listSortRule,
      description: '`asc` or `desc`: by default, `asc` for `code`, `desc` otherwise.',
    }),
  ),
  view: t.Optional(
    t.String({
      format: view,
      error: Messages.listViewRule,
      description:
        '`full`: each link as GET /api/links/{code} shows it, with its settings, so a page needs no request per link.',
    }),
  ),
});

/** The list: its links (or, with view=full, their details), with the paging headers. */
export function listSchema(mode: Mode) {
  const items = t.Union([linkSchema(mode), linkDetailSchema(mode)], {
    description: 'A link; with `view=full`, a link with its settings.',
  });
  return withHeaderSchemas(
    t.Array(items, {
      description: 'The links, newest first unless `sort` and `order` say otherwise.',
    }),
    {
      'X-Total-Count': Type.Integer({
        minimum: 0,
        description:
          'How many links the whole list holds, whatever the page: those the filters let through.',
      }),
      'X-Total-Count-Exact': t.Literal('false', {
        [SOMETIMES]: true,
        description: `With \`q\`, when more links match than were counted (${COUNTED_AHEAD} past the offset): X-Total-Count is then that bound, a lower bound of the total.`,
      }),
      Link: t.String({
        [SOMETIMES]: true,
        description:
          'RFC 8288, on a page with more after it: `</api/links?limit=N&offset=M>; rel="next"`, followed by the filters, order and view given (`&tag=promo`).',
      }),
    },
  );
}
