// --tls auto's rows in the store, on both databases: the ACME account is kept once per
// directory (the first stored wins), certificates are replaced per name and announced
// to every instance on the database, challenges are found until they expire, and one
// holder at a time has the lease on ordering, until it gives it up or it runs out.

import { describe, expect, test } from 'bun:test';
import type { StoredCertificate } from '../../src/store/tls.ts';
import { eventually } from '../support/binary.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import { testStore } from '../support/stores.ts';

const cert = (name: string, serial: string, extra: Partial<StoredCertificate> = {}) => ({
  name,
  directory: 'https://acme.example/directory',
  certPem: `-----BEGIN CERTIFICATE-----\n${serial}\n-----END CERTIFICATE-----\n`,
  keyPem: `-----BEGIN PRIVATE KEY-----\n${serial}\n-----END PRIVATE KEY-----\n`,
  notBefore: 1_000,
  notAfter: 2_000_000_000_000,
  updatedAt: 5,
  ...extra,
});

describe.each(['sqlite', 'postgres'] as const)('the TLS area on %s', (backend) => {
  test('an ACME account is kept once per directory, the first one stored winning', async () => {
    const store = await testStore(backend);
    const directory = 'https://acme.example/directory';
    expect(await store.acmeAccount(directory)).toBeUndefined();
    const first = { directory, keyPem: 'KEY-1', url: null, createdAt: 10 };
    expect(await store.addAcmeAccount(first)).toEqual(first);
    expect(await store.addAcmeAccount({ ...first, keyPem: 'KEY-2', createdAt: 11 })).toEqual(first);
    await store.setAcmeAccountUrl(directory, 'https://acme.example/acct/1');
    expect(await store.acmeAccount(directory)).toEqual({
      ...first,
      url: 'https://acme.example/acct/1',
    });
    expect(await store.acmeAccount('https://other.example/directory')).toBeUndefined();
  });

  test('certificates are kept per name, a renewal replacing the one before', async () => {
    const store = await testStore(backend);
    let heard = 0;
    const stop = store.watchCertificates(() => heard++);
    await store.saveCertificate(cert('b.example.com', 'B1'));
    await store.saveCertificate(cert('a.example.com', 'A1'));
    const renewal = { notAfter: 3_000_000_000_000, directory: 'https://other.example/dir' };
    await store.saveCertificate(cert('b.example.com', 'B2', renewal));
    expect((await store.listCertificates()).map((c) => [c.name, c.certPem.split('\n')[1]])).toEqual(
      [
        ['a.example.com', 'A1'],
        ['b.example.com', 'B2'],
      ],
    );
    expect(await store.certificate('b.example.com')).toEqual(cert('b.example.com', 'B2', renewal));
    expect(await store.certificate('c.example.com')).toBeUndefined();
    await eventually(() => heard >= 3, 'three saves heard');
    stop();
  });

  test('a challenge is found until it expires or is removed; expired ones are swept', async () => {
    const store = await testStore(backend);
    await store.addChallenge('tok-1', 'tok-1.thumb', 1_000, 0);
    await store.addChallenge('tok-2', 'tok-2.thumb', 5_000, 0);
    expect(await store.findChallenge('tok-1', 999)).toBe('tok-1.thumb');
    expect(await store.findChallenge('tok-1', 1_000)).toBeUndefined();
    expect(await store.findChallenge('nope', 0)).toBeUndefined();
    await store.removeChallenge('tok-2');
    expect(await store.findChallenge('tok-2', 0)).toBeUndefined();
    await store.addChallenge('tok-3', 'tok-3.thumb', 9_000, 2_000);
    expect(await store.findChallenge('tok-1', 0)).toBeUndefined();
    expect(await store.findChallenge('tok-3', 2_000)).toBe('tok-3.thumb');
  });

  test('one holder at a time has the lease on ordering, until released or run out', async () => {
    const store = await testStore(backend);
    expect(await store.takeOrderLease('one', 0, 1_000)).toBe(true);
    expect(await store.takeOrderLease('two', 500, 1_500)).toBe(false);
    expect(await store.takeOrderLease('one', 600, 2_000)).toBe(true);
    expect(await store.takeOrderLease('two', 1_999, 3_000)).toBe(false);
    // Its holder died: the lease runs out, and another takes it.
    expect(await store.takeOrderLease('two', 2_000, 3_000)).toBe(true);
    await store.releaseOrderLease('one');
    expect(await store.takeOrderLease('one', 2_100, 3_100)).toBe(false);
    await store.releaseOrderLease('two');
    expect(await store.takeOrderLease('one', 2_100, 3_100)).toBe(true);
  });
});

describe('the TLS area on one PostgreSQL database, two instances', () => {
  test('a certificate one instance saves is announced to the other', async () => {
    const url = await freshSchemaUrl();
    const one = await testStore('postgres', url);
    const two = await testStore('postgres', url);
    let heard = 0;
    two.watchCertificates(() => heard++);
    await one.saveCertificate(cert('s.example.com', 'S1'));
    await eventually(() => heard === 1, 'the other instance hears of the certificate');
    expect((await two.certificate('s.example.com'))?.certPem).toContain('S1');
    expect(await one.takeOrderLease('one', 0, 1_000)).toBe(true);
    expect(await two.takeOrderLease('two', 0, 1_000)).toBe(false);
  });
});
