// What both databases' migrators share: which of the migrations built into this kurz a
// database still needs, and the errors that stop a start. The bookkeeping is drizzle's
// own table (`__drizzle_migrations`: id, hash, created_at), read the way drizzle reads
// it, so drizzle-kit and kurz agree on what is applied: a migration is pending when it
// was made after the newest one applied.

import { VERSION } from '../version.ts';
import type { EmbeddedMigration } from './embedded-migrations.ts';

export type { EmbeddedMigration };

/** The name of drizzle's bookkeeping table. */
export const MIGRATIONS_TABLE = '__drizzle_migrations';

/** A start refused or an upgrade undone; the message says what happened and what to do. */
export class MigrationError extends Error {}

/**
 * The migrations still to apply, oldest first, given the `created_at` of the newest one
 * applied (undefined: none yet). A database that has one newer than any this kurz knows
 * was upgraded by a newer kurz: it is refused, since this one cannot know what that
 * migration changed.
 */
export function pendingMigrations(
  known: readonly EmbeddedMigration[],
  newestApplied: number | undefined,
): EmbeddedMigration[] {
  if (newestApplied === undefined) return [...known];
  const newestKnown = known.at(-1);
  if (newestKnown !== undefined && newestApplied > newestKnown.folderMillis) {
    throw new MigrationError(
      `the database was upgraded by a newer kurz: it has a migration made ${new Date(newestApplied).toISOString()}, after ${newestKnown.tag}, the newest this kurz ${VERSION} knows. It was left unchanged. Run the newer kurz, or restore the backup made before the upgrade to go back to this one.`,
    );
  }
  return known.filter((m) => m.folderMillis > newestApplied);
}

/** The error for a migration that failed: its changes and those before it were rolled back. */
export function migrationFailed(
  migration: EmbeddedMigration,
  applying: readonly EmbeddedMigration[],
  error: unknown,
): MigrationError {
  const reason = error instanceof Error ? error.message : String(error);
  const others = applying.length - 1;
  const together =
    others > 0
      ? ` with the ${others} migration${others > 1 ? 's' : ''} before it in this start`
      : '';
  return new MigrationError(
    `migration ${migration.tag} failed: ${reason}. It was rolled back${together}, so the database is as it was before kurz started, and the kurz it came from still opens it.`,
  );
}

/** The statements of a migration, without the empty ones its breakpoints leave. */
export function statementsOf(migration: EmbeddedMigration): string[] {
  return migration.sql.filter((statement) => statement.trim() !== '');
}
