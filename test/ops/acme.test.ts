// --tls auto against a real ACME server (Pebble, test/support/pebble.ts), in process, on
// SQLite and on PostgreSQL: the first certificates, whose chains verify against Pebble's
// root; a domain added at run time; a renewal forced by a short lifetime; a challenge that
// fails (logged with Pebble's reason, counted, tried again later, the other names
// unharmed); a restart that reuses the kept certificate and account; a certificate from
// another directory replaced; a lease left by a dead instance that runs out; and two
// instances on one PostgreSQL database, one of which orders. The challenge responder stands in for
// plain HTTP's listener: it answers from a ChallengeResponses with no answers of its own,
// so every answer comes from the store (as another instance would answer).

import { afterAll, describe, expect, onTestFinished, test } from 'bun:test';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { DomainRegistry } from '../../src/domains/registry.ts';
import type { Logger } from '../../src/logger.ts';
import type { Store } from '../../src/store/store.ts';
import type { StoredCertificate } from '../../src/store/tls.ts';
import { AcmeManager, type AcmeManagerOptions } from '../../src/tls/acme/manager.ts';
import { storedChallenges } from '../../src/tls/acme/orderer.ts';
import { CertificateSet } from '../../src/tls/certificates.ts';
import { CHALLENGE_PREFIX, ChallengeResponses } from '../../src/tls/challenges.ts';
import { eventually } from '../support/binary.ts';
import { PEBBLE_MISSING, type RunningPebble, startPebble } from '../support/pebble.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import { testStore } from '../support/stores.ts';

if (PEBBLE_MISSING !== undefined)
  console.warn(`kurz: the --tls auto tests are skipped: ${PEBBLE_MISSING}`);

/**
 * An order takes a second or two (Pebble, a database, a poll), more on a busy machine:
 * each wait allows 40 s, each test 90 s.
 */
const WAIT = 40_000;
const SLOW = 90_000;

/** A log kept in memory. */
function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => lines.push(m), error: (m) => lines.push(m) };
}

interface AcmeServer {
  pebble: RunningPebble;
  /** Answers challenges from this store's from now on. */
  answerFrom(store: Store): void;
  stop(): Promise<void>;
}

/**
 * Pebble, with a challenge responder on its httpPort that answers only from a store (no
 * answer of its own), as an instance that did not place the order would.
 */
async function startAcmeServer(validitySeconds?: number): Promise<AcmeServer> {
  let answers = new ChallengeResponses();
  const responder = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (!path.startsWith(CHALLENGE_PREFIX)) return new Response('not found', { status: 404 });
      const answer = await answers.find(path.slice(CHALLENGE_PREFIX.length));
      return answer === undefined
        ? new Response('not found', { status: 404 })
        : new Response(answer);
    },
  });
  const pebble = await startPebble({ httpPort: responder.port as number, validitySeconds });
  return {
    pebble,
    answerFrom(store) {
      answers = new ChallengeResponses(storedChallenges(store));
    },
    async stop() {
      responder.stop(true);
      await pebble.stop();
    },
  };
}

/** Pebble starts in about 2 s: the tests that need no lifetime of their own share one. */
let shared: Promise<AcmeServer> | undefined;
afterAll(async () => {
  await (await shared)?.stop();
});

/** Pebble for a test, answering challenges from `store`. */
async function acmeServer(store: Store, validitySeconds?: number): Promise<RunningPebble> {
  let server: AcmeServer;
  if (validitySeconds === undefined) {
    shared ??= startAcmeServer();
    server = await shared;
  } else {
    server = await startAcmeServer(validitySeconds);
    onTestFinished(() => server.stop());
  }
  server.answerFrom(store);
  return server.pebble;
}

interface Started {
  manager: AcmeManager;
  certificates: CertificateSet;
  log: Logger & { lines: string[] };
  names: string[];
  /** Adds a host, as a domain added at run time would. */
  add(host: string): void;
}

