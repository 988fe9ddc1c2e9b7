// Accounts signed in through an OpenID Provider, on PostgreSQL: found by the provider's
// subject, linked by e-mail, or made without a password (with the admin role when the
// provider's claim grants it). A link locks the account's row while it decides.

import type { SQL } from 'bun';
import { LINKED_ELSEWHERE, type OidcAccount, type OidcIdentity } from '../accounts.ts';

const ACCOUNT = `id, email, token_version AS "tokenVersion", admin,
  disabled_at::float8 AS "disabledAt"`;

export class PostgresOidcAccounts {
  constructor(private readonly client: SQL) {}

  async findUserByOidc({ issuer, subject }: OidcIdentity): Promise<OidcAccount | undefined> {
    const [row]: OidcAccount[] = await this.client.unsafe(
      `SELECT ${ACCOUNT} FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2`,
      [issuer, subject],
    );
    return row;
  }

  linkOidc(
    email: string,
    { issuer, subject }: OidcIdentity,
  ): Promise<OidcAccount | typeof LINKED_ELSEWHERE | undefined> {
    return this.client.begin(async (tx) => {
      const [user]: { id: number; issuer: string | null; subject: string | null }[] =
        await tx`SELECT id, oidc_issuer AS issuer, oidc_subject AS subject
                 FROM users WHERE email = ${email} FOR UPDATE`;
      if (user === undefined) return undefined;
      if (user.issuer === issuer && user.subject !== subject) return LINKED_ELSEWHERE;
      const [row]: OidcAccount[] = await tx.unsafe(
        `UPDATE users SET oidc_issuer = $1, oidc_subject = $2 WHERE id = $3 RETURNING ${ACCOUNT}`,
        [issuer, subject, user.id],
      );
      return row;
    });
  }

  async createOidcUser(
    email: string,
    { issuer, subject }: OidcIdentity,
    admin: boolean,
  ): Promise<OidcAccount | undefined> {
    // No conflict target: a taken e-mail and a taken identity both make no row.
    const [row]: OidcAccount[] = await this.client.unsafe(
      `INSERT INTO users (email, password_hash, created_at, admin, oidc_issuer, oidc_subject)
       VALUES ($1, '', $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING ${ACCOUNT}`,
      [email, Date.now(), admin, issuer, subject],
    );
    return row;
  }
}
