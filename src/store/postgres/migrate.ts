// Applies the PostgreSQL migrations embedded at build time, with drizzle's own
// bookkeeping table, so the result is the same as drizzle-kit's. Several instances may
// start at once: each takes a session advisory lock first, so one migrates and the
// others then find nothing left to do.

import type { SQL } from 'bun';
import { drizzle } from 'drizzle-orm/bun-sql';
import { embeddedMigrations } from '../embedded-migrations.ts' with { type: 'macro' };

const MIGRATIONS = embeddedMigrations('postgres');

/** The advisory lock key of kurz's migrations (any fixed 64-bit number; "kurz" in ASCII). */
const MIGRATION_LOCK = 0x6b75727a;

/**
 * Migrates the database (or `schemaName` in it). drizzle keeps its bookkeeping table in
 * the schema `drizzle`, or beside the tables when they have a schema of their own.
 */
export async function applyMigrations(client: SQL, schemaName?: string): Promise<void> {
  const connection = await client.reserve();
  try {
    // Waiting for another instance's migrations, or building an index on a large
    // table, may take longer than an operation's deadline.
    await connection`SET statement_timeout = 0`;
    await connection`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      // Under the lock: CREATE SCHEMA IF NOT EXISTS is not safe from a concurrent twin.
      if (schemaName !== undefined) {
        await connection.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schemaName}"`);
      }
      const db = drizzle({ client: connection as unknown as SQL });
      // drizzle's dialect.migrate is what drizzle-orm/bun-sql/migrator calls after reading files.
      const internal = db as unknown as {
        dialect: { migrate(m: typeof MIGRATIONS, session: unknown, config: object): Promise<void> };
        session: unknown;
      };
      await internal.dialect.migrate(
        MIGRATIONS,
        internal.session,
        schemaName === undefined ? {} : { migrationsSchema: schemaName },
      );
    } finally {
      await connection`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
    }
  } finally {
    await connection`RESET statement_timeout`.catch(() => {});
    connection.release();
  }
}