async function startManager(
  store: Store,
  pebble: RunningPebble,
  hosts: string[],
  extra: Partial<AcmeManagerOptions> = {},
): Promise<Started> {
  const certificates = new CertificateSet();
  const log = memoryLog();
  const names = [...hosts];
  const listeners = new Set<() => void>();
  const manager = await AcmeManager.start({
    settings: {
      acmeDirectory: pebble.directory,
      acmeEmail: 'ops@example.com',
      acmeCaFile: pebble.caFile,
    },
    store,
    certificates,
    challenges: new ChallengeResponses(),
    names: () => names,
    onNamesChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    log,
    ...extra,
  });
  onTestFinished(() => manager.stop());
  return {
    manager,
    certificates,
    log,
    names,
    add(host) {
      names.push(host);
      for (const listener of listeners) listener();
    },
  };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Checks that `certPem`'s chain leads to Pebble's root, names `name` and matches `keyPem`. */
function expectValidChain(pebble: RunningPebble, name: string, certPem: string, keyPem: string) {
  const chain = (certPem.match(PEM_CERTIFICATE) ?? []).map((pem) => new X509Certificate(pem));
  expect(chain.length).toBeGreaterThanOrEqual(2);
  const [leaf, ...issuers] = chain as [X509Certificate, ...X509Certificate[]];
  const root = new X509Certificate(pebble.root);
  const all = [leaf, ...issuers, root];
  for (let i = 0; i + 1 < all.length; i++) {
    const [child, parent] = [all[i] as X509Certificate, all[i + 1] as X509Certificate];
    expect(child.checkIssued(parent)).toBe(true);
    expect(child.verify(parent.publicKey)).toBe(true);
  }
  expect(leaf.checkHost(name)).toBe(name);
  expect(leaf.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
  expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
}

const serialOf = (certificates: CertificateSet, name: string) => {
  const cert = certificates.get(name);
  return cert === undefined ? undefined : new X509Certificate(cert.cert).serialNumber;
};

describe.skipIf(PEBBLE_MISSING !== undefined).each(['sqlite', 'postgres'] as const)(
  '--tls auto with Pebble on %s',
  (backend) => {
    test(
      'the first certificates: one per name, chains to Pebble’s root, kept in the store',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        const { manager, certificates, log } = await startManager(store, pebble, [
          's.example.com',
          'go.example.org:8443',
          '127.0.0.1:8080',
          'localhost',
        ]);
        await eventually(
          () => certificates.all().length === 2,
          () => `two certificates (log: ${log.lines.join(' | ')})`,
          WAIT,
        );
        for (const name of ['s.example.com', 'go.example.org']) {
          const served = certificates.get(name);
          expect(served).toBeDefined();
          expectValidChain(pebble, name, served?.cert ?? '', served?.key ?? '');
          const stored = await store.certificate(name);
          expect(stored).toMatchObject({ certPem: served?.cert, keyPem: served?.key });
          expect(stored?.notAfter).toBe(served?.notAfter.getTime());
        }
        expect(manager.counts).toEqual({ issued: 2, failed: 0 });
        const account = await store.acmeAccount(pebble.directory);
        expect(account?.url).toStartWith('https://127.0.0.1:');
        expect(account?.keyPem).toContain('PRIVATE KEY');
        expect(log.lines).toContain(
          'kurz: no certificate for 127.0.0.1:8080: an IP address cannot have a certificate from an ACME server',
        );
        expect(log.lines).toContain(
          'kurz: no certificate for localhost: a name without a dot is not a public domain',
        );
        expect(
          log.lines.some((l) =>
            /^kurz: certificate for s\.example\.com obtained, valid until 20\d\d-/.test(l),
          ),
        ).toBe(true);
        // No private key, the account's or a certificate's, in any line.
        expect(log.lines.join('\n')).not.toContain('PRIVATE KEY');
      },
      SLOW,
    );

    test(
      'a domain added at run time gets its certificate without a restart',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        const registry = await DomainRegistry.open(store, () => 'https://s.example.com');
        onTestFinished(() => registry.close());
        const { certificates } = await startManager(store, pebble, [], {
          names: () => registry.all().map((domain) => domain.host),
          onNamesChange: (listener) => registry.onChange(listener),
        });
        await eventually(
          () => certificates.get('s.example.com') !== undefined,
          'the base URL’s certificate',
          WAIT,
        );
        await store.createDomain({
          baseUrl: 'https://go.example.net',
          host: 'go.example.net',
          rootRedirect: null,
          notFoundRedirect: null,
          createdAt: Date.now(),
        });
        await eventually(
          () => certificates.get('go.example.net') !== undefined,
          'the new domain’s certificate',
          WAIT,
        );
        const served = certificates.get('go.example.net');
        expectValidChain(pebble, 'go.example.net', served?.cert ?? '', served?.key ?? '');
      },
      SLOW,
    );

    test(
      'a short-lived certificate is renewed once a third of its lifetime is left',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store, 6);
        const { manager, certificates, log } = await startManager(store, pebble, ['s.example.com']);
        await eventually(
          () => certificates.get('s.example.com') !== undefined,
          'the first certificate',
          WAIT,
        );
        const first = certificates.get('s.example.com');
        const firstSerial = serialOf(certificates, 's.example.com');
        await eventually(
          () => serialOf(certificates, 's.example.com') !== firstSerial,
          () => `a renewal (log: ${log.lines.join(' | ')})`,
          WAIT,
        );
        const renewed = certificates.get('s.example.com');
        expect(renewed?.notAfter.getTime()).toBeGreaterThan(first?.notAfter.getTime() ?? 0);
        expect(renewed?.key).not.toBe(first?.key);
        expectValidChain(pebble, 's.example.com', renewed?.cert ?? '', renewed?.key ?? '');
        expect(
          log.lines.some((l) => l.startsWith('kurz: certificate for s.example.com renewed')),
        ).toBe(true);
        // Renewed when due, not over and over: at most one order per two seconds or so.
        const issuedAt = manager.counts.issued;
        expect(issuedAt).toBeGreaterThanOrEqual(2);
        expect(issuedAt).toBeLessThan(10);
        await eventually(
          async () =>
            (await store.certificate('s.example.com'))?.certPem ===
            certificates.get('s.example.com')?.cert,
          'the renewal kept in the store',
        );
      },
      SLOW,
    );

    test(
      'a failing challenge: no certificate, the reason logged and counted, tried again later, the others served',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        // Nothing answers there: Pebble's check of the challenge is refused.
        await pebble.resolve('bad.example.com', '127.0.0.2');
        const { manager, certificates, log } = await startManager(
          store,
          pebble,
          ['bad.example.com', 'good.example.com'],
          { backoff: { firstMs: 300, maxMs: 1_200 } },
        );
        await eventually(
          () => manager.counts.failed >= 3 && certificates.get('good.example.com') !== undefined,
          () => `three failures and the good name's certificate (log: ${log.lines.join(' | ')})`,
          WAIT,
        );
        expect(certificates.get('bad.example.com')).toBeUndefined();
        expect(await store.certificate('bad.example.com')).toBeUndefined();
        const failures = log.lines.filter((l) =>
          l.startsWith('kurz: no certificate for bad.example.com (attempt'),
        );
        expect(failures[0]).toMatch(
          /^kurz: no certificate for bad\.example\.com \(attempt 1\): .*127\.0\.0\.2.*; trying again in 0 s$/,
        );
        expect(failures[1]).toContain('(attempt 2)');
        const status = manager.status().names.find((n) => n.name === 'bad.example.com');
        expect(status?.failures).toBeGreaterThanOrEqual(3);
        expect(status?.lastError).toContain('127.0.0.2');
        expect(status?.notAfter).toBeUndefined();
        expect(manager.status().names.find((n) => n.name === 'good.example.com')).toMatchObject({
          failures: 0,
        });
        expect(manager.counts.issued).toBe(1);
      },
      SLOW,
    );

    test(
      'a restart serves the kept certificate and orders nothing for it; the account is reused',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        const before = await startManager(store, pebble, ['s.example.com']);
        await eventually(
          () => before.certificates.get('s.example.com') !== undefined,
          'the first certificate',
          WAIT,
        );
        const serial = serialOf(before.certificates, 's.example.com');
        const account = await store.acmeAccount(pebble.directory);
        await before.manager.stop();

        const after = await startManager(store, pebble, ['s.example.com']);
        // Served from the store as soon as start resolves.
        expect(serialOf(after.certificates, 's.example.com')).toBe(serial);
        after.add('new.example.com');
        await eventually(
          () => after.certificates.get('new.example.com') !== undefined,
          'the new name’s certificate',
          WAIT,
        );
        expect(after.manager.counts).toEqual({ issued: 1, failed: 0 });
        expect(serialOf(after.certificates, 's.example.com')).toBe(serial);
        expect(await store.acmeAccount(pebble.directory)).toEqual(account);
        expect(after.log.lines).toContain(
          `kurz: certificates from ${pebble.directory} for s.example.com (1 kept in the database)`,
        );
      },
      SLOW,
    );
    test(
      'an instance that died holding the lease blocks the others only until it runs out',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        const leaseEnd = Date.now() + 1_500;
        expect(await store.takeOrderLease('died-while-ordering', Date.now(), leaseEnd)).toBe(true);
        const { certificates, log } = await startManager(store, pebble, ['s.example.com'], {
          leaseRetryMs: 200,
        });
        await eventually(
          () => certificates.get('s.example.com') !== undefined,
          'a certificate',
          WAIT,
        );
        expect(Date.now()).toBeGreaterThanOrEqual(leaseEnd);
        expect(log.lines).toContain(
          'kurz: another instance is ordering certificates; this one serves what it obtains',
        );
      },
      SLOW,
    );

    test(
      'a certificate from another directory (staging) is served until this one’s replaces it',
      async () => {
        const store = await testStore(backend);
        const pebble = await acmeServer(store);
        const staging = await startManager(store, pebble, ['s.example.com']);
        await eventually(
          () => staging.certificates.get('s.example.com') !== undefined,
          'a certificate',
          WAIT,
        );
        await staging.manager.stop();
        const kept = await store.certificate('s.example.com');
        const elsewhere = 'https://acme-staging.example/directory';
        await store.saveCertificate({ ...(kept as StoredCertificate), directory: elsewhere });

        const production = await startManager(store, pebble, ['s.example.com']);
        expect(production.certificates.get('s.example.com')?.cert).toBe(kept?.certPem as string);
        await eventually(
          () => production.certificates.get('s.example.com')?.cert !== kept?.certPem,
          'a certificate from this directory',
          WAIT,
        );
        expect((await store.certificate('s.example.com'))?.directory).toBe(pebble.directory);
        expect(production.manager.counts).toEqual({ issued: 1, failed: 0 });
        expect(
          production.log.lines.some((l) =>
            l.startsWith('kurz: certificate for s.example.com renewed'),
          ),
        ).toBe(true);
      },
      SLOW,
    );
  },
);

