// Server settings on SQLite (the token key, the first start): read, made once (the first
// writer wins, another process included), replaced; and the read that proves the file
// answers, for ping.

import type { Database } from 'bun:sqlite';

export function sqliteSettings(sqlite: Database) {
  const byKey = sqlite.prepare<{ value: string }, [string]>(
    'SELECT value FROM settings WHERE key = ?',
  );
  const insert = sqlite.prepare<unknown, [string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING',
  );
  const upsert = sqlite.prepare<unknown, [string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const any = sqlite.prepare<unknown, []>('SELECT key FROM settings LIMIT 1');
  return {
    read: (key: string): string | undefined => byKey.get(key)?.value,
    /** Stores `value` unless the key has one; the value stored either way. */
    make(key: string, value: string): string {
      insert.run(key, value);
      // Read back: if another process stored one first, its value wins.
      const stored = byKey.get(key);
      if (!stored) throw new Error(`setting ${key} could not be stored`);
      return stored.value;
    },
    replace(key: string, value: string): void {
      upsert.run(key, value);
    },
    ping(): void {
      any.get();
    },
    finalize(): void {
      for (const statement of [byKey, insert, upsert, any]) statement.finalize();
    },
  };
}
