// --tls auto's rows on PostgreSQL (see store/tls.ts), shared by every instance on the
// database: a saved certificate is announced on LINKS_CHANNEL (CERTIFICATES_NOTICE) in
// its own transaction, so the others load it once it commits; the lease is a row with an
// expiry, taken in one statement, so an instance that dies while ordering blocks the
// others only until its lease runs out.

import type { SQL } from 'bun';
import type { AcmeAccount, StoredCertificate } from '../tls.ts';
import { CERTIFICATES_NOTICE, LINKS_CHANNEL } from './notices.ts';

const CERT_COLUMNS = `name, directory, cert_pem AS "certPem", key_pem AS "keyPem",
  not_before::float8 AS "notBefore", not_after::float8 AS "notAfter",
  updated_at::float8 AS "updatedAt"`;
const ACCOUNT_COLUMNS = `directory, key_pem AS "keyPem", url, created_at::float8 AS "createdAt"`;
/** The lease's one row. */
const ORDERS = 'orders';

export class PostgresTls {
  constructor(private readonly client: SQL) {}

  async acmeAccount(directory: string): Promise<AcmeAccount | undefined> {
    const [row]: AcmeAccount[] = await this.client.unsafe(
      `SELECT ${ACCOUNT_COLUMNS} FROM acme_accounts WHERE directory = $1`,
      [directory],
    );
    return row;
  }

  async addAcmeAccount(account: AcmeAccount): Promise<AcmeAccount> {
    await this.client`INSERT INTO acme_accounts (directory, key_pem, url, created_at)
      VALUES (${account.directory}, ${account.keyPem}, ${account.url}, ${account.createdAt})
      ON CONFLICT (directory) DO NOTHING`;
    return (await this.acmeAccount(account.directory)) ?? account;
  }

  async setAcmeAccountUrl(directory: string, url: string): Promise<void> {
    await this.client`UPDATE acme_accounts SET url = ${url} WHERE directory = ${directory}`;
  }

  async listCertificates(): Promise<StoredCertificate[]> {
    return await this.client.unsafe(`SELECT ${CERT_COLUMNS} FROM tls_certificates ORDER BY name`);
  }

  async certificate(name: string): Promise<StoredCertificate | undefined> {
    const [row]: StoredCertificate[] = await this.client.unsafe(
      `SELECT ${CERT_COLUMNS} FROM tls_certificates WHERE name = $1`,
      [name],
    );
    return row;
  }

  async saveCertificate(cert: StoredCertificate): Promise<void> {
    await this.client.begin(async (tx) => {
      await tx`INSERT INTO tls_certificates
          (name, directory, cert_pem, key_pem, not_before, not_after, updated_at)
        VALUES (${cert.name}, ${cert.directory}, ${cert.certPem}, ${cert.keyPem}, ${cert.notBefore},
          ${cert.notAfter}, ${cert.updatedAt})
        ON CONFLICT (name) DO UPDATE SET directory = excluded.directory,
          cert_pem = excluded.cert_pem,
          key_pem = excluded.key_pem, not_before = excluded.not_before,
          not_after = excluded.not_after, updated_at = excluded.updated_at`;
      await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${CERTIFICATES_NOTICE})`;
    });
  }

  async addChallenge(
    token: string,
    keyAuthorization: string,
    expiresAt: number,
    now: number,
  ): Promise<void> {
    await this.client`DELETE FROM acme_challenges WHERE expires_at <= ${now}`;
    await this.client`INSERT INTO acme_challenges (token, key_authorization, expires_at)
      VALUES (${token}, ${keyAuthorization}, ${expiresAt})
      ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization,
        expires_at = excluded.expires_at`;
  }

  async findChallenge(token: string, now: number): Promise<string | undefined> {
    const [row]: { keyAuthorization: string }[] = await this.client`
      SELECT key_authorization AS "keyAuthorization" FROM acme_challenges
      WHERE token = ${token} AND expires_at > ${now}`;
    return row?.keyAuthorization;
  }

  async removeChallenge(token: string): Promise<void> {
    await this.client`DELETE FROM acme_challenges WHERE token = ${token}`;
  }

  async takeOrderLease(holder: string, now: number, expiresAt: number): Promise<boolean> {
    const rows = await this.client`INSERT INTO acme_lease (name, holder, expires_at)
      VALUES (${ORDERS}, ${holder}, ${expiresAt})
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE acme_lease.holder = excluded.holder OR acme_lease.expires_at <= ${now}
      RETURNING holder`;
    return rows.length > 0;
  }

  async releaseOrderLease(holder: string): Promise<void> {
    await this.client`DELETE FROM acme_lease WHERE name = ${ORDERS} AND holder = ${holder}`;
  }
}
