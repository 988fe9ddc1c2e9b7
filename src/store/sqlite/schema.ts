// SQLite schema, the source drizzle-kit generates drizzle/sqlite/*.sql from.
// Times are integer milliseconds since the Unix epoch (UTC).

import { sql } from 'drizzle-orm';
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // Stored trimmed and lower-cased, so uniqueness is case-insensitive.
    email: text('email', { length: 255 }).notNull().unique(),
    passwordHash: text('password_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    // Raised when the password changes: a token carries the version it was issued under,
    // and one of an older version is refused, so a new password ends every session.
    tokenVersion: integer('token_version').notNull().default(0),
    // An admin reaches /api/admin and the admin panel (kurz user promote, or the OIDC
    // admin claim).
    admin: integer('admin', { mode: 'boolean' }).notNull().default(false),
    // When an admin disabled the account; null: enabled. A disabled user's tokens and API
    // keys are refused at once, and they cannot sign in.
    disabledAt: integer('disabled_at'),
    // The OpenID provider's issuer and subject the account signs in as; null: none yet.
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
  },
  (table) => [uniqueIndex('users_oidc').on(table.oidcIssuer, table.oidcSubject)],
);

// The short domains besides the default one (whose base URL is --base-url's, and which
// is domain 0: it has no row, so a new --base-url moves its links with it).
export const domains = sqliteTable('domains', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  // scheme://host[:port], as added (normalised: lower case, punycode, no default port).
  baseUrl: text('base_url').notNull(),
  // The canonical host (hostname[:port]) a request's Host is compared with.
  host: text('host').notNull().unique(),
  // Where a bare `/` on this domain goes; null: the web UI, as on the default domain.
  rootRedirect: text('root_redirect'),
  // Where an unknown code on this domain goes; null: the JSON 404.
  notFoundRedirect: text('not_found_redirect'),
  createdAt: integer('created_at').notNull(),
});

export const links = sqliteTable(
  'links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // The short domain: 0 for the default one, else a row of `domains`. No foreign key:
    // domain 0 has no row.
    domainId: integer('domain_id').notNull().default(0),
    // Null for links made in open mode.
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    originalUrl: text('original_url').notNull(),
    // Custom codes may be 32 characters; the column holds them whole. Unique per domain.
    shortCode: text('short_code', { length: 32 }).notNull(),
    // The `source` given at creation; copied into each click record.
    source: text('source'),
    createdAt: integer('created_at').notNull(),
    // After this moment the link answers 410; null: never.
    expiresAt: integer('expires_at'),
    // After this many clicks the link answers 410; null: no limit.
    maxClicks: integer('max_clicks'),
    // Clicks counted against max_clicks, raised in the click batch's transaction only
    // for a link that has a limit: the one row a limited link's clicks must serialise on.
    limitedClicks: integer('limited_clicks').notNull().default(0),
    // argon2id hash of the link's password; null: no password.
    passwordHash: text('password_hash'),
    // Redirect rules and A/B variants (domain/link-routing.ts), and the preview shown to
    // link-preview crawlers, each as JSON text; null: none.
    rules: text('rules'),
    variants: text('variants'),
    preview: text('preview'),
    // When an admin disabled the link (it answers 410 and counts nothing), and why (shown
    // on the disabled-link page); null: enabled.
    disabledAt: integer('disabled_at'),
    disabledReason: text('disabled_reason'),
    // No click counter here: counts are kept apart (see click-counts.ts), so that a
    // redirect never rewrites a random page of this table.
  },
  (table) => [
    // Unique per domain, code first: the same index serves the redirect's lookup (both
    // columns equal) and the list sorted by code (code bytes, then domain and id), so a
    // new link enters one index at a random place, not two (migration 0009).
    uniqueIndex('links_code_domain').on(table.shortCode, table.domainId),
    index('links_domain_newest').on(
      table.domainId,
      sql`${table.createdAt} desc`,
      sql`${table.id} desc`,
    ),
    index('links_user_newest').on(
      table.userId,
      sql`${table.createdAt} desc`,
      sql`${table.id} desc`,
    ),
    index('links_newest').on(sql`${table.createdAt} desc`, sql`${table.id} desc`),
  ],
);

