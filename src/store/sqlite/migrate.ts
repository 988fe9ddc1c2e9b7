// Applies the migrations embedded at build time, keeping drizzle's own bookkeeping
// table, so the result is the same as drizzle-kit's. Every migration a start applies
// runs in one transaction: when one fails, all of them are rolled back, so the
// database is exactly as the kurz it came from left it (and that kurz still opens it),
// and the error names the one that failed. A database upgraded by a newer kurz is
// refused before anything is written.

import type { Database } from 'bun:sqlite';
import { embeddedMigrations } from '../embedded-migrations.ts' with { type: 'macro' };
import {
  type EmbeddedMigration,
  MIGRATIONS_TABLE,
  migrationFailed,
  pendingMigrations,
  statementsOf,
} from '../migrations.ts';

const MIGRATIONS = embeddedMigrations('sqlite');

/** Migrates the database; throws MigrationError when it is newer or a migration fails. */
export function applyMigrations(
  sqlite: Database,
  migrations: readonly EmbeddedMigration[] = MIGRATIONS,
): void {
  // Read first, without a write lock: an up-to-date database (every start but an
  // upgrade's) is not written to, so a read-only one still opens.
  if (pendingMigrations(migrations, newestApplied(sqlite)).length === 0) return;
  sqlite.run('BEGIN IMMEDIATE');
  let applying: EmbeddedMigration[] = [];
  let current: EmbeddedMigration | undefined;
  try {
    // drizzle's definition of its table, word for word.
    sqlite.run(
      `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
    );
    // Again under the lock: another process may have migrated in between.
    applying = pendingMigrations(migrations, newestApplied(sqlite));
    for (const migration of applying) {
      current = migration;
      for (const statement of statementsOf(migration)) sqlite.run(statement);
      sqlite.run(`INSERT INTO "${MIGRATIONS_TABLE}" ("hash", "created_at") VALUES (?, ?)`, [
        migration.hash,
        migration.folderMillis,
      ]);
    }
    current = undefined;
    sqlite.run('COMMIT');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.run('ROLLBACK');
    if (current === undefined) throw error;
    throw migrationFailed(current, applying.slice(0, applying.indexOf(current) + 1), error);
  }
}

/** The `created_at` of the newest migration applied, or undefined for none (or no table). */
function newestApplied(sqlite: Database): number | undefined {
  const table = sqlite
    .query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(MIGRATIONS_TABLE);
  if (table === null) return undefined;
  const row = sqlite
    .query(`SELECT created_at FROM "${MIGRATIONS_TABLE}" ORDER BY created_at DESC LIMIT 1`)
    .get() as { created_at: number | string } | null;
  return row === null ? undefined : Number(row.created_at);
}
