// TypeBox schemas of a link's redirect rules and A/B variants (domain/link-routing.ts):
// the fields of create and PATCH bodies, and what details show. The domain's parsers are
// the rules; these say them to Elysia and the OpenAPI document.

import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import type { Message } from '../domain/errors.ts';
import {
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_IMAGE_MAX,
  PREVIEW_TITLE_MAX,
} from '../domain/link-preview.ts';
import {
  BROWSERS,
  DEVICES,
  MAX_CONDITIONS,
  MAX_RULES,
  MAX_VARIANTS,
  MIN_VARIANTS,
  QUERY_NAME_MAX,
  QUERY_VALUE_MAX,
  SYSTEMS,
} from '../domain/link-routing.ts';

type OnError = (context: { value: unknown }) => Message;

/** The schema options of every part of a body's field: the body's error, so a refusal names its rule. */
type Err = { error?: OnError };

const literals = (values: readonly string[], e: Err) =>
  t.Union(
    values.map((v) => t.Literal(v, e)),
    e,
  );

/** One condition, by its type. */
function conditionSchema(onError?: OnError) {
  const e = onError === undefined ? {} : { error: onError };
  const of = (
    type: string,
    value: ReturnType<typeof t.String> | ReturnType<typeof t.Union> | ReturnType<typeof t.Boolean>,
    description: string,
  ) => t.Object({ type: t.Literal(type), value }, { ...e, description });
  return t.Union(
    [
      of('device', literals(DEVICES, e), 'The device: `mobile`, `tablet` or `desktop`.'),
      of('os', literals(SYSTEMS, e), 'The operating system.'),
      of('browser', literals(BROWSERS, e), 'The browser.'),
      of(
        'language',
        t.String({ ...e, pattern: '^[A-Za-z]{2,3}$' }),
        "The primary subtag of the visitor's most preferred language in `Accept-Language` (the highest q-value): `de` matches `de-CH, en;q=0.5`, not `en, de;q=0.9`.",
      ),
      of(
        'country',
        t.String({ ...e, pattern: '^[A-Za-z]{2}$' }),
        "An ISO 3166-1 alpha-2 code (`DE`): the country of the client's address, through the trusted proxies.",
      ),
      t.Object(
        {
          type: t.Literal('query', e),
          name: t.String({ ...e, minLength: 1, maxLength: QUERY_NAME_MAX }),
          value: t.Optional(t.String({ ...e, maxLength: QUERY_VALUE_MAX })),
        },
        {
          ...e,
          description:
            'The query parameter `name` is present (no `value`), or one of its values equals `value`.',
        },
      ),
      of(
        'after',
        t.String({ ...e, format: 'date-time' }),
        'From this instant on (ISO 8601 with a time zone; shown in UTC).',
      ),
      of('before', t.String({ ...e, format: 'date-time' }), 'Until this instant (excluded).'),
      of('bot', t.Boolean(e), 'Whether the visitor is a bot or crawler.'),
    ],
    { ...e, title: 'RuleCondition' },
  );
}

function ruleSchema(onError?: OnError) {
  const e = onError === undefined ? {} : { error: onError };
  return t.Object(
    {
      url: t.String({ ...e, description: 'Where a visit that meets every condition goes.' }),
      conditions: t.Array(conditionSchema(onError), {
        ...e,
        minItems: 1,
        maxItems: MAX_CONDITIONS,
      }),
    },
    { ...e, title: 'RedirectRule' },
  );
}

function variantSchema(onError?: OnError) {
  const e = onError === undefined ? {} : { error: onError };
  return t.Object(
    {
      url: t.String({ ...e }),
      weight: Type.Integer({ ...e, minimum: 1, maximum: 100 }),
    },
    { ...e, title: 'Variant' },
  );
}

