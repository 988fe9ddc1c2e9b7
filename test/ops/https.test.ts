// dist/kurz serving HTTPS itself with the operator's certificate (--tls-cert, --tls-key):
// answers verified against a test CA, plain HTTP's redirects, HSTS, the certificate read
// again on SIGHUP without a failed request (also under load: many keep-alive clients on
// the redirect while the certificate is swapped several times), bad pairs refused, the
// port claimed against a second kurz, the expiry metric, and a clean SIGTERM.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, eventually, type Running, runKurz, startKurz, tempDir } from '../support/binary.ts';
import {
  makeCa,
  makeLeaf,
  peerFingerprint,
  type TestCa,
  type TestPair,
} from '../support/certificates.ts';

const METRICS_TOKEN = 'metrics-token-for-the-https-test';

/**
 * The SHA-256 fingerprint of the certificate a new connection to `port` is served, tried
 * again when the connection is reset: one that arrives in the instant of a swap may be,
 * unless net.ipv4.tcp_migrate_req is 1 (docs/https.md). Resets are counted.
 */
async function servedFingerprint(port: number, ca: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await peerFingerprint(port, ca);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ECONNRESET' || attempt === 5) throw error;
      newConnectionResets++;
    }
  }
}

let newConnectionResets = 0;

/** The files kurz is started with, which a test overwrites with another pair before SIGHUP. */
function servedFiles(pair: TestPair) {
  const dir = tempDir();
  const files = { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') };
  const use = (next: TestPair) => {
    copyFileSync(next.certFile, files.certFile);
    copyFileSync(next.keyFile, files.keyFile);
  };
  use(pair);
  return { ...files, use };
}

function startHttps(files: { certFile: string; keyFile: string }, extra: string[] = []) {
  return startKurz([
    '--mode',
    'open',
    '--rate-limits',
    'off',
    '--tls-cert',
    files.certFile,
    '--tls-key',
    files.keyFile,
    '--https-port',
    '0',
    '--http-port',
    '0',
    '--metrics-token',
    METRICS_TOKEN,
    ...extra,
  ]);
}

const count = (text: string, what: string) => text.split(what).length - 1;

/** Whether Linux hands a closing listener's queued connections to another (docs/https.md). */
function migrates(): boolean {
  try {
    return readFileSync('/proc/sys/net/ipv4/tcp_migrate_req', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

describe('HTTPS from --tls-cert and --tls-key', () => {
  let ca: TestCa;
  let first: TestPair;
  let second: TestPair;
  let files: ReturnType<typeof servedFiles>;
  let kurz: Running;
  let code: string;

  beforeAll(async () => {
    ca = makeCa();
    first = makeLeaf(ca, { days: 10 });
    second = makeLeaf(ca, { days: 20 });
    files = servedFiles(first);
    kurz = await startHttps(files);
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/over-https' },
      ca: ca.pem,
    });
    expect(made.status).toBe(201);
    code = made.json.short_code;
  }, 30_000);

  afterAll(async () => {
    await kurz?.stop();
  });

  test('serves the given certificate, verified against its CA, with HSTS on every answer', async () => {
    expect(kurz.url).toStartWith('https://localhost:');
    expect(await servedFingerprint(kurz.port, ca.pem)).toBe(first.fingerprint);
    const redirect = await call(kurz.url, 'GET', `/${code}`, { ca: ca.pem });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe('https://example.com/over-https');
    const hsts = 'max-age=31536000';
    expect(redirect.headers.get('strict-transport-security')).toBe(hsts);
    const api = await call(kurz.url, 'GET', '/api/links', { ca: ca.pem });
    expect(api.headers.get('strict-transport-security')).toBe(hsts);
    const page = await fetch(`${kurz.url}/`, { tls: { ca: ca.pem } });
    expect(page.status).toBe(200);
    expect(page.headers.get('strict-transport-security')).toBe(hsts);
    // One-segment paths of the app's own are not taken for short codes.
    for (const path of ['/health', '/sw.js']) {
      const own = await call(kurz.url, 'GET', path, { ca: ca.pem });
      expect([path, own.status]).toEqual([path, 200]);
      expect(own.headers.get('strict-transport-security')).toBe(hsts);
    }
    const missing = await call(kurz.url, 'GET', '/no-such-code', { ca: ca.pem });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('strict-transport-security')).toBe(hsts);
    // Unverified, it is refused: the answer above came over TLS with the test CA.
    expect(fetch(`${kurz.url}/${code}`, { redirect: 'manual' })).rejects.toThrow();
  });

  test('plain HTTP redirects: 308 for the API and other methods, 301 for pages, no HSTS', async () => {
    const plain = `http://localhost:${kurz.httpPort}`;
    const api = await call(plain, 'GET', '/api/links?limit=5');
    expect(api.status).toBe(308);
    expect(api.headers.get('location')).toBe(`https://localhost:${kurz.port}/api/links?limit=5`);
    expect(api.headers.get('strict-transport-security')).toBeNull();
    const page = await call(plain, 'GET', `/${code}?source=x`);
    expect(page.status).toBe(301);
    expect(page.headers.get('location')).toBe(`https://localhost:${kurz.port}/${code}?source=x`);
    expect(page.headers.get('strict-transport-security')).toBeNull();
    const post = await call(plain, 'POST', `/${code}`, { raw: '{}' });
    expect(post.status).toBe(308);
    // The host the client asked for, and only it.
    const other = await call(`http://127.0.0.1:${kurz.httpPort}`, 'GET', '/', {
      headers: { host: 's.example.com' },
    });
    expect(other.headers.get('location')).toBe(`https://s.example.com:${kurz.port}/`);
    const bad = await call(`http://127.0.0.1:${kurz.httpPort}`, 'GET', '/', {
      headers: { host: 'no/host' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'A Host header naming this service is required' });
    // No challenge is under way with --tls-cert: its path answers 404, not a redirect.
    const challenge = await call(plain, 'GET', '/.well-known/acme-challenge/abc_DEF-123');
    expect(challenge.status).toBe(404);
  });

  test('the metrics show the days until the certificate expires', async () => {
    const metrics = await call(kurz.url, 'GET', '/api/metrics', {
      ca: ca.pem,
      token: METRICS_TOKEN,
    });
    expect(metrics.status).toBe(200);
    const days = Number(
      /kurz_tls_certificate_expiry_days\{name="\*"\} ([\d.]+)/.exec(metrics.text)?.[1],
    );
    expect(days).toBeGreaterThan(9);
    expect(days).toBeLessThanOrEqual(10);
    expect(metrics.text).toContain('kurz_tls_listener_swaps_total');
  });

  test('SIGHUP with a bad pair keeps the served certificate and says why, without key material', async () => {
    const before = count(kurz.output(), 'certificate not reloaded');
    writeFileSync(files.keyFile, first.cert.replace('CERTIFICATE', 'PRIVATE KEY'));
    kurz.proc.kill('SIGHUP');
    await eventually(
      () => count(kurz.output(), 'certificate not reloaded') > before,
      'the refusal',
      10_000,
    );
    expect(kurz.output()).toContain(`--tls-key ${files.keyFile}`);
    expect(await servedFingerprint(kurz.port, ca.pem)).toBe(first.fingerprint);
    const mismatched = makeLeaf(ca);
    copyFileSync(mismatched.certFile, files.certFile);
    copyFileSync(first.keyFile, files.keyFile);
    kurz.proc.kill('SIGHUP');
    await eventually(
      () => count(kurz.output(), 'certificate not reloaded') > before + 1,
      'the second refusal',
      10_000,
    );
    expect(kurz.output()).toContain('is not the private key of the certificate');
    expect(await servedFingerprint(kurz.port, ca.pem)).toBe(first.fingerprint);
    expect(kurz.output()).not.toContain('PRIVATE KEY');
    files.use(first);
  }, 30_000);

  test('swapping the certificate under load fails no request on a kept-alive connection', async () => {
    // Many keep-alive clients follow the short link over HTTPS while SIGHUP swaps the
    // certificate several times; every answer must be the 307.
    const clients = 32;
    const swaps = 6;
    let stop = false;
    let ok = 0;
    const failures: string[] = [];
    const client = async () => {
      while (!stop) {
        try {
          const r = await fetch(`${kurz.url}/${code}`, { redirect: 'manual', tls: { ca: ca.pem } });
          await r.arrayBuffer();
          if (r.status === 307) ok++;
          else failures.push(`status ${r.status}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const running = Array.from({ length: clients }, client);
    const reloaded = () => count(kurz.output(), 'certificate reloaded');
    for (let i = 0; i < swaps; i++) {
      const next = i % 2 === 0 ? second : first;
      const before = reloaded();
      const served = ok;
      files.use(next);
      kurz.proc.kill('SIGHUP');
      await eventually(() => reloaded() > before, 'the reload', 10_000);
      // New connections get the new certificate; the load keeps going meanwhile.
      await eventually(
        async () => (await servedFingerprint(kurz.port, ca.pem)) === next.fingerprint,
        'the new certificate',
        10_000,
      );
      await eventually(() => ok > served + 200, 'answers after the swap', 20_000);
    }
    stop = true;
    await Promise.all(running);
    console.log(
      `swap under load: ${ok} redirects on ${clients} keep-alive clients over ${swaps} swaps, ${failures.length} failed; ${newConnectionResets} new connections (probes) reset`,
    );
    expect(ok).toBeGreaterThan(swaps * 200);
    if (migrates()) {
      expect(failures).toEqual([]);
    } else {
      // Linux resets the connections queued at a listening socket that closes, unless
      // net.ipv4.tcp_migrate_req is 1: a client that connects in the instant of a swap
      // may see that reset, and only that (kurz says so at start). No answer is wrong.
      expect(failures.filter((failure) => !failure.includes('ECONNRESET'))).toEqual([]);
      expect(failures.length).toBeLessThan(ok / 50);
      expect(kurz.output()).toContain('net.ipv4.tcp_migrate_req is 0');
    }
    const metrics = await call(kurz.url, 'GET', '/api/metrics', {
      ca: ca.pem,
      token: METRICS_TOKEN,
    });
    expect(
      Number(/kurz_tls_listener_swaps_total (\d+)/.exec(metrics.text)?.[1]),
    ).toBeGreaterThanOrEqual(swaps);
  }, 120_000);

  test('a second kurz on the same HTTPS port fails to start, in one line', async () => {
    const second = await runKurz(
      ['serve', '--mode', 'open', '--host', '127.0.0.1', '--tls-cert', files.certFile]
        .concat(['--tls-key', files.keyFile, '--https-port', String(kurz.port), '--http-port', '0'])
        .concat(['--db', join(tempDir(), 'second.db')]),
    );
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(`kurz: HTTPS port ${kurz.port} on 127.0.0.1 is in use`);
    // The first still serves, every connection to it.
    for (let i = 0; i < 5; i++) {
      expect((await call(kurz.url, 'GET', `/${code}`, { ca: ca.pem })).status).toBe(307);
    }
  });
});

describe('HTTPS start and stop', () => {
  let ca: TestCa;
  let pair: TestPair;

  beforeAll(() => {
    ca = makeCa();
    pair = makeLeaf(ca);
  });

  test('--hsts-max-age 0 sends no HSTS; SIGTERM stops cleanly (exit 0)', async () => {
    const kurz = await startHttps(pair, ['--hsts-max-age', '0']);
    const answer = await call(kurz.url, 'GET', '/api/links', { ca: ca.pem });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('strict-transport-security')).toBeNull();
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await kurz.stop('SIGTERM')).toBe(0);
    expect(kurz.output()).toContain('SIGTERM received, shutting down');
  });

  test("the app reads each client's address over HTTPS, before a swap and after", async () => {
    const files = servedFiles(pair);
    const kurz = await startHttps(files, ['--access-log', 'on']);
    const seen = () => count(kurz.output(), ' from 127.0.0.1 (request ');
    expect((await call(kurz.url, 'GET', '/api/links', { ca: ca.pem })).status).toBe(200);
    expect((await call(kurz.url, 'GET', '/no-such-code', { ca: ca.pem })).status).toBe(404);
    await eventually(() => seen() >= 2, 'two access-log lines with the address');
    kurz.proc.kill('SIGHUP');
    await eventually(() => kurz.output().includes('certificate reloaded'), 'the reload');
    await eventually(
      async () => (await call(kurz.url, 'GET', '/api/links', { ca: ca.pem })).status === 200,
      'an answer after the swap',
    );
    expect((await call(kurz.url, 'GET', '/no-such-code', { ca: ca.pem })).status).toBe(404);
    await eventually(() => seen() >= 4, 'the address after the swap');
    expect(kurz.output()).not.toContain('from unknown');
    expect(await kurz.stop('SIGTERM')).toBe(0);
  });

  test('--tls auto before its first certificate: plain HTTP serves kurz itself, without HSTS', async () => {
    const kurz = await startKurz(
      ['--mode', 'open', '--tls', 'auto', '--base-url', 'https://s.example.com'].concat([
        '--https-port',
        '0',
        '--http-port',
        '0',
        // An ACME server that cannot be reached (test/ops/tls-auto.test.ts has a real one).
        '--acme-directory',
        'http://127.0.0.1:9/directory',
      ]),
    );
    // The order itself fails only after acme-client's retries (a minute and more).
    await eventually(
      () =>
        kurz.output().includes('certificates from http://127.0.0.1:9/directory for s.example.com'),
      'the ACME client started',
    );
    const plain = `http://127.0.0.1:${kurz.httpPort}`;
    const made = await call(plain, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/before-the-certificate' },
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('strict-transport-security')).toBeNull();
    const followed = await call(plain, 'GET', `/${made.json.short_code}`);
    expect(followed.status).toBe(307);
    expect(followed.headers.get('strict-transport-security')).toBeNull();
    expect((await call(plain, 'GET', '/health')).status).toBe(200);
    // No certificate yet: nothing is served over HTTPS.
    expect(
      fetch(`https://localhost:${kurz.port}/health`, { tls: { ca: ca.pem } }),
    ).rejects.toThrow();
    expect(await kurz.stop('SIGTERM')).toBe(0);
  });

  test('--http-port off: HTTPS alone', async () => {
    const kurz = await startHttps(pair, ['--http-port', 'off', '--hsts-max-age', '600']);
    expect(kurz.httpPort).toBeUndefined();
    const answer = await call(kurz.url, 'GET', '/api/links', { ca: ca.pem });
    expect(answer.headers.get('strict-transport-security')).toBe('max-age=600');
    expect(await kurz.stop('SIGTERM')).toBe(0);
  });

  test.each([
    ['a key of another certificate', 'mismatch', 'is not the private key of the certificate'],
    ['a certificate file that holds a key', 'not-a-cert', 'holds no PEM certificate'],
    ['a key file that holds a certificate', 'not-a-key', 'holds no unencrypted PEM private key'],
  ])(
    'start with %s fails in one line, naming the file, no key material',
    async (_, kind, message) => {
      const other = makeLeaf(ca);
      const dir = tempDir();
      const certFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      copyFileSync(kind === 'not-a-cert' ? pair.keyFile : pair.certFile, certFile);
      copyFileSync(
        kind === 'mismatch' ? other.keyFile : kind === 'not-a-key' ? pair.certFile : pair.keyFile,
        keyFile,
      );
      const done = await runKurz(
        ['serve', '--host', '127.0.0.1', '--tls-cert', certFile, '--tls-key', keyFile].concat([
          '--https-port',
          '0',
          '--http-port',
          '0',
          '--db',
          join(dir, 'k.db'),
        ]),
      );
      expect(done.code).toBe(2);
      const lines = done.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(message);
      expect(lines[0]).toContain(kind === 'not-a-cert' ? certFile : keyFile);
      expect(done.stdout + done.stderr).not.toContain('PRIVATE KEY');
      expect(done.stdout + done.stderr).not.toContain('BEGIN');
    },
  );
});
