// Applies the PostgreSQL migrations embedded at build time, keeping drizzle's own
// bookkeeping table, so the result is the same as drizzle-kit's. Several instances may
// start at once: each takes a session advisory lock first, so one migrates and the
// others then find nothing left to do. Every migration a start applies runs in one
// transaction (PostgreSQL's DDL is transactional): when one fails, all of them are
// rolled back and the error names it. A database upgraded by a newer kurz is refused
// before anything is written.

import type { ReservedSQL, SQL } from 'bun';
import { embeddedMigrations } from '../embedded-migrations.ts' with { type: 'macro' };
import {
  type EmbeddedMigration,
  MIGRATIONS_TABLE,
  migrationFailed,
  pendingMigrations,
  statementsOf,
} from '../migrations.ts';

const MIGRATIONS = embeddedMigrations('postgres');

/** The advisory lock key of kurz's migrations (any fixed 64-bit number; "kurz" in ASCII). */
const MIGRATION_LOCK = 0x6b75727a;

/**
 * Migrates the database (or `schemaName` in it, which the client's search_path names).
 * drizzle keeps its bookkeeping table in the schema `drizzle`, or beside the tables when
 * they have a schema of their own. Throws MigrationError when the database is newer or a
 * migration fails.
 */
export async function applyMigrations(
  client: SQL,
  schemaName?: string,
  migrations: readonly EmbeddedMigration[] = MIGRATIONS,
): Promise<void> {
  const bookkeeping = schemaName ?? 'drizzle';
  const table = `"${bookkeeping}"."${MIGRATIONS_TABLE}"`;
  const connection = await client.reserve();
  try {
    // Waiting for another instance's migrations, or building an index on a large
    // table, may take longer than an operation's deadline.
    await connection`SET statement_timeout = 0`;
    await connection`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      // Under the lock, another instance's migrations are done: read what they left.
      if (pendingMigrations(migrations, await newestApplied(connection, table)).length === 0) {
        return;
      }
      await migrate(connection, bookkeeping, table, migrations);
    } finally {
      await connection`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
    }
  } finally {
    await connection`RESET statement_timeout`.catch(() => {});
    connection.release();
  }
}

async function migrate(
  connection: ReservedSQL,
  bookkeeping: string,
  table: string,
  migrations: readonly EmbeddedMigration[],
): Promise<void> {
  await connection.unsafe('BEGIN');
  let applying: EmbeddedMigration[] = [];
  let current: EmbeddedMigration | undefined;
  try {
    await connection.unsafe(`CREATE SCHEMA IF NOT EXISTS "${bookkeeping}"`);
    // drizzle's definition of its table, word for word.
    await connection.unsafe(
      `CREATE TABLE IF NOT EXISTS ${table} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
    );
    applying = pendingMigrations(migrations, await newestApplied(connection, table));
    for (const migration of applying) {
      current = migration;
      // Without parameters: the simple protocol, as drizzle sends them.
      for (const statement of statementsOf(migration)) await connection.unsafe(statement);
      await connection.unsafe(`INSERT INTO ${table} ("hash", "created_at") VALUES ($1, $2)`, [
        migration.hash,
        migration.folderMillis,
      ]);
    }
    current = undefined;
    await connection.unsafe('COMMIT');
  } catch (error) {
    await connection.unsafe('ROLLBACK').catch(() => {});
    if (current === undefined) throw error;
    throw migrationFailed(current, applying.slice(0, applying.indexOf(current) + 1), error);
  }
}

/** The `created_at` of the newest migration applied, or undefined for none (or no table). */
async function newestApplied(connection: ReservedSQL, table: string): Promise<number | undefined> {
  const [exists] = await connection`SELECT to_regclass(${table}) IS NOT NULL AS present`;
  if (!exists?.present) return undefined;
  const [row] = await connection.unsafe(
    `SELECT created_at FROM ${table} ORDER BY created_at DESC LIMIT 1`,
  );
  return row === undefined ? undefined : Number(row.created_at);
}
