// TypeBox schemas of the link endpoints: what Elysia validates and what the OpenAPI
// document shows. Field rules are the domain's (see http/model.ts).

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Mode } from '../config/config.ts';
import { CODE_MAX_LENGTH, CODE_PATTERN, parseCustomCode } from '../domain/codes.ts';
import { parsePreview } from '../domain/link-preview.ts';
import { parseRules, parseVariants } from '../domain/link-routing.ts';
import {
  LINK_PASSWORD_MAX_LENGTH,
  MAX_CLICKS_LIMIT,
  parseExpiresAt,
  parseLinkPassword,
  parseMaxClicks,
} from '../domain/link-settings.ts';
import { parseSource, SOURCE_MAX_LENGTH } from '../domain/sources.ts';
import { parseTags, TAG_MAX_LENGTH, TAGS_PER_LINK } from '../domain/tags.ts';
import { parseTargetUrl, URL_MAX_LENGTH } from '../domain/urls.ts';
import { bodyError, ruleFormat } from '../http/model.ts';
import { parseCreateFields } from './create-body.ts';
import { previewField, routingDetailFields, routingFields } from './routing-model.ts';

// Each rule's standard keywords hold for every value the rule accepts; what they cannot
// say (reserved words, a host, no control characters) the descriptions say.
const url = ruleFormat('kurz-url', parseTargetUrl, {
  maxLength: URL_MAX_LENGTH,
  // The scheme, then an authority that starts with a host; no whitespace anywhere.
  pattern: '^https?://[^\\s/?#]\\S*$',
});
const customCode = ruleFormat('kurz-custom-code', parseCustomCode, {
  minLength: 1,
  maxLength: CODE_MAX_LENGTH,
  pattern: CODE_PATTERN.source,
});
const source = ruleFormat('kurz-source', parseSource, { maxLength: SOURCE_MAX_LENGTH });

/** The settings of a link (create and PATCH), checked after the fields before them. */
function settingsProblem(body: Record<string, unknown>): void {
  parseExpiresAt(body.expires_at);
  parseMaxClicks(body.max_clicks);
  parseLinkPassword(body.password);
  parseTags(body.tags);
  parseRules(body.rules, () => {});
  parseVariants(body.variants, () => {});
  parsePreview(body.preview);
}

// Why a create body is wrong: the domain's checks, in their order (create-body.ts).
const error = bodyError(parseCreateFields);

/** Why a PATCH body is wrong: `url` (when given) by the create rules, then the settings. */
function changeProblem(body: Record<string, unknown>): void {
  if (body.url !== undefined) parseTargetUrl(body.url);
  settingsProblem(body);
}
const changeError = bodyError(changeProblem);

const expiresAt = ruleFormat('kurz-expires-at', parseExpiresAt, { format: 'date-time' });
const password = ruleFormat('kurz-link-password', parseLinkPassword, {
  minLength: 1,
  maxLength: LINK_PASSWORD_MAX_LENGTH,
});

const tagFormat = ruleFormat('kurz-tag', (value) => parseTags([value]), {
  minLength: 1,
  maxLength: TAG_MAX_LENGTH,
  pattern: '^[A-Za-z0-9_-]+$',
});

/** The settings fields, with `error` for the body they are part of. */
function settingFields(onError: typeof error) {
  return {
    tags: t.Optional(
      t.Union(
        [
          t.Array(t.String({ format: tagFormat, error: onError }), {
            maxItems: TAGS_PER_LINK,
            error: onError,
          }),
          t.Null({ error: onError }),
        ],
        {
          error: onError,
          description: `Up to ${TAGS_PER_LINK} tags, each 1 to ${TAG_MAX_LENGTH} letters, digits, \`-\` or \`_\`, kept lower-cased (\`Promo\` and \`promo\` are one tag). On PATCH the whole set is replaced; null clears it.`,
          examples: [['spring', 'newsletter']],
        },
      ),
    ),
    expires_at: t.Optional(
      t.Union([t.String({ format: expiresAt, error: onError }), t.Null({ error: onError })], {
        error: onError,
        description:
          'When the link stops working (410 `Link expired`): an ISO 8601 date-time with a time zone. A moment already past expires the link at once. null: never.',
        examples: ['2026-12-31T23:59:59Z'],
      }),
    ),
    max_clicks: t.Optional(
      t.Union(
        [
          Type.Integer({ minimum: 1, maximum: MAX_CLICKS_LIMIT, error: onError }),
          t.Null({ error: onError }),
        ],
        {
          error: onError,
          description:
            'Clicks after which the link stops working (410 `Link expired`), exact however many visit at once. Set on a link that has clicks, it counts from those. null: no limit.',
          examples: [100],
        },
      ),
    ),
    password: t.Optional(
      t.Union([t.String({ format: password, error: onError }), t.Null({ error: onError })], {
        error: onError,
        description: `Visitors must enter it before being sent on (1 to ${LINK_PASSWORD_MAX_LENGTH} characters; stored as an argon2id hash, never shown). null: none.`,
      }),
    ),
    ...routingFields(onError),
    ...previewField(onError),
  };
}

