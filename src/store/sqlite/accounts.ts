// Accounts on SQLite: sign-up and log-in, token versions, the operator's user commands
// and API keys, as
// prepared statements on the store's connection (the store wraps each call in its
// guards). A removal is one transaction, so a user is never half gone.

import type { Database } from 'bun:sqlite';
import {
  type ApiKey,
  type ApiKeyGrant,
  KEY_LIMIT_REACHED,
  type NewApiKey,
  type RemovedLinks,
  type UserSummary,
} from '../accounts.ts';
import type { User, UserWithHash } from '../store.ts';
import { USER_COLUMNS, userOf } from './moderation.ts';
import { LINK_CLICK_TABLES } from './schema.ts';
import { TAG_DAYS_HANDED_TO_NO_ONE, TAG_DAYS_OF_REMOVED_USER } from './tags.ts';

const KEY_COLUMNS = `id, name, prefix, scope, created_at AS createdAt, expires_at AS expiresAt,
  last_used_at AS lastUsedAt`;

export function sqliteAccounts(sqlite: Database) {
  const insertUser = sqlite.prepare<User, [string, string, number]>(
    `INSERT INTO users (email, password_hash, created_at) VALUES (?, ?, ?)
     ON CONFLICT (email) DO NOTHING RETURNING id, email`,
  );
  const userByEmail = sqlite.prepare<Omit<UserWithHash, 'admin'> & { admin: number }, [string]>(
    `SELECT id, email, password_hash AS passwordHash, token_version AS tokenVersion, admin,
       disabled_at AS disabledAt
     FROM users WHERE email = ?`,
  );
  // A disabled user's tokens answer as a removed user's do.
  const users = sqlite.prepare<Parameters<typeof userOf>[0], []>(
    `SELECT ${USER_COLUMNS} FROM users u ORDER BY u.id`,
  );
  const password = sqlite.prepare<unknown, [string, string]>(
    'UPDATE users SET password_hash = ?, token_version = token_version + 1 WHERE email = ?',
  );
  const userId = sqlite.prepare<{ id: number }, [string]>('SELECT id FROM users WHERE email = ?');
  const linkCount = sqlite.prepare<{ n: number }, [number]>(
    'SELECT count(*) AS n FROM links WHERE user_id = ?',
  );
  // The link_totals triggers count inserts and deletes; handing links to no one moves
  // their count from the owner to owner 0 by hand.
  const keepLinks = [
    'UPDATE links SET user_id = NULL WHERE user_id = $id',
    'UPDATE link_totals SET links = links - $n WHERE owner = $id',
    `INSERT INTO link_totals (owner, links) VALUES (0, $n)
     ON CONFLICT (owner) DO UPDATE SET links = links + $n`,
    ...TAG_DAYS_HANDED_TO_NO_ONE,
  ].map((text) => sqlite.prepare<unknown, [{ id: number; n: number }]>(text));
  const deleteLinks = [
    ...LINK_CLICK_TABLES.map(
      (table) => `DELETE FROM ${table} WHERE link_id IN (SELECT id FROM links WHERE user_id = ?)`,
    ),
    'DELETE FROM links WHERE user_id = ?',
    TAG_DAYS_OF_REMOVED_USER,
  ].map((text) => sqlite.prepare<unknown, [number]>(text));
  // API keys and webhooks go by their foreign keys' ON DELETE CASCADE.
  const deleteUser = sqlite.prepare<unknown, [number]>('DELETE FROM users WHERE id = ?');

  const keyCount = sqlite.prepare<{ n: number }, [number]>(
    'SELECT count(*) AS n FROM api_keys WHERE user_id = ?',
  );
  const insertKey = sqlite.prepare<ApiKey, [NewApiKey]>(
    `INSERT INTO api_keys (user_id, name, prefix, secret_hash, scope, created_at, expires_at)
     VALUES ($userId, $name, $prefix, $secretHash, $scope, $createdAt, $expiresAt)
     RETURNING ${KEY_COLUMNS}`,
  );
  const keys = sqlite.prepare<ApiKey, [number]>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC`,
  );
  const deleteKey = sqlite.prepare<unknown, [number, number]>(
    'DELETE FROM api_keys WHERE user_id = ? AND id = ?',
  );
  // A disabled user's keys are not found.
  const keyByHash = sqlite.prepare<ApiKeyGrant, [string]>(
    `SELECT k.id, k.user_id AS userId, k.scope, k.expires_at AS expiresAt,
       k.last_used_at AS lastUsedAt
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.secret_hash = ? AND u.disabled_at IS NULL`,
  );
  const touchKey = sqlite.prepare<unknown, [number, number]>(
    'UPDATE api_keys SET last_used_at = ? WHERE id = ?',
  );

  return {
    /** What the store offers of accounts, each run through its guards. */
    operations: {
      createUser: (email: string, hash: string): User | undefined =>
        insertUser.get(email, hash, Date.now()) ?? undefined,
      findUserByEmail(email: string): UserWithHash | undefined {
        const row = userByEmail.get(email);
        return row === null ? undefined : { ...row, admin: row.admin !== 0 };
      },
      listUsers: (): UserSummary[] => users.all().map(userOf),
      setPassword: (email: string, hash: string): boolean => password.run(hash, email).changes > 0,
      removeUser: sqlite.transaction(
        (email: string, links: RemovedLinks): { id: number; links: number } | undefined => {
          const user = userId.get(email);
          if (user === null) return undefined;
          const n = linkCount.get(user.id)?.n ?? 0;
          if (links === 'keep') {
            for (const statement of keepLinks) statement.run({ id: user.id, n });
          } else {
            for (const statement of deleteLinks) statement.run(user.id);
          }
          deleteUser.run(user.id);
          return { id: user.id, links: n };
        },
      ),
      createApiKey: sqlite.transaction(
        (key: NewApiKey, limit: number): ApiKey | typeof KEY_LIMIT_REACHED => {
          if ((keyCount.get(key.userId)?.n ?? 0) >= limit) return KEY_LIMIT_REACHED;
          return insertKey.get(key) as ApiKey;
        },
      ),
      listApiKeys: (userId: number): ApiKey[] => keys.all(userId),
      deleteApiKey: (userId: number, id: number): boolean => deleteKey.run(userId, id).changes > 0,
      findApiKey: (hash: string): ApiKeyGrant | undefined => keyByHash.get(hash) ?? undefined,
      touchApiKey: (id: number, at: number): void => {
        touchKey.run(at, id);
      },
    },
    finalize() {
      for (const statement of [
        insertUser,
        userByEmail,
        users,
        password,
        userId,
        linkCount,
        ...keepLinks,
        ...deleteLinks,
        deleteUser,
        keyCount,
        insertKey,
        keys,
        deleteKey,
        keyByHash,
        touchKey,
      ]) {
        statement.finalize();
      }
    },
  };
}
