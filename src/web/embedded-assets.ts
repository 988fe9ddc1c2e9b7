// A Bun macro: runs when kurz is bundled (or transpiled by `bun run`/`bun test`) and
// inlines src/web/assets/ into the code, so the executable carries its web UI.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name → text content of every file in src/web/assets (text files only). */
export function embeddedAssets(): Record<string, string> {
  const folder = join(import.meta.dir, 'assets');
  const files: Record<string, string> = {};
  for (const name of readdirSync(folder).sort()) {
    files[name] = readFileSync(join(folder, name), 'utf8');
  }
  return files;
}
