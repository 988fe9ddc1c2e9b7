// dist/kurz with --tls auto against Pebble (Let's Encrypt's test server): the first
// certificate obtained through plain HTTP's challenge answers and served over HTTPS with
// a chain that verifies against Pebble's root; plain HTTP then redirecting; a domain
// added at run time getting its own certificate without a restart; a restart serving the
// stored certificate without a new order; and a challenge that fails leaving kurz serving
// plain HTTP and saying why.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { call, eventually, startKurz, tempDir } from '../support/binary.ts';
import { PEBBLE_MISSING, type RunningPebble, startPebble } from '../support/pebble.ts';
import { freePort } from '../support/proxies.ts';

const ADMIN_TOKEN = 'admin-token-for-the-tls-auto-test-0123456789';
const METRICS_TOKEN = 'metrics-token-for-the-tls-auto-test-0123';

/** What a client that verifies against `ca` sees of `name`'s certificate on `port`, and `/health`. */
function visit(
  port: number,
  name: string,
  ca: string,
): Promise<{ authorized: boolean; subject: string; serial: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: name, ca }, () => {
      const peer = socket.getPeerCertificate();
      let body = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        body += chunk;
      });
      socket.on('end', () =>
        resolve({
          authorized: socket.authorized,
          subject: String(peer.subjectaltname),
          serial: peer.serialNumber,
          body,
        }),
      );
      socket.write(`GET /health HTTP/1.1\r\nHost: ${name}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('error', reject);
  });
}

/** Whether `name` is served a certificate for it that verifies against `ca`. */
async function served(port: number, name: string, ca: string): Promise<boolean> {
  try {
    const seen = await visit(port, name, ca);
    return seen.authorized && seen.subject.includes(`DNS:${name}`);
  } catch {
    return false;
  }
}

async function metrics(httpPort: number): Promise<string> {
  const answer = await call(`http://127.0.0.1:${httpPort}`, 'GET', '/api/metrics', {
    token: METRICS_TOKEN,
  });
  return answer.text;
}

if (PEBBLE_MISSING !== undefined) {
  console.warn(`kurz: the --tls auto tests of dist/kurz are skipped: ${PEBBLE_MISSING}`);
}

describe.skipIf(PEBBLE_MISSING !== undefined)('dist/kurz --tls auto against Pebble', () => {
  let pebble: RunningPebble;
  const httpPort = freePort();
  const dir = tempDir();
  const args = () => [
    '--mode',
    'open',
    '--db',
    join(dir, 'kurz.db'),
    '--tls',
    'auto',
    '--base-url',
    'https://s.kurz.test',
    '--acme-directory',
    pebble.directory,
    '--acme-ca-file',
    pebble.caFile,
    '--acme-email',
    'ops@kurz.test',
    '--https-port',
    '0',
    '--http-port',
    String(httpPort),
    '--admin-token',
    ADMIN_TOKEN,
    '--metrics-token',
    METRICS_TOKEN,
  ];

  beforeAll(async () => {
    pebble = await startPebble({ httpPort });
  });
  afterAll(async () => {
    await pebble?.stop();
  });

  test('obtains, serves and renews nothing needlessly: first issuance, a domain added live, a restart', async () => {
    const kurz = await startKurz(args(), { startTimeoutMs: 30_000 });
    await eventually(() => served(kurz.port, 's.kurz.test', pebble.root), 'the first certificate');
    const first = await visit(kurz.port, 's.kurz.test', pebble.root);
    expect(first.body).toContain('"Healthy"');
    expect(first.body.toLowerCase()).toContain('strict-transport-security: max-age=31536000');
    expect(kurz.output()).toMatch(/certificate for s\.kurz\.test/);
    expect(kurz.output()).not.toContain('PRIVATE KEY');

    // Plain HTTP now sends the API (308) and pages (301) to HTTPS, and still answers challenges.
    const api = await call(`http://127.0.0.1:${httpPort}`, 'GET', '/api/links', {
      headers: { host: 's.kurz.test' },
    });
    expect(api.status).toBe(308);
    expect(api.headers.get('location')).toBe('https://s.kurz.test/api/links');
    const page = await call(`http://127.0.0.1:${httpPort}`, 'GET', '/', {
      headers: { host: 's.kurz.test' },
    });
    expect(page.status).toBe(301);

    // A short domain added while kurz runs gets a certificate of its own, without a restart.
    const added = await call(`http://127.0.0.1:${httpPort}`, 'POST', '/api/domains', {
      token: ADMIN_TOKEN,
      json: { base_url: 'https://go.kurz.test' },
    });
    expect(added.status).toBe(201);
    await eventually(() => served(kurz.port, 'go.kurz.test', pebble.root), "the new domain's");
    await eventually(
      async () => /kurz_acme_orders_total\{outcome="issued"\} 2/.test(await metrics(httpPort)),
      'two orders counted',
    );
    const figures = await metrics(httpPort);
    expect(figures).toMatch(/kurz_tls_certificate_expiry_days\{name="s\.kurz\.test"\} \d/);
    expect(figures).toMatch(/kurz_tls_certificate_expiry_days\{name="go\.kurz\.test"\} \d/);
    expect(await kurz.stop('SIGTERM')).toBe(0);

    // Started again on the same database: the stored certificates are served, none ordered.
    const again = await startKurz(args(), { startTimeoutMs: 30_000 });
    await eventually(() => served(again.port, 's.kurz.test', pebble.root), 'the stored one');
    expect((await visit(again.port, 's.kurz.test', pebble.root)).serial).toBe(first.serial);
    expect(await served(again.port, 'go.kurz.test', pebble.root)).toBe(true);
    expect(await metrics(httpPort)).toMatch(/kurz_acme_orders_total\{outcome="issued"\} 0/);
    expect(await again.stop('SIGTERM')).toBe(0);
  }, 120_000);

  test('a challenge that fails: kurz keeps serving plain HTTP, says why, and counts it', async () => {
    // The name resolves to an address where nothing answers Pebble's check.
    await pebble.resolve('broken.kurz.test', '127.0.0.2');
    const failing = tempDir();
    const kurz = await startKurz(
      args().map((arg) =>
        arg === 'https://s.kurz.test'
          ? 'https://broken.kurz.test'
          : arg === join(dir, 'kurz.db')
            ? join(failing, 'kurz.db')
            : arg,
      ),
      { startTimeoutMs: 30_000 },
    );
    await eventually(
      async () => /kurz_acme_orders_total\{outcome="failed"\} [1-9]/.test(await metrics(httpPort)),
      'a failed order counted',
    );
    expect(kurz.output()).toMatch(/no certificate for broken\.kurz\.test .*trying again in/);
    // No certificate: plain HTTP serves kurz itself, without HSTS.
    const made = await call(`http://127.0.0.1:${httpPort}`, 'POST', '/api/shorten', {
      headers: { host: 'broken.kurz.test' },
      json: { url: 'https://example.com/while-no-certificate' },
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('strict-transport-security')).toBeNull();
    expect(await served(kurz.port, 'broken.kurz.test', pebble.root)).toBe(false);
    expect(await kurz.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
