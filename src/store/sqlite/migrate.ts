// Applies the migrations embedded at build time, with drizzle's own bookkeeping table,
// so the result is the same as drizzle-kit's. Idempotent: applied ones are skipped.

import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import { embeddedMigrations } from '../embedded-migrations.ts' with { type: 'macro' };

const MIGRATIONS = embeddedMigrations('sqlite');

// biome-ignore lint/suspicious/noExplicitAny: drizzle exposes its migrator only on the internal dialect
export function applyMigrations(db: BunSQLiteDatabase<any>): void {
  // drizzle's dialect.migrate is what drizzle-orm/bun-sqlite/migrator calls after reading files.
  const internal = db as unknown as {
    dialect: { migrate(m: typeof MIGRATIONS, session: unknown, config: object): void };
    session: unknown;
  };
  internal.dialect.migrate(MIGRATIONS, internal.session, {});
}