export const ShortenBody = t.Object(
  {
    url: t.String({
      format: url,
      error,
      description: `The target. Must start with http:// or https://, have a host, hold no whitespace or control characters, and be at most ${URL_MAX_LENGTH} characters.`,
      examples: ['https://example.com/a/long/path?with=query'],
    }),
    custom_code: t.Optional(
      t.Union([t.String({ format: customCode, error }), t.Null({ error })], {
        error,
        description: `1 to ${CODE_MAX_LENGTH} characters of A-Z a-z 0-9 _ -, case-sensitive, not a reserved word. Absent or null: a 7-character code is generated.`,
        examples: ['spring-sale'],
      }),
    ),
    domain: t.Optional(
      t.Union([t.String({ error }), t.Null({ error })], {
        error,
        description:
          'The short domain: the host (`go.example.com`) or base URL of one listed by GET /api/domains. Absent or null: the default domain. A code is unique per domain. An unknown domain is 400.',
        examples: ['go.example.com'],
      }),
    ),
    source: t.Optional(
      t.Union([t.String({ format: source, error }), t.Null({ error })], {
        error,
        description: `Where the link will be shared (at most ${SOURCE_MAX_LENGTH} characters); copied into each click record.`,
        examples: ['newsletter'],
      }),
    ),
    ...settingFields(error),
  },
  {
    error,
    title: 'ShortenRequest',
    description: 'A JSON object (any Content-Type is read as JSON); at most 64 KiB.',
  },
);

const openLinkFields = {
  id: Type.Integer(),
  original_url: t.String({ description: 'The target, exactly as given.' }),
  short_code: t.String(),
  created_at: t.String({
    format: 'date-time',
    description: 'ISO 8601 UTC with milliseconds, e.g. 2026-11-21T09:30:00.000Z.',
  }),
  clicks: Type.Integer({ description: 'Redirects counted so far.' }),
};
const accountsLinkFields = {
  ...openLinkFields,
  user_id: t.Union([Type.Integer(), t.Null()], { description: 'The owner.' }),
};
const LINK = { title: 'Link', description: 'A short link.' };

/** A link as open mode shows it. */
export const OpenLink = t.Object(openLinkFields, LINK);
/** A link as accounts mode shows it: with its owner. */
export const AccountsLink = t.Object(accountsLinkFields, LINK);

/** A link as the API shows it: accounts mode adds `user_id`. */
export function linkSchema(mode: Mode) {
  return mode === 'accounts' ? AccountsLink : OpenLink;
}

export const ChangeBody = t.Object(
  {
    url: t.Optional(
      t.String({
        format: url,
        error: changeError,
        description: 'A new target, by the same rules as at creation; followed at once.',
      }),
    ),
    ...settingFields(changeError),
  },
  {
    error: changeError,
    title: 'LinkChange',
    description:
      'Only the fields given change; null clears `expires_at`, `max_clicks`, `password`, `tags`, `rules` and `variants`.',
  },
);

/** What GET and PATCH /api/links/{code} add to the link object. */
const detailFields = {
  short_url: t.String({ description: "The short link: its domain's base URL and its code." }),
  domain: t.String({
    description: "The host of its short domain (the default one is `--base-url`'s).",
  }),
  tags: t.Array(t.String(), { description: 'Its tags, lower-cased, in alphabetical order.' }),
  source: t.Union([t.String(), t.Null()], { description: 'The `source` given at creation.' }),
  expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()], {
    description: 'ISO 8601 UTC with milliseconds, or null: never.',
  }),
  max_clicks: t.Union([Type.Integer(), t.Null()], { description: 'null: no limit.' }),
  password_protected: t.Boolean(),
  ...routingDetailFields,
  status: t.Union([t.Literal('active'), t.Literal('expired')], {
    description: '`expired` past `expires_at` or once `max_clicks` clicks are counted.',
  }),
  disabled: t.Boolean({
    description:
      'Whether an admin disabled the link: it answers 410 `Link disabled` whatever else holds. Only an admin enables it again; its owner may still delete it.',
  }),
  disabled_reason: t.Union([t.String(), t.Null()], {
    description: 'Why, as the admin gave it; null: not disabled, or no reason given.',
  }),
};
const LINK_DETAIL = { title: 'LinkDetail', description: 'A short link with its settings.' };

/** A link with everything kept of it (GET, PATCH /api/links/{code}), in open mode. */
export const OpenLinkDetail = t.Object({ ...openLinkFields, ...detailFields }, LINK_DETAIL);
/** The same in accounts mode, with its owner. */
export const AccountsLinkDetail = t.Object({ ...accountsLinkFields, ...detailFields }, LINK_DETAIL);

/** A link with everything kept of it, as `mode` shows it. */
export function linkDetailSchema(mode: Mode) {
  return mode === 'accounts' ? AccountsLinkDetail : OpenLinkDetail;
}

export const CodeParams = t.Object({ code: t.String({ description: 'A short code.' }) });