describe.skipIf(PEBBLE_MISSING !== undefined)(
  '--tls auto, two instances on one PostgreSQL database',
  () => {
    test(
      'one of them orders; both serve the certificate',
      async () => {
        const url = await freshSchemaUrl();
        const [one, two, third] = [
          await testStore('postgres', url),
          await testStore('postgres', url),
          await testStore('postgres', url),
        ];
        const pebble = await acmeServer(third);
        const [a, b] = await Promise.all([
          startManager(one, pebble, ['s.example.com', 'go.example.com']),
          startManager(two, pebble, ['s.example.com', 'go.example.com']),
        ]);
        await eventually(
          () => a.certificates.all().length === 2 && b.certificates.all().length === 2,
          () =>
            `both instances serve both (logs: ${a.log.lines.join(' | ')} || ${b.log.lines.join(' | ')})`,
          WAIT,
        );
        // One held the lease through its round and ordered both; the other loaded them.
        expect([a.manager.counts.issued, b.manager.counts.issued].sort()).toEqual([0, 2]);
        expect(a.manager.counts.failed + b.manager.counts.failed).toBe(0);
        for (const name of ['s.example.com', 'go.example.com']) {
          expect(serialOf(a.certificates, name)).toBe(serialOf(b.certificates, name) as string);
        }
      },
      SLOW,
    );
  },
);