// A link's tags, lower-cased: the whole set is replaced when it changes. Read by link
// (details, the full list) and by tag (the list's filter, a tag's stats).
export const linkTags = sqliteTable(
  'link_tags',
  {
    linkId: integer('link_id').notNull(),
    tag: text('tag', { length: 32 }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.linkId, table.tag] }),
    index('link_tags_tag').on(table.tag, table.linkId),
  ],
);

// The click log: append-only and written on every redirect, so a click must cost one
// b-tree append and nothing more. Hence no secondary index (analytics will add the
// indexes or rollups it needs) and no foreign key: checking one meant a random read of
// `links` per click, the largest cost left with a million links. Clicks are only ever
// written for a link the redirect has just resolved.
export const clicks = sqliteTable('clicks', {
  // A plain rowid key: AUTOINCREMENT would add a sqlite_sequence write to every batch.
  id: integer('id').primaryKey(),
  linkId: integer('link_id').notNull(),
  source: text('source'),
  querySource: text('query_source'),
  referrer: text('referrer'),
  userAgent: text('user_agent'),
  createdAt: integer('created_at').notNull(),
  // The country of the client address, looked up when the batch is written; the
  // address itself is never stored.
  country: text('country'),
  // What served the click (`rule:N`, `variant:N`); null: the link's own target.
  route: text('route'),
});

// Analytics. The click log above is a queue: the analytics rollup moves its rows, once
// counted, into compact click records (repeated strings stored once and referred to by
// id) and daily rollups, so that storage grows with time rather than with text per click
// and a link's stats cost O(days + top entries).

/** Sources, referrers and the names stats group by (browsers, countries…), each stored once. */
export const clickStrings = sqliteTable('click_strings', {
  id: integer('id').primaryKey(),
  value: text('value').notNull().unique(),
});

/** Each distinct User-Agent once, with what parsing it found. */
export const clickAgents = sqliteTable('click_agents', {
  id: integer('id').primaryKey(),
  value: text('value').notNull().unique(),
  browser: text('browser').notNull(),
  os: text('os').notNull(),
  device: text('device').notNull(),
  bot: integer('bot', { mode: 'boolean' }).notNull(),
});

/**
 * One row per click, kept for the CSV export until --click-retention-days removes it;
 * the id is the click's id in the log. Strings are ids in click_strings / click_agents.
 */
export const clickRecords = sqliteTable(
  'click_records',
  {
    id: integer('id').primaryKey(),
    linkId: integer('link_id').notNull(),
    createdAt: integer('created_at').notNull(),
    source: integer('source'),
    querySource: integer('query_source'),
    referrer: integer('referrer'),
    agent: integer('agent'),
    country: text('country'),
    route: text('route'),
  },
  (table) => [index('click_records_link').on(table.linkId, table.id)],
);

/**
 * Clicks per link, UTC day (days since the epoch), dimension and value: what stats
 * read. `dimension` is a small code (see analytics/dimensions.ts); `value` an id in
 * click_strings (0 where the dimension has no value, such as the human/bot totals).
 * Kept when click records are removed by retention.
 */
export const clickDays = sqliteTable(
  'click_days',
  {
    linkId: integer('link_id').notNull(),
    day: integer('day').notNull(),
    dimension: integer('dimension').notNull(),
    value: integer('value').notNull(),
    clicks: integer('clicks').notNull(),
  },
  (table) => [primaryKey({ columns: [table.linkId, table.day, table.dimension, table.value] })],
);

