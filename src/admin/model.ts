// TypeBox schemas of /api/admin (overview, users, links, blocklist) and the JSON of what
// they show: what Elysia validates and what the OpenAPI document shows. Field rules are
// the domain's (domain/errors.ts names each message).

import { type Static, Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { badRequest, Messages } from '../domain/errors.ts';
import { isoOrNull } from '../domain/moments.ts';
import {
  DISABLED_REASON_MAX_LENGTH,
  parseBlockHost,
  parseDisabledReason,
} from '../domain/reports.ts';
import { parseBlockedHost } from '../domain/targets.ts';
import { bodyError, withHeaderSchemas } from '../http/model.ts';
import { MAX_PAGE } from '../links/paging.ts';
import type { UserSummary } from '../store/accounts.ts';
import type { AdminLink, BlockedHost, InstanceFigures } from '../store/moderation.ts';

const iso = (description: string) => t.String({ format: 'date-time', description });
const isoOrNone = (description: string) =>
  t.Union([t.String({ format: 'date-time' }), t.Null()], { description });

export const Overview = t.Object(
  {
    links: Type.Integer({ description: 'Links of every user (and of no one).' }),
    clicks_today: Type.Integer({ description: 'Redirects counted since midnight UTC.' }),
    users: Type.Integer({ description: 'Accounts (0 in open mode).' }),
    reports_waiting: Type.Integer({ description: 'Reports not resolved yet.' }),
    disabled_links: Type.Integer(),
    blocked_hosts: Type.Integer({
      description: 'Hosts on the database blocklist (not the file’s).',
    }),
  },
  { title: 'AdminOverview', description: 'The instance’s figures.' },
);

export function overviewJson(figures: InstanceFigures, accounts: boolean): Static<typeof Overview> {
  return {
    links: figures.links,
    clicks_today: figures.clicksToday,
    users: accounts ? figures.users : 0,
    reports_waiting: figures.reportsWaiting,
    disabled_links: figures.disabledLinks,
    blocked_hosts: figures.blockedHosts,
  };
}

/** The paging every admin list takes: limit 1 to 1000 (100 when absent), offset. */
const pageFields = {
  limit: t.Optional(
    t.String({ description: `Page size, 1 to ${MAX_PAGE}; 100 when absent.`, examples: ['100'] }),
  ),
  offset: t.Optional(t.String({ description: 'Entries to skip, 0 or more.', examples: ['0'] })),
};

/** A list's headers: the total and the next page. */
export function pagedList<S extends Parameters<typeof t.Array>[0]>(item: S, description: string) {
  return withHeaderSchemas(t.Array(item, { description }), {
    'X-Total-Count': Type.Integer({
      minimum: 0,
      description: 'How many entries the filters let through, whatever the page.',
    }),
  });
}

export const UserQuery = t.Object({
  ...pageFields,
  q: t.Optional(
    t.String({ description: 'Only users whose e-mail contains this text (any case).' }),
  ),
});

export const AdminUser = t.Object(
  {
    id: Type.Integer(),
    email: t.String(),
    created_at: iso('When the account was made.'),
    links: Type.Integer({ description: 'Links it owns.' }),
    admin: t.Boolean({ description: 'Whether it reaches /api/admin.' }),
    disabled: t.Boolean({
      description: 'Whether an admin disabled it: its tokens and API keys answer 401, sign-in 403.',
    }),
    disabled_at: isoOrNone('When it was disabled; null: enabled.'),
    sign_in: t.Array(t.Union([t.Literal('password'), t.Literal('oidc')]), {
      description:
        'How it signs in: `password` when it has one, `oidc` once it signed in through the identity provider.',
    }),
  },
  { title: 'AdminUser', description: 'An account, as admins see it.' },
);

export function adminUserJson(user: UserSummary): Static<typeof AdminUser> {
  const signIn: ('password' | 'oidc')[] = [];
  if (user.password) signIn.push('password');
  if (user.oidc) signIn.push('oidc');
  return {
    id: user.id,
    email: user.email,
    created_at: new Date(user.createdAt).toISOString(),
    links: user.links,
    admin: user.admin,
    disabled: user.disabledAt !== null,
    disabled_at: isoOrNull(user.disabledAt),
    sign_in: signIn,
  };
}

export const UserParams = t.Object({ id: t.String({ description: 'The user’s id.' }) });

/** A user's id from the path; 404 when it is none. */
export function userIdParam(value: string): number | undefined {
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

function userChange(body: Record<string, unknown>): { disabled?: boolean; admin?: boolean } {
  for (const field of ['disabled', 'admin'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'boolean') {
      throw badRequest(Messages.userChangeRule);
    }
  }
  return body as { disabled?: boolean; admin?: boolean };
}

const userChangeError = bodyError(userChange);

export const UserChangeBody = t.Object(
  {
    disabled: t.Optional(
      t.Boolean({
        error: userChangeError,
        description: 'true disables the account at once; false enables it again.',
      }),
    ),
    admin: t.Optional(
      t.Boolean({ error: userChangeError, description: 'true makes it an admin; false, no more.' }),
    ),
  },
  {
    error: userChangeError,
    title: 'AdminUserChange',
    description: 'Only the fields given change.',
  },
);

export const RemoveUserQuery = t.Object({
  links: t.Optional(
    t.String({
      description:
        'Required: `delete` removes the user’s links with their clicks; `keep` keeps them as no one’s (they go on working).',
      examples: ['keep'],
    }),
  ),
});

/** The `links` choice of a removal; 400 unless given as delete or keep. */
export function parseRemovedLinks(value: string | undefined): 'delete' | 'keep' {
  if (value !== 'delete' && value !== 'keep') throw badRequest(Messages.removedLinksRule);
  return value;
}

export const LinkQuery = t.Object({
  ...pageFields,
  q: t.Optional(
    t.String({
      description:
        'Only links whose short code or target contains this text (letters in any case).',
    }),
  ),
  owner: t.Optional(
    t.String({
      description: 'Only links whose owner’s e-mail contains this text (accounts mode).',
    }),
  ),
  domain: t.Optional(
    t.String({ description: 'Only links of this short domain, by its host or base URL.' }),
  ),
  disabled: t.Optional(
    t.String({ description: '`true`: only disabled links; `false`: only the others.' }),
  ),
});

/** `disabled=` of the link list; 400 unless true or false. */
export function parseDisabledFilter(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw badRequest(Messages.disabledFilterRule);
  return value === 'true';
}

const Owner = t.Union([t.Object({ id: Type.Integer(), email: t.String() }), t.Null()], {
  description: 'Its owner; null for links of no one (open mode, or kept from a removed user).',
});

export const AdminLinkSchema = t.Object(
  {
    code: t.String(),
    short_url: t.String(),
    original_url: t.String(),
    domain: t.String({ description: 'The host of its short domain.' }),
    owner: Owner,
    created_at: iso('When it was made.'),
    clicks: Type.Integer(),
    disabled: t.Boolean(),
    disabled_reason: t.Union([t.String(), t.Null()], { description: 'As the admin gave it.' }),
    disabled_at: isoOrNone('When it was disabled; null: enabled.'),
  },
  { title: 'AdminLink', description: 'A link of any user, as admins see it.' },
);

export type AdminLinkJson = Static<typeof AdminLinkSchema>;

export function adminLinkJson(
  link: AdminLink,
  domain: { host: string; baseUrl: string },
): AdminLinkJson {
  return {
    code: link.shortCode,
    short_url: `${domain.baseUrl}/${link.shortCode}`,
    original_url: link.originalUrl,
    domain: domain.host,
    owner:
      link.userId === null || link.ownerEmail === null
        ? null
        : { id: link.userId, email: link.ownerEmail },
    created_at: new Date(link.createdAt).toISOString(),
    clicks: link.clicks,
    disabled: link.disabledAt !== null,
    disabled_reason: link.disabledReason,
    disabled_at: isoOrNull(link.disabledAt),
  };
}

export const LinkCodeParams = t.Object({ code: t.String({ description: 'A short code.' }) });
export const LinkDomainQuery = t.Object({
  domain: t.Optional(
    t.String({
      description: 'The link’s short domain (its host or base URL); the default one when absent.',
    }),
  ),
});

/** What a disable body asks for (an absent or blank reason is none). */
export function parseDisableBody(body: Record<string, unknown>): {
  reason: string | null;
  blockHost: boolean;
} {
  return { reason: parseDisabledReason(body.reason), blockHost: parseBlockHost(body.block_host) };
}

const disableError = bodyError(parseDisableBody);

export const DisableBody = t.Object(
  {
    reason: t.Optional(
      t.Union(
        [
          t.String({ maxLength: DISABLED_REASON_MAX_LENGTH, error: disableError }),
          t.Null({ error: disableError }),
        ],
        {
          error: disableError,
          description: 'Why, at most 500 characters: shown on the page the link answers with.',
          examples: ['Phishing'],
        },
      ),
    ),
    block_host: t.Optional(
      t.Boolean({
        error: disableError,
        description: 'true also puts the target’s host on the database blocklist.',
      }),
    ),
  },
  { error: disableError, title: 'DisableLink', description: 'Both fields optional.' },
);

export const BlockedHostSchema = t.Object(
  {
    host: t.String({ description: 'Blocked with its subdomains.' }),
    reason: t.Union([t.String(), t.Null()]),
    created_at: iso('When it was added.'),
  },
  { title: 'BlockedHost', description: 'A host new links may not point to.' },
);

export function blockedHostJson(entry: BlockedHost): Static<typeof BlockedHostSchema> {
  return {
    host: entry.host,
    reason: entry.reason,
    created_at: new Date(entry.createdAt).toISOString(),
  };
}

/** What a blocklist body asks for: the host, and an optional reason (blank: none). */
export function parseBlockBody(body: Record<string, unknown>): {
  host: string;
  reason: string | null;
} {
  return { host: parseBlockedHost(body.host), reason: parseDisabledReason(body.reason) };
}

const blockError = bodyError(parseBlockBody);

export const BlockBody = t.Object(
  {
    host: t.String({
      error: blockError,
      description:
        'A host name (`evil.example`, or `*.evil.example`, the same): it and its subdomains are blocked.',
      examples: ['evil.example'],
    }),
    reason: t.Optional(
      t.Union(
        [
          t.String({ maxLength: DISABLED_REASON_MAX_LENGTH, error: blockError }),
          t.Null({ error: blockError }),
        ],
        {
          error: blockError,
          description: 'Why, at most 500 characters.',
        },
      ),
    ),
  },
  { error: blockError, title: 'BlockHost' },
);

export const HostParams = t.Object({ host: t.String({ description: 'A blocked host.' }) });
