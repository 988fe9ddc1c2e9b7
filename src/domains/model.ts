// TypeBox schemas of /api/domains, and the JSON of a domain: what Elysia validates and
// what the OpenAPI document shows. Field rules are the domain's (see http/model.ts).

import { type Static, Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { Messages } from '../domain/errors.ts';
import {
  DOMAIN_URL_MAX_LENGTH,
  parseDomainRedirect,
  parseDomainUrl,
} from '../domain/short-domains.ts';
import { URL_MAX_LENGTH } from '../domain/urls.ts';
import { bodyError, ruleFormat } from '../http/model.ts';
import type { ShortDomain } from './registry.ts';

const baseUrl = ruleFormat('kurz-domain-url', parseDomainUrl, {
  maxLength: DOMAIN_URL_MAX_LENGTH,
  // The scheme, an authority with no user-info, and at most a lone `/`.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@\\\\]+/?$',
});
const redirect = ruleFormat('kurz-domain-redirect', parseDomainRedirect, {
  maxLength: URL_MAX_LENGTH,
  pattern: '^https?://[^\\s/?#]\\S*$',
});

/** The answers of a domain, with `error` for the body they are part of. */
function answerFields(onError: ReturnType<typeof bodyError>) {
  const field = (description: string) =>
    t.Optional(
      t.Union([t.String({ format: redirect, error: onError }), t.Null({ error: onError })], {
        error: onError,
        description,
        examples: ['https://example.com/'],
      }),
    );
  return {
    root_redirect: field(
      'Where a bare `/` on this domain sends visitors (302), a URL as a link’s target is. Null or absent: the web UI, as on the default domain.',
    ),
    not_found_redirect: field(
      'Where a code this domain has no link for sends visitors (302), instead of 404 `Not found`. Reserved words and the API are not codes. Null or absent: the 404.',
    ),
  };
}

function answersProblem(body: Record<string, unknown>): void {
  parseDomainRedirect(body.root_redirect);
  parseDomainRedirect(body.not_found_redirect);
}

const newError = bodyError((body) => {
  parseDomainUrl(body.base_url);
  answersProblem(body);
});

export const DomainBody = t.Object(
  {
    base_url: t.String({
      format: baseUrl,
      error: newError,
      description:
        'The domain as short URLs begin: `http://` or `https://`, a host, an optional port, nothing after (a lone trailing `/` is dropped). Stored in lower case, an international name in punycode, without a default port.',
      examples: ['https://go.example.com'],
    }),
    ...answerFields(newError),
  },
  {
    error: newError,
    title: 'DomainRequest',
    description: 'A JSON object (any Content-Type is read as JSON); at most 64 KiB.',
  },
);

const changeError = bodyError(answersProblem);

export const DomainChangeBody = t.Object(answerFields(changeError), {
  error: changeError,
  title: 'DomainChange',
  description:
    'The answers to change: a field given replaces its value (null clears it), one absent stays.',
});

export const DomainSchema = t.Object(
  {
    domain: t.String({
      description:
        'Its host (with its port, if not the default one): what `{domain}` in a path, and a link’s `domain`, name it by.',
      examples: ['go.example.com'],
    }),
    base_url: t.String({ description: 'Short URLs on it are `base_url/code`.' }),
    default: t.Boolean({
      description:
        'Whether it is the default domain, `--base-url`’s: links made without a domain are on it. It is not added, changed or removed here.',
    }),
    root_redirect: t.Union([t.String(), t.Null()], {
      description: 'Where its bare `/` goes; null: the web UI.',
    }),
    not_found_redirect: t.Union([t.String(), t.Null()], {
      description: 'Where its unknown codes go; null: 404 `Not found`.',
    }),
    links: t.Optional(
      Type.Integer({
        minimum: 0,
        description: 'How many links (of every user) are on it: shown to the admin token only.',
      }),
    ),
  },
  { title: 'Domain', description: 'A short domain: a base URL short links are served under.' },
);

export type DomainJson = Static<typeof DomainSchema>;

export const DomainList = t.Array(DomainSchema, {
  description: 'Every domain, the default one first, then the others as they were added.',
});

export const DomainParams = t.Object({
  domain: t.String({
    description:
      'The domain’s host (`go.example.com`, `go.example.com:8443`), or its base URL, URL-encoded.',
  }),
});

/** `?with_links=`: whether a domain's removal takes its links with it. */
export const RemovalQuery = t.Object(
  {
    with_links: t.Optional(
      t.UnionEnum(['true', 'false'], {
        default: undefined,
        error: Messages.domainWithLinksRule,
        description:
          '`true`: remove the domain’s links too, with their clicks (each one’s `link.deleted` is sent to webhooks). Without it, a domain that has links is refused.',
      }),
    ),
  },
  { error: Messages.domainWithLinksRule },
);

/** The JSON of a domain; `links` only where the caller may see counts of every user's links. */
export function domainJson(domain: ShortDomain, links?: number): DomainJson {
  return {
    domain: domain.host,
    base_url: domain.baseUrl,
    default: domain.isDefault,
    root_redirect: domain.rootRedirect,
    not_found_redirect: domain.notFoundRedirect,
    ...(links === undefined ? {} : { links }),
  };
}
