// PostgreSQL schema, the source drizzle-kit generates drizzle/postgres/*.sql from.
// The same tables and columns as SQLite's (store/sqlite/schema.ts), so `kurz copy`
// moves rows between them unchanged. Times are bigint milliseconds since the Unix
// epoch (UTC), read as JavaScript numbers.

import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';

const millis = (name: string) => bigint(name, { mode: 'number' });

export const users = pgTable(
  'users',
  {
    // BY DEFAULT, not ALWAYS: `kurz copy` inserts the ids it copies.
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    // Stored trimmed and lower-cased, so uniqueness is case-insensitive.
    email: varchar('email', { length: 255 }).notNull().unique(),
    passwordHash: text('password_hash').notNull(),
    createdAt: millis('created_at').notNull(),
    // Raised when the password changes: tokens of an older version are refused.
    tokenVersion: integer('token_version').notNull().default(0),
    // As on SQLite: the admin role, the moment an admin disabled the account, and the
    // OpenID provider's issuer and subject the account signs in as.
    admin: boolean('admin').notNull().default(false),
    disabledAt: millis('disabled_at'),
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
  },
  (table) => [uniqueIndex('users_oidc').on(table.oidcIssuer, table.oidcSubject)],
);

// The short domains besides the default one (domain 0, --base-url's, which has no row).
export const domains = pgTable('domains', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  baseUrl: text('base_url').notNull(),
  // The canonical host (hostname[:port]) a request's Host is compared with.
  host: text('host').notNull().unique(),
  rootRedirect: text('root_redirect'),
  notFoundRedirect: text('not_found_redirect'),
  createdAt: millis('created_at').notNull(),
});

export const links = pgTable(
  'links',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    // 0: the default domain; else a row of `domains` (no foreign key: 0 has no row).
    domainId: integer('domain_id').notNull().default(0),
    // Null for links made in open mode.
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    originalUrl: text('original_url').notNull(),
    // Unique per domain.
    shortCode: varchar('short_code', { length: 32 }).notNull(),
    source: text('source'),
    createdAt: millis('created_at').notNull(),
    // As on SQLite: expiry by time or by clicks, and an optional password.
    expiresAt: millis('expires_at'),
    maxClicks: integer('max_clicks'),
    // Clicks counted against max_clicks, raised in the click batch's transaction for a
    // limited link only: its row lock makes the limit exact across instances.
    limitedClicks: integer('limited_clicks').notNull().default(0),
    passwordHash: text('password_hash'),
    // Redirect rules and A/B variants (domain/link-routing.ts), and the preview shown to
    // link-preview crawlers, each as JSON text; null: none.
    rules: text('rules'),
    variants: text('variants'),
    preview: text('preview'),
    // When an admin disabled the link, and why; null: enabled.
    disabledAt: millis('disabled_at'),
    disabledReason: text('disabled_reason'),
  },
  (table) => [
    uniqueIndex('links_domain_code').on(table.domainId, table.shortCode),
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
    // The list sorted by code: by its bytes (collation C, as SQLite compares), then id.
    index('links_code').on(sql`${table.shortCode} collate "C"`, table.id),
  ],
);

// A link's tags, lower-cased, as on SQLite.
export const linkTags = pgTable(
  'link_tags',
  {
    linkId: integer('link_id').notNull(),
    tag: varchar('tag', { length: 32 }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.linkId, table.tag] }),
    index('link_tags_tag').on(table.tag, table.linkId),
  ],
);

// The click log: one row per counted redirect, appended in batches (one multi-row
// INSERT per batch). No foreign key, as on SQLite: a click is only written for a link
// the redirect has just resolved, and checking one would cost a read per click. The
// index on link_id is for deleting a link's clicks and rebuilding counts.
export const clicks = pgTable(
  'clicks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    linkId: integer('link_id').notNull(),
    source: text('source'),
    querySource: text('query_source'),
    referrer: text('referrer'),
    userAgent: text('user_agent'),
    createdAt: millis('created_at').notNull(),
    // Looked up from the client address when the batch is written; the address is never stored.
    country: varchar('country', { length: 2 }),
    // What served the click (`rule:N`, `variant:N`); null: the link's own target.
    route: text('route'),
    // The shard of pending_values the click's batch added its counts to: the rollup
    // takes them away from the same rows. Not on SQLite (one writer, no shards).
    shard: smallint('shard').notNull().default(0),
  },
  (table) => [index('clicks_link').on(table.linkId)],
);

