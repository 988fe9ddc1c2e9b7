// TypeBox schemas of the tag endpoints: what Elysia validates and what the OpenAPI
// document shows. A tag's stats have a link's traffic fields (analytics/model.ts).

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { TRAFFIC_FIELDS } from '../analytics/model.ts';
import { Messages } from '../domain/errors.ts';
import { parseTag, TAG_MAX_LENGTH, TAG_PATTERN } from '../domain/tags.ts';
import { ruleFormat } from '../http/model.ts';

const tag = ruleFormat('kurz-tag', parseTag, {
  minLength: 1,
  maxLength: TAG_MAX_LENGTH,
  pattern: TAG_PATTERN.source,
});

export const TagParams = t.Object({
  tag: t.String({
    format: tag,
    error: Messages.tagRule,
    description: 'A tag, in any case: tags are compared case-insensitively.',
  }),
});

const TagSummary = t.Object(
  {
    tag: t.String({ description: 'Lower-cased.' }),
    links: Type.Integer({ description: 'Links carrying it.' }),
    clicks: Type.Integer({ description: 'Their clicks of all time.' }),
  },
  { title: 'Tag' },
);

export const TagList = t.Array(TagSummary, {
  description: 'In code-unit order of the tag (- before digits before _ before letters).',
});

export const TagStats = t.Object(
  {
    tag: t.String({ description: 'Lower-cased.' }),
    links: Type.Integer({ description: 'Links carrying it: the traffic is theirs, summed.' }),
    ...TRAFFIC_FIELDS,
  },
  { title: 'TagStats' },
);
