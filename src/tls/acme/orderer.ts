// One ACME account's orders, through acme-client: the account (one per directory URL,
// made once with its key kept in the store, agreeing to the terms of service, with
// --acme-email as its contact) and an order per name, answered by HTTP-01. Each order
// has a new ECDSA P-256 key. The challenge's answer is put where plain HTTP finds it
// (ChallengeResponses) and in the store, so any instance on the database can answer.

import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import * as acme from 'acme-client';
import type { TlsSettings } from '../../config/config.ts';
import type { Store } from '../../store/store.ts';
import { validity } from '../certificates.ts';
import type { ChallengeResponses } from '../challenges.ts';

/** How long a challenge's answer is kept in the store: an order takes seconds, at most minutes. */
const CHALLENGE_TTL_MS = 3_600_000;

export type OrdererStore = Pick<
  Store,
  'acmeAccount' | 'addAcmeAccount' | 'setAcmeAccountUrl' | 'addChallenge' | 'removeChallenge'
>;

/** A certificate an order obtained: the chain (PEM, leaf first) and its new key. */
export interface Issued {
  certPem: string;
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

/**
 * The agents that trust a private ACME server's CA (--acme-ca-file), by the directory's
 * origin. acme-client 5.4 sends every request through its one axios instance, which
 * takes an `httpsAgent` per request; one interceptor picks it by the request's origin.
 */
const agents = new Map<string, { agent: Agent; users: number }>();
let intercepting = false;

/**
 * No request to the ACME server waits longer than this: axios waits for ever by default,
 * and one answer that never comes would hold every later order and renewal (acme-client
 * still retries a failed request five times, 5 to 25 s apart, before the order fails).
 */
const REQUEST_TIMEOUT_MS = 30_000;
acme.axios.defaults.timeout = REQUEST_TIMEOUT_MS;

function trustFor(directory: string, caFile: string): () => void {
  const origin = new URL(directory).origin;
  const agent = new Agent({ ca: readFileSync(caFile, 'utf8') });
  const entry = { agent, users: (agents.get(origin)?.users ?? 0) + 1 };
  agents.set(origin, entry);
  if (!intercepting) {
    intercepting = true;
    acme.axios.interceptors.request.use((config) => {
      const origin = config.url === undefined ? undefined : URL.parse(config.url)?.origin;
      const trusted = origin === undefined ? undefined : agents.get(origin);
      if (trusted !== undefined) config.httpsAgent = trusted.agent;
      return config;
    });
  }
  return () => {
    const current = agents.get(origin);
    if (current !== undefined && --current.users === 0) agents.delete(origin);
  };
}

/**
 * What an ACME server said, for the log: the message of the error, one line, without
 * anything shaped like a PEM block (no key ever travels in one, but a log must not be
 * where one leaks if it did).
 */
export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text
    .replace(/-----BEGIN [^-]+-----[\s\S]*?(-----END [^-]+-----|$)/g, '[PEM removed]')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > 500 ? `${line.slice(0, 500)}…` : line || 'unknown error';
}

export class AcmeOrderer {
  private client: acme.Client | undefined;
  private accountUrl: string | null = null;
  private readonly untrust: (() => void) | undefined;

  constructor(
    private readonly settings: Pick<TlsSettings, 'acmeDirectory' | 'acmeEmail' | 'acmeCaFile'>,
    private readonly store: OrdererStore,
    private readonly challenges: ChallengeResponses,
    private readonly now: () => number,
  ) {
    if (settings.acmeCaFile !== undefined) {
      this.untrust = trustFor(settings.acmeDirectory, settings.acmeCaFile);
    }
  }

  /** The account's client: its key read from the store, or made and kept the first time. */
  private async account(): Promise<acme.Client> {
    if (this.client !== undefined) return this.client;
    const directory = this.settings.acmeDirectory;
    let account = await this.store.acmeAccount(directory);
    if (account === undefined) {
      const key = await acme.crypto.createPrivateEcdsaKey('P-256');
      account = await this.store.addAcmeAccount({
        directory,
        keyPem: key.toString(),
        url: null,
        createdAt: this.now(),
      });
    }
    this.accountUrl = account.url;
    this.client = new acme.Client({
      directoryUrl: directory,
      accountKey: account.keyPem,
      // Polls an order and its challenge from 1 s up (acme-client's default starts at
      // 5 s, which every order on a quick server would wait), for at most about 5 min.
      backoffMin: 1_000,
      backoffMax: 30_000,
      backoffAttempts: 14,
      ...(account.url === null ? {} : { accountUrl: account.url }),
    });
    return this.client;
  }

  /** Orders a certificate for `name`; throws with the ACME server's reason when it fails. */
  async order(name: string): Promise<Issued> {
    const client = await this.account();
    const key = await acme.crypto.createPrivateEcdsaKey('P-256');
    const [, csr] = await acme.crypto.createCsr({ commonName: name, altNames: [name] }, key);
    const certPem = await client.auto({
      csr,
      email: this.settings.acmeEmail,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // The ACME server checks the challenge; a check from this machine of its own
      // public name would go through hairpin NAT or a split DNS, which often fail where
      // the outside world succeeds.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        this.challenges.put(challenge.token, keyAuthorization);
        const now = this.now();
        await this.store.addChallenge(
          challenge.token,
          keyAuthorization,
          now + CHALLENGE_TTL_MS,
          now,
        );
      },
      challengeRemoveFn: async (_authz, challenge) => {
        this.challenges.remove(challenge.token);
        await this.store.removeChallenge(challenge.token);
      },
    });
    if (this.accountUrl === null) {
      this.accountUrl = client.getAccountUrl();
      await this.store.setAcmeAccountUrl(this.settings.acmeDirectory, this.accountUrl);
    }
    return { certPem, keyPem: key.toString(), ...validity(certPem) };
  }

  close(): void {
    this.untrust?.();
  }
}

/**
 * The lookup ChallengeResponses falls back on (its `elsewhere`): a challenge another
 * instance on the database put there.
 */
export function storedChallenges(
  store: Pick<Store, 'findChallenge'>,
  now: () => number = Date.now,
): (token: string) => Promise<string | undefined> {
  return (token) => store.findChallenge(token, now());
}
