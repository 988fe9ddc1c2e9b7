// The one typed configuration of kurz, built from flags and environment at start-up,
// validated once and passed in; nothing reads process.env anywhere else.

export type Mode = 'accounts' | 'open';
export type Durability = 'normal' | 'full';

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  /** SQLite file path (or `:memory:`). */
  db: string;
  /** Public address for short links; undefined means http://localhost:PORT once bound. */
  baseUrl: string | undefined;
  /** HMAC key for tokens; undefined means generated once and kept in the database. */
  jwtSecret: string | undefined;
  tokenTtlSeconds: number;
  durability: Durability;
  /** Links the redirect keeps in memory (least recently used go first). */
  cacheSize: number;
}

export const DEFAULTS = {
  mode: 'accounts',
  host: '0.0.0.0',
  port: 3000,
  db: './data/kurz.db',
  tokenTtlSeconds: 86_400,
  durability: 'normal',
  cacheSize: 50_000,
} as const satisfies Partial<Config>;

/** A flag or environment value that cannot be used; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
