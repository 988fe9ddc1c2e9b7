// Accounts signed in through an OpenID Provider, on SQLite: found by the provider's
// subject, linked by e-mail, or made without a password (with the admin role when the
// provider's claim grants it). A link reads and writes in one immediate transaction.

import type { Database } from 'bun:sqlite';
import { LINKED_ELSEWHERE, type OidcAccount, type OidcIdentity } from '../accounts.ts';
import { writeTransaction } from './open.ts';

const ACCOUNT = `id, email, token_version AS tokenVersion, admin, disabled_at AS disabledAt`;

/** A row of ACCOUNT: SQLite keeps booleans as 0 and 1. */
type AccountRow = Omit<OidcAccount, 'admin'> & { admin: number };

const account = (row: AccountRow | null): OidcAccount | undefined =>
  row === null ? undefined : { ...row, admin: row.admin === 1 };

export function sqliteOidcAccounts(sqlite: Database) {
  const bySubject = sqlite.prepare<AccountRow, [string, string]>(
    `SELECT ${ACCOUNT} FROM users WHERE oidc_issuer = ? AND oidc_subject = ?`,
  );
  const byEmail = sqlite.prepare<
    { id: number; issuer: string | null; subject: string | null },
    [string]
  >('SELECT id, oidc_issuer AS issuer, oidc_subject AS subject FROM users WHERE email = ?');
  const link = sqlite.prepare<AccountRow, [string, string, number]>(
    `UPDATE users SET oidc_issuer = ?, oidc_subject = ? WHERE id = ? RETURNING ${ACCOUNT}`,
  );
  // No conflict target: a taken e-mail and a taken identity both make no row.
  const insert = sqlite.prepare<AccountRow, [string, number, number, string, string]>(
    `INSERT INTO users (email, password_hash, created_at, admin, oidc_issuer, oidc_subject)
     VALUES (?, '', ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING ${ACCOUNT}`,
  );

  return {
    operations: {
      findUserByOidc: ({ issuer, subject }: OidcIdentity): OidcAccount | undefined =>
        account(bySubject.get(issuer, subject)),
      linkOidc: writeTransaction(
        sqlite,
        (
          email: string,
          { issuer, subject }: OidcIdentity,
        ): OidcAccount | typeof LINKED_ELSEWHERE | undefined => {
          const user = byEmail.get(email);
          if (user === null) return undefined;
          if (user.issuer === issuer && user.subject !== subject) return LINKED_ELSEWHERE;
          return account(link.get(issuer, subject, user.id));
        },
      ),
      createOidcUser: (
        email: string,
        { issuer, subject }: OidcIdentity,
        isAdmin: boolean,
      ): OidcAccount | undefined =>
        account(insert.get(email, Date.now(), isAdmin ? 1 : 0, issuer, subject)),
    },
    finalize() {
      for (const statement of [bySubject, byEmail, link, insert]) statement.finalize();
    },
  };
}
