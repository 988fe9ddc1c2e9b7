// The HTTPS listener and plain HTTP in-process: SNI per name with the '*' certificate as
// the default, a burst of changes gathered into one swap, the port claimed, the ACME
// challenge answered from ChallengeResponses, and a host without a certificate served the
// app itself over plain HTTP, without HSTS.

import { afterEach, describe, expect, test } from 'bun:test';
import { silentLogger } from '../../src/logger.ts';
import { CertificateSet, type ServedCertificate, validity } from '../../src/tls/certificates.ts';
import { ChallengeResponses } from '../../src/tls/challenges.ts';
import { claimPort, HttpsListener, PortInUseError } from '../../src/tls/https-listener.ts';
import { plainAnswer, plainHttpServe } from '../../src/tls/plain-http.ts';
import { eventually } from '../support/binary.ts';
import { makeCa, makeLeaf, peerFingerprint, type TestPair } from '../support/certificates.ts';

const ca = makeCa();
const LIMITS = { development: false, maxRequestBodySize: 1024, idleTimeout: 10 };

async function servedPair(name: string, pair: TestPair): Promise<ServedCertificate> {
  return {
    name,
    cert: pair.cert,
    key: await Bun.file(pair.keyFile).text(),
    ...validity(pair.cert),
  };
}

const fingerprint = (port: number, servername: string) =>
  peerFingerprint(port, ca.pem, { servername, anyName: true });

let listener: HttpsListener | undefined;
afterEach(async () => {
  await listener?.stop(true);
  listener = undefined;
});

function listen(certificates: CertificateSet, onServer?: () => void) {
  const port = claimPort('127.0.0.1', 0, 'HTTPS');
  listener = new HttpsListener({
    hostname: '127.0.0.1',
    port,
    certificates,
    serve: { ...LIMITS, routes: {}, fetch: () => new Response('hello') },
    drainMs: 1000,
    log: silentLogger,
    onServer,
  });
  return listener;
}

describe('HTTPS listener', () => {
  test('serves each name its certificate, and the * one to every other name', async () => {
    const [fallback, a, b] = [
      makeLeaf(ca),
      makeLeaf(ca, { names: ['a.test'] }),
      makeLeaf(ca, { names: ['b.test'] }),
    ];
    const certificates = new CertificateSet();
    certificates.put(await servedPair('a.test', a));
    certificates.put(await servedPair('*', fallback));
    certificates.put(await servedPair('b.test', b));
    const https = listen(certificates);
    expect(await fingerprint(https.port, 'a.test')).toBe(a.fingerprint);
    expect(await fingerprint(https.port, 'b.test')).toBe(b.fingerprint);
    expect(await fingerprint(https.port, 'localhost')).toBe(fallback.fingerprint);
    const answer = await fetch(`https://localhost:${https.port}/`, { tls: { ca: ca.pem } });
    expect(await answer.text()).toBe('hello');
  });

  test('a burst of changes is one swap; the next change another', async () => {
    const [first, a, b] = [
      makeLeaf(ca),
      makeLeaf(ca, { names: ['a.test'] }),
      makeLeaf(ca, { names: ['b.test'] }),
    ];
    const certificates = new CertificateSet();
    certificates.put(await servedPair('*', first));
    let servers = 0;
    const https = listen(certificates, () => servers++);
    expect(servers).toBe(1);
    // Put in one turn, as an ACME client puts the certificates of one order.
    const burst = [await servedPair('a.test', a), await servedPair('b.test', b)];
    for (const each of burst) certificates.put(each);
    certificates.remove('nothing');
    await eventually(() => https.swaps === 1, 'the swap');
    await Bun.sleep(200); // nothing more is coming: a second swap would show within this
    expect(https.swaps).toBe(1);
    expect(servers).toBe(2);
    expect(await fingerprint(https.port, 'b.test')).toBe(b.fingerprint);
    certificates.remove('b.test');
    await eventually(() => https.swaps === 2, 'the second swap');
    expect(await fingerprint(https.port, 'b.test')).toBe(first.fingerprint);
  });

  test('without a certificate it waits for the first (--tls auto)', async () => {
    const certificates = new CertificateSet();
    const https = listen(certificates);
    expect(https.serving).toBe(false);
    certificates.put(await servedPair('*', makeLeaf(ca)));
    await eventually(() => https.serving, 'HTTPS to start');
    expect(https.swaps).toBe(0);
    expect((await fetch(`https://localhost:${https.port}/`, { tls: { ca: ca.pem } })).status).toBe(
      200,
    );
  });

  test('a port in use is refused, also to a listener with SO_REUSEPORT', () => {
    const other = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      reusePort: true,
      fetch: () => new Response(),
    });
    try {
      expect(() => claimPort('127.0.0.1', other.port as number, 'HTTPS')).toThrow(
        new PortInUseError(`HTTPS port ${other.port} on 127.0.0.1 is in use`),
      );
    } finally {
      other.stop(true);
    }
  });
});

describe('plain HTTP', () => {
  const request = (path: string, init: RequestInit & { host?: string } = {}) =>
    new Request(`http://${init.host ?? 's.example.com'}${path}`, {
      ...init,
      headers: { host: init.host ?? 's.example.com', ...init.headers },
    });

  test('answers a challenge under way from ChallengeResponses, 404 otherwise', async () => {
    const challenges = new ChallengeResponses(async (token) =>
      token === 'elsewhere' ? 'elsewhere.thumbprint' : undefined,
    );
    challenges.put('tok_EN-1', 'tok_EN-1.thumbprint');
    const options = { certificates: new CertificateSet(), challenges, httpsPort: 443 };
    const found = (await plainAnswer(
      request('/.well-known/acme-challenge/tok_EN-1'),
      options,
    )) as Response;
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toBe('text/plain');
    expect(await found.text()).toBe('tok_EN-1.thumbprint');
    const other = (await plainAnswer(
      request('/.well-known/acme-challenge/elsewhere'),
      options,
    )) as Response;
    expect(await other.text()).toBe('elsewhere.thumbprint');
    challenges.remove('tok_EN-1');
    for (const token of ['tok_EN-1', 'x.y', '']) {
      const gone = (await plainAnswer(
        request(`/.well-known/acme-challenge/${token}`),
        options,
      )) as Response;
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual({ error: 'Not found' });
    }
  });

  test('redirects a host with a certificate; serves the app, without HSTS, to one without', async () => {
    const certificates = new CertificateSet();
    const options = { certificates, challenges: new ChallengeResponses(), httpsPort: 443 };
    const app = {
      routes: {},
      fetch: () =>
        new Response('the app', { headers: { 'strict-transport-security': 'max-age=60' } }),
    };
    const serve = plainHttpServe(app, options);
    const before = await serve.fetch(request('/x'), undefined as never);
    expect(await before.text()).toBe('the app');
    expect(before.headers.get('strict-transport-security')).toBeNull();
    certificates.put(await servedPair('s.example.com', makeLeaf(ca, { names: ['s.example.com'] })));
    const after = await serve.fetch(request('/x?y=1'), undefined as never);
    expect(after.status).toBe(301);
    expect(after.headers.get('location')).toBe('https://s.example.com/x?y=1');
    const api = await serve.fetch(request('/api/links', { method: 'DELETE' }), undefined as never);
    expect(api.status).toBe(308);
    // Another host still has no certificate: the app answers it.
    const other = await serve.fetch(request('/x', { host: 'go.example.com' }), undefined as never);
    expect(await other.text()).toBe('the app');
  });
});
