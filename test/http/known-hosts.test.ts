// DNS rebinding: a page on evil.example whose name is pointed at kurz's address is
// same-origin with itself, so its writes carry `Origin` = `Host` = evil.example. A
// browser's write is served only under a Host kurz knows: its base URL's, a registered
// domain's, an IP address, a loopback name, or one of --allowed-hosts. Open mode, where a
// write needs no token, is where it matters; the rule is the same in accounts mode.

import { describe, expect, test } from 'bun:test';
import { type AppOptions, TestApp } from '../support/test-app.ts';

const UNKNOWN_HOST = {
  error: "Unknown host: use this service's own address, or add the name to --allowed-hosts",
};
const CROSS_ORIGIN = { error: 'Cross-origin request refused' };
const TARGET = { url: 'https://example.com/' };

/** A browser's POST /api/shorten from a page of `origin`, sent to `host`. */
async function browserWrite(options: AppOptions, host: string, origin: string) {
  const app = await TestApp.init('open', options);
  const client = app.anonymous();
  const reply = await client.shorten(TARGET, { host, headers: { origin } });
  return { reply, links: (await client.links()).json.length };
}

describe("a browser's write under a Host kurz does not know (base URL https://kurz.test)", () => {
  test('a rebinding page (Origin = Host = evil.example) is refused with 403 and makes nothing', async () => {
    const { reply, links } = await browserWrite(
      {},
      'evil.example:3000',
      'http://evil.example:3000',
    );
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(UNKNOWN_HOST);
    expect(links).toBe(0);
  });

  test('so is one without Origin that Sec-Fetch-Site marks as a browser’s', async () => {
    const app = await TestApp.init('open');
    const reply = await app.anonymous().shorten(TARGET, {
      host: 'evil.example',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(UNKNOWN_HOST);
  });

  test.each(['www.kurz.test', 'kurz.test.evil.example', 'kurz'])(
    'a name near kurz’s own is unknown too: %s',
    async (name) => {
      const { reply } = await browserWrite({}, name, `http://${name}`);
      expect(reply.json).toEqual(UNKNOWN_HOST);
    },
  );

  test.each(['PATCH', 'DELETE', 'PUT'])('any %s is refused the same way', async (method) => {
    const app = await TestApp.init('open');
    const reply = await app.request(method, '/api/links/abc', {
      host: 'evil.example',
      headers: { origin: 'http://evil.example' },
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(UNKNOWN_HOST);
  });

  test('a page of another site is refused as cross-origin first, whatever the Host', async () => {
    const { reply } = await browserWrite({}, 'evil.example', 'https://other.example');
    expect(reply.json).toEqual(CROSS_ORIGIN);
  });

  test('a declared body over 64 KiB is 413 before the refusal', async () => {
    const app = await TestApp.init('open');
    const raw = JSON.stringify({ url: `https://example.com/${'x'.repeat(70_000)}` });
    const reply = await app.anonymous().shorten(undefined, {
      raw,
      host: 'evil.example',
      headers: { origin: 'http://evil.example', 'content-length': String(raw.length) },
    });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ error: 'Request body too large' });
  });

  test('a write without Origin (curl, scripts) is served under any Host', async () => {
    const app = await TestApp.init('open');
    const reply = await app.anonymous().shorten(TARGET, { host: 'evil.example' });
    expect(reply.status).toBe(201);
  });

  test('reads are not refused: a rebinding page’s reads carry no Origin to tell them by', async () => {
    const app = await TestApp.init('open');
    const reply = await app.get('/api/links', {
      host: 'evil.example',
      headers: { origin: 'http://evil.example' },
    });
    expect(reply.status).toBe(200);
  });
});

describe("a browser's write under a Host kurz knows is served", () => {
  test.each([
    // Behind a TLS-terminating proxy: over http, with the public Host.
    ['the base URL’s host', 'kurz.test', 'https://kurz.test'],
    ['the base URL’s host, spelled otherwise', 'KURZ.test.', 'https://kurz.test'],
    ['an IPv4 address', '192.168.1.5:3000', 'http://192.168.1.5:3000'],
    ['an IPv6 address', '[fd00::5]:3000', 'http://[fd00::5]:3000'],
    ['localhost', 'localhost:3000', 'http://localhost:3000'],
    ['127.0.0.1', '127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['a name under localhost', 'kurz.localhost:3000', 'http://kurz.localhost:3000'],
  ])('%s', async (_, host, origin) => {
    const { reply, links } = await browserWrite({}, host, origin);
    expect(reply.status).toBe(201);
    expect(links).toBe(1);
  });

  test('a name of --allowed-hosts, on any port and in any spelling', async () => {
    const options = { allowedHosts: ['kurz.lan'] };
    for (const [host, origin] of [
      ['kurz.lan:3000', 'http://kurz.lan:3000'],
      ['Kurz.LAN.', 'http://kurz.lan.'],
      ['kurz.lan', 'https://kurz.lan'],
    ] as const) {
      const { reply } = await browserWrite(options, host, origin);
      expect([host, reply.status]).toEqual([host, 201]);
    }
    // Only the names listed: not their subdomains.
    const sub = await browserWrite(options, 'evil.kurz.lan', 'http://evil.kurz.lan');
    expect(sub.reply.json).toEqual(UNKNOWN_HOST);
  });

  test('a registered domain, and one registered later at once', async () => {
    let domains: ReadonlySet<string> = new Set(['go.example']);
    const app = await TestApp.init('open', { registeredHosts: () => domains });
    const client = app.anonymous();
    const write = (name: string) =>
      client.shorten(TARGET, { host: name, headers: { origin: `https://${name}` } });
    expect((await write('go.example')).status).toBe(201);
    expect((await write('to.example')).json).toEqual(UNKNOWN_HOST);
    domains = new Set(['go.example', 'to.example']);
    expect((await write('to.example')).status).toBe(201);
  });
});

describe('accounts mode', () => {
  test('a rebinding page cannot register an account either', async () => {
    const app = await TestApp.init('accounts');
    const credentials = { email: 'ann@example.com', password: 'correct horse 42' };
    const reply = await app.post('/api/auth/register', credentials, {
      host: 'evil.example',
      headers: { origin: 'http://evil.example' },
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(UNKNOWN_HOST);
    expect((await app.post('/api/auth/register', credentials)).status).toBe(200);
  });
});