/**
 * Click counts, written in the same statement as the click records they count, so a
 * count is exact the moment its clicks commit. A link's count is the sum of its rows:
 * each batch adds to one of several shards, so instances writing clicks of the same
 * link at once update different rows and never queue on one row's lock.
 */
export const linkClicks = pgTable(
  'link_clicks',
  {
    linkId: integer('link_id').notNull(),
    shard: smallint('shard').notNull(),
    clicks: bigint('clicks', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.linkId, table.shard] })],
);

// Analytics, as on SQLite (see store/sqlite/schema.ts): the click log is a queue the
// analytics rollup moves into compact records and daily rollups.

export const clickStrings = pgTable('click_strings', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  value: text('value').notNull().unique(),
});

export const clickAgents = pgTable('click_agents', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  value: text('value').notNull().unique(),
  browser: text('browser').notNull(),
  os: text('os').notNull(),
  device: text('device').notNull(),
  bot: boolean('bot').notNull(),
});

/** No primary key of its own: the id is the click's id in the log, unique already. */
export const clickRecords = pgTable(
  'click_records',
  {
    id: bigint('id', { mode: 'number' }).notNull(),
    linkId: integer('link_id').notNull(),
    createdAt: millis('created_at').notNull(),
    source: integer('source'),
    querySource: integer('query_source'),
    referrer: integer('referrer'),
    agent: integer('agent'),
    country: varchar('country', { length: 2 }),
    route: text('route'),
  },
  (table) => [
    index('click_records_link').on(table.linkId, table.id),
    // Retention removes the oldest records: rows arrive in time order, so a BRIN index
    // finds them at a few bytes per thousand rows.
    index('click_records_time').using('brin', table.createdAt),
  ],
);

export const clickDays = pgTable(
  'click_days',
  {
    linkId: integer('link_id').notNull(),
    day: integer('day').notNull(),
    dimension: smallint('dimension').notNull(),
    value: integer('value').notNull(),
    clicks: bigint('clicks', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.linkId, table.day, table.dimension, table.value] })],
);

/** click_days summed per owner and tag, as on SQLite (see store/sqlite/schema.ts). */
export const tagDays = pgTable(
  'tag_days',
  {
    owner: integer('owner').notNull(),
    tag: varchar('tag', { length: 32 }).notNull(),
    day: integer('day').notNull(),
    dimension: smallint('dimension').notNull(),
    value: integer('value').notNull(),
    clicks: bigint('clicks', { mode: 'number' }).notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.owner, table.tag, table.day, table.dimension, table.value],
    }),
  ],
);

/**
 * The clicks still in the log, counted as on SQLite (see store/sqlite/schema.ts), each
 * key split in shards as link_clicks is: a click batch adds to the shard it took for its
 * counts, so instances writing clicks of one link at once rarely wait on one row.
 */
export const pendingValues = pgTable(
  'pending_values',
  {
    linkId: integer('link_id').notNull(),
    day: integer('day').notNull(),
    logColumn: smallint('log_column').notNull(),
    hasValue: boolean('has_value').notNull(),
    value: text('value').notNull(),
    shard: smallint('shard').notNull(),
    clicks: bigint('clicks', { mode: 'number' }).notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.linkId, table.day, table.logColumn, table.hasValue, table.value, table.shard],
    }),
  ],
);

/**
 * Each link's clicks as the list sorts by them: a row per link (a trigger adds it with
 * the link), set to the link's count by the analytics rollup whenever it moves clicks
 * of the link, so the order lags the newest clicks by the rollup's second. The counts
 * themselves (link_clicks) are sharded sums, which no index can order.
 */
export const linkClickOrder = pgTable(
  'link_click_order',
  {
    linkId: integer('link_id').primaryKey(),
    clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
  },
  (table) => [index('link_click_order_clicks').on(table.clicks, table.linkId)],
);

/**
 * How many links each domain has and each tag names, kept by triggers as link_totals
 * is: the list's total of one domain or one tag without counting its links.
 */
export const domainTotals = pgTable('domain_totals', {
  domainId: integer('domain_id').primaryKey(),
  links: bigint('links', { mode: 'number' }).notNull(),
});

export const tagTotals = pgTable('tag_totals', {
  tag: varchar('tag', { length: 32 }).primaryKey(),
  links: bigint('links', { mode: 'number' }).notNull(),
});

/** How many links each owner has (owner 0: links of no one), kept by triggers. */
export const linkTotals = pgTable('link_totals', {
  owner: integer('owner').primaryKey(),
  links: bigint('links', { mode: 'number' }).notNull(),
});