/**
 * click_days summed per tag over the links of one owner that carry it (owner: the links'
 * user_id, 0 for links of no one): what a tag's stats read, so that they cost the tag's
 * days and values, not its links' (over 1,000 links, 90 days of click_days are two
 * million rows, and summing 30 days of them takes seconds: bench/tag-stats.ts). Kept
 * exact, in the transaction of each change of what it sums (see tags.ts): the rollup
 * adds what it adds to click_days for each tag of the link; a change of a link's tags
 * moves the link's rows from the tags it lost to those it gained; a link's removal
 * takes them away; a user's removal takes theirs away, or hands them to owner 0 with
 * the links.
 */
export const tagDays = sqliteTable(
  'tag_days',
  {
    owner: integer('owner').notNull(),
    tag: text('tag', { length: 32 }).notNull(),
    day: integer('day').notNull(),
    dimension: integer('dimension').notNull(),
    value: integer('value').notNull(),
    clicks: integer('clicks').notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.owner, table.tag, table.day, table.dimension, table.value],
    }),
  ],
);

/** One row: the id of the last click the analytics rollup moved out of the log. */
export const clickRollup = sqliteTable('click_rollup', {
  id: integer('id').primaryKey(),
  through: integer('through').notNull(),
});

/**
 * The clicks still in the log, counted per link, UTC day, log column (its index in
 * LOG_COLUMNS, domain/clicks.ts) and raw value: what stats read of the log, so that a
 * backlog of a million clicks costs a link's stats its distinct values, not a scan. Kept
 * exact in the transactions that change the log: a click batch adds its counts, the
 * rollup takes away what it moves. `has_value` 0 with value '' stands for null (nulls
 * are distinct in a key); no rows for clicks without a source or query source.
 */
export const pendingValues = sqliteTable(
  'pending_values',
  {
    linkId: integer('link_id').notNull(),
    day: integer('day').notNull(),
    logColumn: integer('log_column').notNull(),
    hasValue: integer('has_value').notNull(),
    value: text('value').notNull(),
    clicks: integer('clicks').notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.linkId, table.day, table.logColumn, table.hasValue, table.value],
    }),
  ],
);

/**
 * How many links each owner has (owner 0: links of no one), kept by triggers (see the
 * 0001 migration) so that X-Total-Count never counts a million rows.
 */
export const linkTotals = sqliteTable('link_totals', {
  owner: integer('owner').primaryKey(),
  links: integer('links').notNull(),
});

/** Server-wide settings, such as the generated JWT secret. */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * API keys: long-lived credentials for scripts, one user's each. The key is shown once
 * when made; only its SHA-256 is kept (a key is 190 random bits, so a fast hash is as
 * safe as a slow one, and a lookup by it is one index probe).
 */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // The key's first characters, shown in lists so that a key can be told apart.
    prefix: text('prefix').notNull(),
    // SHA-256 of the whole key, hex.
    secretHash: text('secret_hash').notNull().unique(),
    // 'read' (list, stats) or 'write' (also create, edit, delete).
    scope: text('scope').notNull(),
    createdAt: integer('created_at').notNull(),
    // After this moment the key is refused; null: never.
    expiresAt: integer('expires_at'),
    // Last accepted use, written at most once a minute per key; null: never used.
    lastUsedAt: integer('last_used_at'),
  },
  (table) => [index('api_keys_user').on(table.userId)],
);

/** Endpoints told of events: one user's (null: open mode's, managed with the admin token). */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    // The signing secret (whsec_ and base64), kept: every delivery is signed with it.
    secret: text('secret').notNull(),
    // The events it wants, comma-separated: link.created, link.updated, link.deleted, clicks.
    events: text('events').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    index('webhooks_user').on(table.userId),
    // Only the webhooks that want clicks: a click batch asks whether there is any, and
    // with none (the common case) this empty index answers at once, however many other
    // webhooks there are. The query must spell the condition exactly so.
    index('webhooks_clicks')
      .on(table.userId)
      .where(sql`instr(',' || events || ',', ',clicks,') > 0`),
  ],
);

