// Accounts on PostgreSQL: sign-up and log-in, token versions, the operator's user commands
// and API keys. A removal is one transaction; the codes of links it deletes or hands to no
// one are announced on the links channel, so every instance forgets what it cached of them.

import type { SQL } from 'bun';
import {
  type ApiKey,
  type ApiKeyGrant,
  KEY_LIMIT_REACHED,
  type NewApiKey,
  type RemovedLinks,
  type UserSummary,
} from '../accounts.ts';
import type { User, UserWithHash } from '../store.ts';
import { USER_COLUMNS } from './moderation.ts';
import { LINK_CLICK_TABLES } from './schema.ts';
import { removeUserTagDays } from './tags.ts';

const KEY_COLUMNS = `id, name, prefix, scope, created_at::float8 AS "createdAt",
  expires_at::float8 AS "expiresAt", last_used_at::float8 AS "lastUsedAt"`;

export class PostgresAccounts {
  constructor(
    private readonly client: SQL,
    private readonly linksChannel: string,
  ) {}

  /** Returns undefined when the e-mail is already registered. */
  async createUser(email: string, passwordHash: string): Promise<User | undefined> {
    const [row]: User[] = await this.client`
      INSERT INTO users (email, password_hash, created_at) VALUES (${email}, ${passwordHash}, ${Date.now()})
      ON CONFLICT (email) DO NOTHING RETURNING id, email`;
    return row;
  }

  async findUserByEmail(email: string): Promise<UserWithHash | undefined> {
    const [row]: UserWithHash[] = await this.client`
      SELECT id, email, password_hash AS "passwordHash", token_version AS "tokenVersion", admin,
             disabled_at::float8 AS "disabledAt"
      FROM users WHERE email = ${email}`;
    return row;
  }

  listUsers(): Promise<UserSummary[]> {
    return this.client.unsafe(`SELECT ${USER_COLUMNS} FROM users u ORDER BY u.id`);
  }

  async setPassword(email: string, hash: string): Promise<boolean> {
    const rows = await this.client`UPDATE users
      SET password_hash = ${hash}, token_version = token_version + 1
      WHERE email = ${email} RETURNING id`;
    return rows.length > 0;
  }

  removeUser(
    email: string,
    links: RemovedLinks,
  ): Promise<{ id: number; links: number } | undefined> {
    const channel = this.linksChannel;
    return this.client.begin(async (tx) => {
      // Locked first: a link created for this user meanwhile waits, then fails its
      // foreign key, rather than outliving them.
      const [user]: { id: number }[] =
        await tx`SELECT id FROM users WHERE email = ${email} FOR UPDATE`;
      if (user === undefined) return undefined;
      const id = user.id;
      // Each link's notice, as linkNotice() writes it.
      let codes: { short_code: string }[];
      if (links === 'keep') {
        codes = await tx`UPDATE links SET user_id = NULL WHERE user_id = ${id}
                   RETURNING CASE WHEN domain_id = 0 THEN short_code
                                  ELSE domain_id || '/' || short_code END AS short_code`;
        // The link_totals triggers count inserts and deletes; this moves the count by hand.
        const n = codes.length;
        await tx`UPDATE link_totals SET links = links - ${n} WHERE owner = ${id}`;
        await tx`INSERT INTO link_totals (owner, links) VALUES (0, ${n})
                 ON CONFLICT (owner) DO UPDATE SET links = link_totals.links + ${n}`;
        await removeUserTagDays(tx, id, true);
      } else {
        for (const table of LINK_CLICK_TABLES) {
          await tx.unsafe(
            `DELETE FROM ${table} WHERE link_id IN (SELECT id FROM links WHERE user_id = $1)`,
            [id],
          );
        }
        codes = await tx`DELETE FROM links WHERE user_id = ${id}
                         RETURNING CASE WHEN domain_id = 0 THEN short_code
                                        ELSE domain_id || '/' || short_code END AS short_code`;
        await removeUserTagDays(tx, id, false);
      }
      // API keys and webhooks go by their foreign keys' ON DELETE CASCADE.
      await tx`DELETE FROM users WHERE id = ${id}`;
      if (codes.length > 0) {
        await tx`SELECT pg_notify(${channel}, code)
                 FROM unnest(${codes.map((c) => c.short_code)}::text[]) AS code`;
      }
      return { id, links: codes.length };
    });
  }

  createApiKey(key: NewApiKey, limit: number): Promise<ApiKey | typeof KEY_LIMIT_REACHED> {
    return this.client.begin(async (tx) => {
      // The user's row lock makes the limit hold when two keys are made at once.
      await tx`SELECT 1 FROM users WHERE id = ${key.userId} FOR UPDATE`;
      const [count]: { n: number }[] =
        await tx`SELECT count(*)::float8 AS n FROM api_keys WHERE user_id = ${key.userId}`;
      if ((count?.n ?? 0) >= limit) return KEY_LIMIT_REACHED;
      const [row]: ApiKey[] = await tx.unsafe(
        `INSERT INTO api_keys (user_id, name, prefix, secret_hash, scope, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
        [key.userId, key.name, key.prefix, key.secretHash, key.scope, key.createdAt, key.expiresAt],
      );
      return row as ApiKey;
    });
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.client.unsafe(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
      [userId],
    );
  }

  async deleteApiKey(userId: number, id: number): Promise<boolean> {
    const rows = await this.client`DELETE FROM api_keys
      WHERE user_id = ${userId} AND id = ${id} RETURNING id`;
    return rows.length > 0;
  }

  /** A disabled user's keys are not found. */
  async findApiKey(hash: string): Promise<ApiKeyGrant | undefined> {
    const [row]: ApiKeyGrant[] = await this.client`SELECT k.id, k.user_id AS "userId", k.scope,
        k.expires_at::float8 AS "expiresAt", k.last_used_at::float8 AS "lastUsedAt"
      FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.secret_hash = ${hash} AND u.disabled_at IS NULL`;
    return row;
  }

  async touchApiKey(id: number, at: number): Promise<void> {
    await this.client`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`;
  }
}
