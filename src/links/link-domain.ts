// Which short domain a request about a link means: the `domain` field of a new link, or
// `?domain=` on the per-link endpoints (as Shlink's API takes it), each naming the
// domain's host or base URL; absent, the default domain. A code is unique per domain,
// so `promo` on each domain is reached by naming the domain.

import { t } from 'elysia';
import { badRequest, Messages } from '../domain/errors.ts';
import type { DomainRegistry, ShortDomain } from '../domains/registry.ts';

export type Domains = Pick<DomainRegistry, 'default' | 'find' | 'domainOf'>;

/** The domain a client names (absent or null: the default one); 400 for one not registered. */
export function namedDomain(domains: Domains, name: unknown): ShortDomain {
  if (name === undefined || name === null || name === '') return domains.default;
  const domain = typeof name === 'string' ? domains.find(name) : undefined;
  if (domain === undefined) throw badRequest(Messages.unknownDomain);
  return domain;
}

/** The domain of `?domain=` in a request's URL. */
export function queryDomain(domains: Domains, request: Request): ShortDomain {
  const q = request.url.indexOf('?');
  if (q === -1) return domains.default;
  return namedDomain(domains, new URLSearchParams(request.url.slice(q + 1)).get('domain'));
}

/** `?domain=` as the OpenAPI document shows it on the per-link endpoints. */
export const domainQueryField = {
  domain: t.Optional(
    t.String({
      description:
        "The link's short domain: a host (`go.example.com`) or base URL listed by GET /api/domains. Absent: the default domain. An unknown domain is 400.",
    }),
  ),
};

/** A query of only `?domain=`. */
export const DomainQuery = t.Object(domainQueryField);
