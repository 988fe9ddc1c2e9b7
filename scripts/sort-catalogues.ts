// Writes every message catalogue (src/i18n/catalogues/*.json) in its one form: `$name`
// and `$dir` first, then the keys in order, two-space JSON and a final newline, so that
// catalogues edited apart merge cleanly. test/units/catalogues.test.ts checks the order.
//
//   bun scripts/sort-catalogues.ts

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const folder = join(import.meta.dir, '..', 'src', 'i18n', 'catalogues');

for (const name of readdirSync(folder).filter((file) => file.endsWith('.json'))) {
  const path = join(folder, name);
  const catalogue = (await Bun.file(path).json()) as Record<string, unknown>;
  const { $name, $dir, ...messages } = catalogue;
  const sorted = Object.fromEntries(
    Object.keys(messages)
      .sort()
      .map((key) => [key, messages[key]]),
  );
  await Bun.write(path, `${JSON.stringify({ $name, $dir, ...sorted }, null, 2)}\n`);
}
