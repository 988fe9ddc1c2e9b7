// Targets kurz refuses: its own host (loops, short links of short links) and the
// operator's blocklist, as part of the url checks of POST /api/shorten.

import { describe, expect, test } from 'bun:test';
import { ownHostsOf } from '../../src/domain/own-hosts.ts';
import { BlocklistError, checkTarget, parseBlocklist } from '../../src/domain/targets.ts';
import { type AppOptions, BASE_URL, TestApp } from '../support/test-app.ts';

const SELF = { error: 'URL must not point to this service' };
const BLOCKED = { error: 'URL is blocked' };

describe('blocklist file', () => {
  const list = parseBlocklist(
    '# phishing\nevil.example\n\n  *.Bad.Example  # a wildcard means the same\nbücher.example\n203.0.113.66\n',
  );

  test('matches each domain and its subdomains, in any case', () => {
    for (const host of [
      'evil.example',
      'www.evil.example',
      'a.b.evil.example',
      'bad.example',
      'x.bad.example',
      'evil.example.',
    ]) {
      expect(list.blocks(host)).toBe(true);
    }
    for (const host of ['notevil.example', 'evil.example.org', 'example', 'good.example']) {
      expect(list.blocks(host)).toBe(false);
    }
  });

  test('IDNs are matched in their ASCII form; addresses exactly', () => {
    expect(list.blocks(new URL('https://shop.bücher.example/').hostname)).toBe(true);
    expect(list.blocks('203.0.113.66')).toBe(true);
    expect(list.blocks('3.0.113.66')).toBe(false);
  });

  test.each([
    ['evil.example\nhttps://phish.example/login\n', 2, 'https://phish.example/login'],
    ['ok.example\n\nbad domain.example\n', 3, 'bad domain.example'],
    ['-leading.example\n', 1, '-leading.example'],
    ['a..b\n', 1, 'a..b'],
    ['user@host.example\n', 1, 'user@host.example'],
  ])('a malformed line is reported with its number: %p', (text, line, shown) => {
    let error: unknown;
    try {
      parseBlocklist(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BlocklistError);
    expect((error as BlocklistError).line).toBe(line);
    expect((error as BlocklistError).message).toBe(`line ${line}: "${shown}" is not a domain`);
  });
});

describe('own host', () => {
  const own = ownHostsOf(['s.example']);
  const refused = (url: string, requestHost?: string) => {
    try {
      checkTarget(url, { own, requestHost }, undefined);
      return false;
    } catch {
      return true;
    }
  };

  test("the base URL's host on the same port, or on default ports, is refused", () => {
    expect(refused('https://s.example/abc')).toBe(true);
    expect(refused('http://s.example/abc')).toBe(true);
    expect(refused('https://S.EXAMPLE./abc')).toBe(true);
    expect(refused('https://s.example:443/abc')).toBe(true);
  });

  test('other hosts and other ports of the host are other services', () => {
    expect(refused('https://example.com/s.example')).toBe(false);
    expect(refused('https://x.s.example/')).toBe(false);
    expect(refused('https://s.example:8443/')).toBe(false);
  });

  test('the Host a request came to is kurz too (e.g. reached by its LAN address)', () => {
    expect(refused('http://192.168.1.5:3000/abc', '192.168.1.5:3000')).toBe(true);
    expect(refused('http://192.168.1.5:8080/abc', '192.168.1.5:3000')).toBe(false);
  });
});

describe.each(['accounts', 'open'] as const)('POST /api/shorten targets (%s mode)', (mode) => {
  const setup = async (domains = 'evil.example\n') => {
    let blocklist = parseBlocklist(domains);
    const app = await TestApp.init(mode, { blocklist: () => blocklist });
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    return { app, client, reload: (text: string) => (blocklist = parseBlocklist(text)) };
  };

  test('a link to kurz itself is refused, and nothing is created', async () => {
    const { client } = await setup();
    for (const url of [
      `${BASE_URL}/abc`,
      `${BASE_URL}/`,
      'http://kurz.test/x',
      'http://localhost/api/links',
    ]) {
      const reply = await client.shorten({ url });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual(SELF);
    }
    expect((await client.links()).json).toEqual([]);
  });

  test('a blocked domain and its subdomains are refused', async () => {
    const { client } = await setup();
    for (const url of ['https://evil.example/', 'https://login.evil.example/x?y=1']) {
      const reply = await client.shorten({ url });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual(BLOCKED);
    }
    expect((await client.shorten({ url: 'https://good.example/' })).status).toBe(201);
  });

  test('these are url checks: they answer before custom_code and source', async () => {
    const { client } = await setup();
    const reply = await client.shorten({
      url: 'https://evil.example/',
      custom_code: 'bad code!',
      source: 5,
    });
    expect(reply.json).toEqual(BLOCKED);
    const self = await client.shorten({ url: `${BASE_URL}/x`, custom_code: 'api' });
    expect(self.json).toEqual(SELF);
    // A url that breaks a plain rule still names that rule.
    const plain = await client.shorten({ url: 'ftp://evil.example/' });
    expect(plain.json).toEqual({ error: 'URL must start with http:// or https://' });
  });

  test('a reloaded list applies to the next request', async () => {
    const { client, reload } = await setup('');
    expect((await client.shorten({ url: 'https://newly.example/' })).status).toBe(201);
    reload('newly.example\n');
    expect((await client.shorten({ url: 'https://newly.example/2' })).json).toEqual(BLOCKED);
  });
});

// Spellings of kurz's own host that an audit found accepted before every check that
// compares hosts went through one normaliser (src/domain/hosts.ts).
describe('POST /api/shorten targets: one host, every spelling (open mode)', () => {
  const shortenAt = async (options: AppOptions, host: string, url: string) => {
    const app = await TestApp.init('open', options);
    const reply = await app.anonymous().shorten({ url }, { host });
    return { reply, links: (await app.anonymous().links()).json };
  };

  test('with an IP base URL, its IPv4-mapped IPv6 spelling is kurz itself', async () => {
    const options = { baseUrl: 'http://127.0.0.1:3000' };
    for (const url of ['http://[::ffff:127.0.0.1]:3000/x', 'http://[::ffff:7f00:1]:3000/x']) {
      const { reply, links } = await shortenAt(options, '127.0.0.1:3000', url);
      expect([url, reply.status, reply.json]).toEqual([url, 400, SELF]);
      expect(links).toEqual([]);
    }
  });

  test('with the default base URL, 127.0.0.1 on its port is kurz when the request came as localhost', async () => {
    const options = { baseUrl: 'http://localhost:3000' };
    for (const url of ['http://127.0.0.1:3000/x', 'http://[::1]:3000/x', 'http://0.0.0.0:3000/x']) {
      const { reply, links } = await shortenAt(options, 'localhost:3000', url);
      expect([url, reply.status, reply.json]).toEqual([url, 400, SELF]);
      expect(links).toEqual([]);
    }
    // The machine's other ports are other services.
    const other = await shortenAt(options, 'localhost:3000', 'http://127.0.0.1:8080/x');
    expect(other.reply.status).toBe(201);
  });

  test('a blocked address is blocked in its IPv4-mapped IPv6 spelling', async () => {
    const blocklist = parseBlocklist('203.0.113.7\n');
    const { reply, links } = await shortenAt(
      { blocklist: () => blocklist },
      'localhost',
      'https://[::ffff:203.0.113.7]/',
    );
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(BLOCKED);
    expect(links).toEqual([]);
  });

  test('every registered domain is kurz itself, and one registered later at once', async () => {
    let domains: ReadonlySet<string> = new Set(['go.example']);
    const app = await TestApp.init('open', { registeredHosts: () => domains });
    const client = app.anonymous();
    for (const url of ['https://go.example/abc', 'http://GO.example./abc']) {
      expect((await client.shorten({ url })).json).toEqual(SELF);
    }
    expect((await client.shorten({ url: 'https://to.example/abc' })).status).toBe(201);
    domains = new Set(['go.example', 'to.example']);
    expect((await client.shorten({ url: 'https://to.example/def' })).json).toEqual(SELF);
    expect((await client.links()).json).toHaveLength(1);
  });
});
