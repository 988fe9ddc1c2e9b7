// Server settings on PostgreSQL (the token key, the first start): read, made once (the
// first instance to store one wins, and every instance reads back the same value), and
// replaced; and the read that proves the server answers, for ping.

import type { SQL } from 'bun';

export class PostgresSettings {
  constructor(private readonly client: SQL) {}

  async setting(key: string, make: () => string): Promise<string> {
    const [existing]: { value: string }[] = await this
      .client`SELECT value FROM settings WHERE key = ${key}`;
    if (existing) return existing.value;
    // Another instance may store one at the same moment: the first insert wins and
    // both read back the same value.
    await this
      .client`INSERT INTO settings (key, value) VALUES (${key}, ${make()}) ON CONFLICT DO NOTHING`;
    const [stored]: { value: string }[] = await this
      .client`SELECT value FROM settings WHERE key = ${key}`;
    if (!stored) throw new Error(`setting ${key} could not be stored`);
    return stored.value;
  }

  async replaceSetting(key: string, value: string): Promise<void> {
    await this.client`
      INSERT INTO settings (key, value) VALUES (${key}, ${value})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
  }

  /** A read on a pooled connection: the server answers. */
  async ping(): Promise<void> {
    await this.client`SELECT 1`;
  }
}
