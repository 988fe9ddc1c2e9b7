// A Bun macro: runs when kurz is bundled (or transpiled by `bun run`/`bun test`) and
// inlines drizzle/<dialect>/ into the code, so the compiled executable carries the
// migrations of both databases.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedMigration {
  tag: string;
  sql: string[];
  bps: boolean;
  folderMillis: number;
  hash: string;
}

interface Journal {
  entries: { tag: string; when: number; breakpoints: boolean }[];
}

export function embeddedMigrations(dialect: 'sqlite' | 'postgres'): EmbeddedMigration[] {
  const folder = join(import.meta.dir, '..', '..', 'drizzle', dialect);
  const journal: Journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  // Same shape and hash as drizzle-orm's readMigrationFiles, so drizzle-kit's bookkeeping agrees.
  return journal.entries.map((entry) => {
    const query = readFileSync(join(folder, `${entry.tag}.sql`), 'utf8');
    return {
      tag: entry.tag,
      sql: query.split('--> statement-breakpoint'),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash('sha256').update(query).digest('hex'),
    };
  });
}
