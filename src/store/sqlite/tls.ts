// --tls auto's rows on SQLite (see store/tls.ts): one process serves the file, so the
// lease is there only for the contract's sake, and watchCertificates hears this
// process's own saves.

import type { Database } from 'bun:sqlite';
import type { AcmeAccount, StoredCertificate } from '../tls.ts';

const CERT_COLUMNS = `name, directory, cert_pem AS certPem, key_pem AS keyPem, not_before AS notBefore,
  not_after AS notAfter, updated_at AS updatedAt`;
const ACCOUNT_COLUMNS = 'directory, key_pem AS keyPem, url, created_at AS createdAt';
/** The lease's one row. */
const ORDERS = 'orders';

/** The TLS operations; `saved` is called after each certificate saved. */
export function sqliteTls(sqlite: Database, saved: () => void) {
  const account = sqlite.prepare<AcmeAccount, [string]>(
    `SELECT ${ACCOUNT_COLUMNS} FROM acme_accounts WHERE directory = ?`,
  );
  const addAccount = sqlite.prepare<unknown, [string, string, string | null, number]>(
    `INSERT INTO acme_accounts (directory, key_pem, url, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (directory) DO NOTHING`,
  );
  const setUrl = sqlite.prepare<unknown, [string, string]>(
    'UPDATE acme_accounts SET url = ? WHERE directory = ?',
  );
  const all = sqlite.prepare<StoredCertificate, []>(
    `SELECT ${CERT_COLUMNS} FROM tls_certificates ORDER BY name`,
  );
  const one = sqlite.prepare<StoredCertificate, [string]>(
    `SELECT ${CERT_COLUMNS} FROM tls_certificates WHERE name = ?`,
  );
  const save = sqlite.prepare<unknown, [string, string, string, string, number, number, number]>(
    `INSERT INTO tls_certificates
       (name, directory, cert_pem, key_pem, not_before, not_after, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET directory = excluded.directory,
       cert_pem = excluded.cert_pem, key_pem = excluded.key_pem,
       not_before = excluded.not_before, not_after = excluded.not_after,
       updated_at = excluded.updated_at`,
  );
  const pruneChallenges = sqlite.prepare<unknown, [number]>(
    'DELETE FROM acme_challenges WHERE expires_at <= ?',
  );
  const addChallenge = sqlite.prepare<unknown, [string, string, number]>(
    `INSERT INTO acme_challenges (token, key_authorization, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization,
       expires_at = excluded.expires_at`,
  );
  const findChallenge = sqlite.prepare<{ keyAuthorization: string }, [string, number]>(
    `SELECT key_authorization AS keyAuthorization FROM acme_challenges
     WHERE token = ? AND expires_at > ?`,
  );
  const removeChallenge = sqlite.prepare<unknown, [string]>(
    'DELETE FROM acme_challenges WHERE token = ?',
  );
  const takeLease = sqlite.prepare<{ holder: string }, [string, string, number, number]>(
    `INSERT INTO acme_lease (name, holder, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE acme_lease.holder = excluded.holder OR acme_lease.expires_at <= ?
     RETURNING holder`,
  );
  const releaseLease = sqlite.prepare<unknown, [string, string]>(
    'DELETE FROM acme_lease WHERE name = ? AND holder = ?',
  );
  const statements = [
    account,
    addAccount,
    setUrl,
    all,
    one,
    save,
    pruneChallenges,
    addChallenge,
    findChallenge,
    removeChallenge,
    takeLease,
    releaseLease,
  ];
  const operations = {
    acmeAccount: (directory: string): AcmeAccount | undefined =>
      account.get(directory) ?? undefined,
    addAcmeAccount(created: AcmeAccount): AcmeAccount {
      addAccount.run(created.directory, created.keyPem, created.url, created.createdAt);
      return account.get(created.directory) ?? created;
    },
    setAcmeAccountUrl(directory: string, url: string): void {
      setUrl.run(url, directory);
    },
    listCertificates: (): StoredCertificate[] => all.all(),
    certificate: (name: string): StoredCertificate | undefined => one.get(name) ?? undefined,
    saveCertificate(cert: StoredCertificate): void {
      save.run(
        cert.name,
        cert.directory,
        cert.certPem,
        cert.keyPem,
        cert.notBefore,
        cert.notAfter,
        cert.updatedAt,
      );
      saved();
    },
    addChallenge(token: string, keyAuthorization: string, expiresAt: number, now: number): void {
      pruneChallenges.run(now);
      addChallenge.run(token, keyAuthorization, expiresAt);
    },
    findChallenge: (token: string, now: number): string | undefined =>
      findChallenge.get(token, now)?.keyAuthorization,
    removeChallenge(token: string): void {
      removeChallenge.run(token);
    },
    takeOrderLease: (holder: string, now: number, expiresAt: number): boolean =>
      takeLease.get(ORDERS, holder, expiresAt, now) !== null,
    releaseOrderLease(holder: string): void {
      releaseLease.run(ORDERS, holder);
    },
  };
  return {
    operations,
    finalize(): void {
      for (const statement of statements) statement.finalize();
    },
  };
}