/** The `rules` and `variants` fields of a create or PATCH body, with `onError` for the body. */
export function routingFields(onError: OnError) {
  return {
    rules: t.Optional(
      t.Union(
        [
          t.Array(ruleSchema(onError), { maxItems: MAX_RULES, error: onError }),
          t.Null({ error: onError }),
        ],
        {
          error: onError,
          description: `Up to ${MAX_RULES} redirect rules, in order; each has 1 to ${MAX_CONDITIONS} conditions and a target, checked like \`url\`. A visit goes to the target of the first rule whose conditions all match; when none does, to the A/B split, else to \`url\`. A password link's rules apply once the password is accepted. On PATCH the whole list is replaced; \`[]\` or null clears it. A refusal names the place: \`rules[2].conditions[0]: …\`.`,
          examples: [
            [
              {
                url: 'https://apps.apple.com/app/id0000000000',
                conditions: [{ type: 'os', value: 'ios' }],
              },
              {
                url: 'https://example.com/de',
                conditions: [{ type: 'language', value: 'de' }],
              },
            ],
          ],
        },
      ),
    ),
    variants: t.Optional(
      t.Union(
        [
          t.Array(variantSchema(onError), {
            minItems: 0,
            maxItems: MAX_VARIANTS,
            error: onError,
          }),
          t.Null({ error: onError }),
        ],
        {
          error: onError,
          description: `An A/B split: ${MIN_VARIANTS} to ${MAX_VARIANTS} targets (each checked like \`url\`) with whole weights from 1 to 100 adding up to 100. A new visitor is sent to one by weight and keeps it (a cookie \`kurz_variant\`, scoped to the link's path, HttpOnly, SameSite=Lax, 30 days). \`[]\` or null clears it.`,
          examples: [
            [
              { url: 'https://example.com/landing-a', weight: 50 },
              { url: 'https://example.com/landing-b', weight: 50 },
            ],
          ],
        },
      ),
    ),
  };
}

/** The `preview` field of a create or PATCH body. */
export function previewField(onError: OnError) {
  const e = { error: onError };
  const text = (max: number) => t.Union([t.String({ ...e, maxLength: max }), t.Null(e)], e);
  return {
    preview: t.Optional(
      t.Union(
        [
          t.Literal('auto', e),
          t.Object(
            {
              title: t.Optional(text(PREVIEW_TITLE_MAX)),
              description: t.Optional(text(PREVIEW_DESCRIPTION_MAX)),
              image: t.Optional(
                t.Union(
                  [
                    t.String({ ...e, maxLength: PREVIEW_IMAGE_MAX, pattern: '^https://' }),
                    t.Null(e),
                  ],
                  e,
                ),
              ),
            },
            { ...e, title: 'PreviewCard' },
          ),
          t.Null(e),
        ],
        {
          ...e,
          description: `What link-preview crawlers (chat and social apps) are shown instead of the redirect: a card of a title (at most ${PREVIEW_TITLE_MAX} characters), a description (${PREVIEW_DESCRIPTION_MAX}) and an image (an https URL), at least one of them; or \`"auto"\`: the target page's own card (its Open Graph tags, else its title and description), read once in the background. null: none. Not shown for a link with a password.`,
          examples: [
            {
              title: 'Spring sale',
              description: 'Everything 20% off until May',
              image: 'https://example.com/sale.png',
            },
          ],
        },
      ),
    ),
  };
}

const PreviewDetail = t.Object(
  {
    mode: t.Union([t.Literal('manual'), t.Literal('auto')], {
      description: '`manual`: given; `auto`: read from the target page.',
    }),
    status: t.Union([t.Literal('ready'), t.Literal('pending'), t.Literal('failed')], {
      description:
        '`pending`: an auto preview not read yet; `failed`: it could not be, see `error`.',
    }),
    title: t.Union([t.String(), t.Null()]),
    description: t.Union([t.String(), t.Null()]),
    image: t.Union([t.String(), t.Null()]),
    error: t.Union([t.String(), t.Null()], {
      description: 'Why an auto preview could not be read.',
    }),
  },
  { title: 'LinkPreview' },
);

/** What details show: the rules and the split, `[]` when none; the preview, or null. */
export const routingDetailFields = {
  rules: t.Array(ruleSchema(), { description: 'Its redirect rules, in order; `[]`: none.' }),
  variants: t.Array(variantSchema(), { description: 'Its A/B split; `[]`: none.' }),
  preview: t.Union([PreviewDetail, t.Null()], {
    description: 'The card link-preview crawlers are shown; null: none.',
  }),
};