/**
 * The outbox: one row per message to one webhook, written in the transaction of the
 * change it reports, so that a change committed is a message that will be sent.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    // link.created, link.updated, link.deleted or clicks.
    type: text('type').notNull(),
    // The JSON body sent, fixed when the change commits.
    payload: text('payload').notNull(),
    createdAt: integer('created_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    // When to try (again); null once delivered or given up.
    nextAttemptAt: integer('next_attempt_at'),
    deliveredAt: integer('delivered_at'),
    // The last attempt's HTTP status (null: no answer) and error, for the operator.
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
  },
  (table) => [
    index('webhook_deliveries_due').on(table.nextAttemptAt),
    index('webhook_deliveries_webhook').on(table.webhookId, table.id),
  ],
);

/**
 * Reports of abusive links, sent by anyone (POST /api/reports) and resolved by an admin.
 * A report keeps the code and domain it named, so it outlives its link's removal.
 */
export const reports = sqliteTable(
  'reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // The link reported when the report was made; no foreign key: a report outlives it.
    linkId: integer('link_id'),
    domainId: integer('domain_id').notNull().default(0),
    shortCode: text('short_code', { length: 32 }).notNull(),
    // phishing, malware, spam, illegal or other.
    reason: text('reason').notNull(),
    details: text('details'),
    createdAt: integer('created_at').notNull(),
    // When an admin resolved it, how (disable_link, disable_user, dismiss) and who (a
    // user id; null: the admin token); all null while it waits.
    resolvedAt: integer('resolved_at'),
    resolution: text('resolution'),
    resolvedBy: integer('resolved_by'),
  },
  (table) => [
    index('reports_waiting').on(table.id).where(sql`${table.resolvedAt} IS NULL`),
    index('reports_link').on(table.linkId),
  ],
);

/**
 * Hosts new links may not point to, added by admins (often when disabling a link for
 * abuse): the database's part of the blocklist, beside the --blocklist file, shared by
 * every instance on the database. A host blocks its subdomains too, as the file's do.
 */
export const blockedHosts = sqliteTable('blocked_hosts', {
  host: text('host').primaryKey(),
  reason: text('reason'),
  createdAt: integer('created_at').notNull(),
  // The admin who added it (a user id; null: the admin token).
  addedBy: integer('added_by'),
});

/**
 * --tls auto's ACME accounts, one per directory URL: made once, with its key, and kept, so
 * every certificate is ordered by the same account (and every instance uses it).
 */
export const acmeAccounts = sqliteTable('acme_accounts', {
  directory: text('directory').primaryKey(),
  keyPem: text('key_pem').notNull(),
  // Set once the ACME server has made the account (its URL is the account's id there).
  url: text('url'),
  createdAt: integer('created_at').notNull(),
});

/**
 * --tls auto's certificates, one per name: the PEM chain (leaf first) and its private key,
 * replaced by each renewal. Every instance on the database serves what is here.
 */
export const tlsCertificates = sqliteTable('tls_certificates', {
  name: text('name').primaryKey(),
  // The ACME directory it came from: one from another (staging) is replaced.
  directory: text('directory').notNull(),
  certPem: text('cert_pem').notNull(),
  keyPem: text('key_pem').notNull(),
  notBefore: integer('not_before').notNull(),
  notAfter: integer('not_after').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * The HTTP-01 challenges of orders under way (token → key authorization), so that any
 * instance on the database can answer the ACME server, not only the one that ordered.
 */
export const acmeChallenges = sqliteTable('acme_challenges', {
  token: text('token').primaryKey(),
  keyAuthorization: text('key_authorization').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

/**
 * Who may order certificates now: one row while an instance orders, until `expires_at`,
 * so one instance orders at a time and a holder that died stops blocking once it expires.
 */
export const acmeLease = sqliteTable('acme_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

/**
 * The tables whose rows belong to one link, by `link_id`: its clicks in every form, and its tags.
 * They have no foreign key (see `clicks`), so removing a link, or a user with their
 * links, removes their rows from each of these by hand.
 */
export const LINK_CLICK_TABLES = [
  'clicks',
  'click_records',
  'click_days',
  'pending_values',
  'link_tags',
] as const;
