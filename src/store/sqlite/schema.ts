// SQLite schema, the source drizzle-kit generates drizzle/sqlite/*.sql from.
// Times are integer milliseconds since the Unix epoch (UTC).

import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  // Stored trimmed and lower-cased, so uniqueness is case-insensitive.
  email: text('email', { length: 255 }).notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const links = sqliteTable(
  'links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    // Null for links made in open mode.
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    originalUrl: text('original_url').notNull(),
    // Custom codes may be 32 characters; the column holds them whole.
    shortCode: text('short_code', { length: 32 }).notNull().unique(),
    // The `source` given at creation; copied into each click record.
    source: text('source'),
    createdAt: integer('created_at').notNull(),
    // No click counter here: counts are kept apart (see click-counts.ts), so that a
    // redirect never rewrites a random page of this table.
  },
  (table) => [
    index('links_user_newest').on(
      table.userId,
      sql`${table.createdAt} desc`,
      sql`${table.id} desc`,
    ),
    index('links_newest').on(sql`${table.createdAt} desc`, sql`${table.id} desc`),
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
});

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