/** Server-wide settings, such as the generated JWT secret. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/** API keys, as on SQLite: only the SHA-256 of each key is kept. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull().unique(),
    scope: text('scope').notNull(),
    createdAt: millis('created_at').notNull(),
    expiresAt: millis('expires_at'),
    lastUsedAt: millis('last_used_at'),
  },
  (table) => [index('api_keys_user').on(table.userId)],
);

/** Webhooks, as on SQLite (user null: open mode's). */
export const webhooks = pgTable(
  'webhooks',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    secret: text('secret').notNull(),
    events: text('events').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (table) => [
    index('webhooks_user').on(table.userId),
    // As on SQLite: the webhooks that want clicks, for the click batch's question.
    index('webhooks_clicks')
      .on(table.userId)
      .where(sql`strpos(',' || events || ',', ',clicks,') > 0`),
  ],
);

/** The webhook outbox, as on SQLite: written in the transaction of the change it reports. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    createdAt: millis('created_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: millis('next_attempt_at'),
    deliveredAt: millis('delivered_at'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
  },
  (table) => [
    index('webhook_deliveries_due').on(table.nextAttemptAt),
    index('webhook_deliveries_webhook').on(table.webhookId, table.id),
  ],
);

/** Reports of abusive links, as on SQLite: they keep the code and domain they named. */
export const reports = pgTable(
  'reports',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    linkId: integer('link_id'),
    domainId: integer('domain_id').notNull().default(0),
    shortCode: varchar('short_code', { length: 32 }).notNull(),
    reason: text('reason').notNull(),
    details: text('details'),
    createdAt: millis('created_at').notNull(),
    resolvedAt: millis('resolved_at'),
    resolution: text('resolution'),
    resolvedBy: integer('resolved_by'),
  },
  (table) => [
    index('reports_waiting').on(table.id).where(sql`${table.resolvedAt} IS NULL`),
    index('reports_link').on(table.linkId),
  ],
);

/** The blocklist's entries kept in the database, shared by every instance (as on SQLite). */
export const blockedHosts = pgTable('blocked_hosts', {
  host: text('host').primaryKey(),
  reason: text('reason'),
  createdAt: millis('created_at').notNull(),
  addedBy: integer('added_by'),
});

/**
 * --tls auto's ACME accounts, one per directory URL: made once, with its key, and kept, so
 * every certificate is ordered by the same account (and every instance uses it).
 */
export const acmeAccounts = pgTable('acme_accounts', {
  directory: text('directory').primaryKey(),
  keyPem: text('key_pem').notNull(),
  url: text('url'),
  createdAt: millis('created_at').notNull(),
});

/**
 * --tls auto's certificates, one per name: the PEM chain (leaf first) and its private key,
 * replaced by each renewal. Every instance on the database serves what is here.
 */
export const tlsCertificates = pgTable('tls_certificates', {
  name: text('name').primaryKey(),
  // The ACME directory it came from: one from another (staging) is replaced.
  directory: text('directory').notNull(),
  certPem: text('cert_pem').notNull(),
  keyPem: text('key_pem').notNull(),
  notBefore: millis('not_before').notNull(),
  notAfter: millis('not_after').notNull(),
  updatedAt: millis('updated_at').notNull(),
});

/**
 * The HTTP-01 challenges of orders under way (token → key authorization), so that any
 * instance on the database can answer the ACME server, not only the one that ordered.
 */
export const acmeChallenges = pgTable('acme_challenges', {
  token: text('token').primaryKey(),
  keyAuthorization: text('key_authorization').notNull(),
  expiresAt: millis('expires_at').notNull(),
});

/**
 * Who may order certificates now: one row while an instance orders, until `expires_at`,
 * so one instance orders at a time and a holder that died stops blocking once it expires.
 */
export const acmeLease = pgTable('acme_lease', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: millis('expires_at').notNull(),
});

/**
 * The tables whose rows belong to one link, by `link_id`: its clicks in every form and
 * its counts, and its tags. Without foreign keys (see `clicks`), removing a link, or a user with their
 * links, removes their rows from each of these by hand.
 */
export const LINK_CLICK_TABLES = [
  'clicks',
  'click_records',
  'click_days',
  'link_clicks',
  // Before pending_values: the analytics rollup writes the two in this order too.
  'link_click_order',
  'pending_values',
  'link_tags',
] as const;
