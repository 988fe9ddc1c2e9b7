// The TLS area of the store's contract (store.ts composes it): what --tls auto keeps in the
// database, so that a restart reuses it and every instance on one PostgreSQL database
// shares it — the ACME account, the certificates, the HTTP-01 challenges under way, and
// the lease that lets one instance order at a time. Engines: sqlite/tls.ts, postgres/tls.ts.

/** An ACME account, one per directory URL. */
export type AcmeAccount = {
  directory: string;
  /** The account's private key (PEM). */
  keyPem: string;
  /** The account's URL at the ACME server; null until the server has made it. */
  url: string | null;
  createdAt: number;
};

/** A certificate kept for one name: its chain (PEM, leaf first) and its private key. */
export type StoredCertificate = {
  name: string;
  /** The directory URL of the ACME server that issued it. */
  directory: string;
  certPem: string;
  keyPem: string;
  notBefore: number;
  notAfter: number;
  updatedAt: number;
};

export interface TlsStore {
  /** The account kept for `directory`, or undefined. */
  acmeAccount(directory: string): Promise<AcmeAccount | undefined>;
  /**
   * Keeps `account` unless one is kept for its directory already; returns the one kept
   * (the first stored wins, so two instances making one at once end up with the same).
   */
  addAcmeAccount(account: AcmeAccount): Promise<AcmeAccount>;
  /** Records the URL the ACME server gave the account of `directory`. */
  setAcmeAccountUrl(directory: string, url: string): Promise<void>;
  listCertificates(): Promise<StoredCertificate[]>;
  certificate(name: string): Promise<StoredCertificate | undefined>;
  /** Keeps `cert` for its name, replacing the one before, and tells watchCertificates. */
  saveCertificate(cert: StoredCertificate): Promise<void>;
  /** Keeps a challenge's answer until `expiresAt` (and forgets those expired before `now`). */
  addChallenge(
    token: string,
    keyAuthorization: string,
    expiresAt: number,
    now: number,
  ): Promise<void>;
  /** The key authorization of `token`, unless it is unknown or expired by `now`. */
  findChallenge(token: string, now: number): Promise<string | undefined>;
  removeChallenge(token: string): Promise<void>;
  /**
   * Takes, or extends, the lease on ordering for `holder` until `expiresAt`: true when
   * `holder` has it now (no one had it, its holder's lease ran out at `now`, or it was
   * `holder`'s own), false while another holds it.
   */
  takeOrderLease(holder: string, now: number, expiresAt: number): Promise<boolean>;
  /** Gives the lease up, if `holder` has it. */
  releaseOrderLease(holder: string): Promise<void>;
  /**
   * Calls `changed` when any instance on the database saves a certificate (this one's
   * own included), or when notices may have been missed; returns what stops it.
   */
  watchCertificates(changed: () => void): () => void;
}
