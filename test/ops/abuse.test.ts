// Abuse limits, trusted proxies, the blocklist and kurz's own host, on the compiled
// binary over real sockets, as an operator would run it.

import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BINARY, call, eventually, startKurz, tempDir } from '../support/binary.ts';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(base + path, { headers, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('rate limits on the binary', () => {
  test('unknown codes from one address: 404s, then 429 with Retry-After; known codes still redirect', async () => {
    const kurz = await startKurz(['--mode', 'open', '--rate-unknown-code', '5/min']);
    try {
      const link = await call(kurz.url, 'POST', '/api/shorten', {
        json: { url: 'https://example.com/' },
      });
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await get(kurz.url, `/missing${i}`)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429]);
      const refused = await get(kurz.url, '/missing-again');
      expect(JSON.parse(refused.text)).toEqual({ error: 'Too many requests' });
      expect(Number(refused.headers.get('retry-after'))).toBe(12);
      expect((await get(kurz.url, `/${link.json.short_code}`)).status).toBe(307);
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  });

  test('forwarding headers are ignored unless the peer is a trusted proxy', async () => {
    const plain = await startKurz(['--mode', 'open', '--rate-unknown-code', '2/min']);
    try {
      for (let i = 0; i < 2; i++) {
        const forged = { 'x-forwarded-for': `198.51.100.${i}` };
        expect((await get(plain.url, `/m${i}`, forged)).status).toBe(404);
      }
      // A fresh forged address does not buy a fresh allowance.
      expect((await get(plain.url, '/m9', { 'x-forwarded-for': '198.51.100.99' })).status).toBe(
        429,
      );
    } finally {
      await plain.stop();
    }

    const proxied = await startKurz([
      '--mode',
      'open',
      '--rate-unknown-code',
      '2/min',
      '--trusted-proxies',
      '127.0.0.1, ::1',
    ]);
    try {
      const as = (client: string) => ({ 'x-forwarded-for': `6.6.6.6, ${client}` });
      expect((await get(proxied.url, '/a1', as('198.51.100.1'))).status).toBe(404);
      expect((await get(proxied.url, '/a2', as('198.51.100.1'))).status).toBe(404);
      expect((await get(proxied.url, '/a3', as('198.51.100.1'))).status).toBe(429);
      // Another client behind the same proxy has its own allowance.
      expect((await get(proxied.url, '/b1', as('198.51.100.2'))).status).toBe(404);
      expect(
        (await get(proxied.url, '/b2', { forwarded: 'for="[2001:db8::5]:1234"' })).status,
      ).toBe(404);
    } finally {
      await proxied.stop();
    }
  });

  test('--rate-limits off: a login flood and a code scan are all answered', async () => {
    const kurz = await startKurz(['--rate-limits', 'off', '--rate-unknown-code', '1/min']);
    try {
      // More failed logins than the default allows (30), each paying its argon2 work.
      for (let i = 0; i < 40; i++) {
        const reply = await call(kurz.url, 'POST', '/api/auth/login', {
          json: { email: 'nobody@example.com', password: 'wrong password' },
        });
        expect(reply.status).toBe(401);
      }
      for (let i = 0; i < 50; i++) expect((await get(kurz.url, `/scan${i}`)).status).toBe(404);
    } finally {
      await kurz.stop();
    }
  }, 60_000);

  test('default limits: failed logins from one address are refused after 30', async () => {
    const kurz = await startKurz([]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const reply = await call(kurz.url, 'POST', '/api/auth/login', {
          json: { email: `guess${i}@example.com`, password: 'wrong password' },
        });
        statuses.push(reply.status);
      }
      expect(statuses.filter((s) => s === 401).length).toBe(30);
      expect(statuses.slice(30)).toEqual(Array(10).fill(429));
    } finally {
      await kurz.stop();
    }
  });
});

describe('targets on the binary', () => {
  test('a malformed blocklist line stops the start, naming the file and the line', async () => {
    const dir = tempDir();
    const list = join(dir, 'blocklist');
    writeFileSync(list, '# spam\nspam.example\nhttps://phish.example/\n');
    const proc = Bun.spawn(
      [BINARY, '--port', '0', '--blocklist', list, '--db', join(dir, 'k.db')],
      {
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `kurz: --blocklist ${list} line 3: "https://phish.example/" is not a domain`,
    );
  });

  test('a missing blocklist file stops the start', async () => {
    const dir = tempDir();
    const proc = Bun.spawn(
      [BINARY, '--port', '0', '--blocklist', join(dir, 'none'), '--db', join(dir, 'k.db')],
      {
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(2);
    expect(stderr).toContain('--blocklist cannot be read (ENOENT');
  });

  test('blocked domains are refused; SIGHUP reloads the file; a bad reload keeps the list', async () => {
    const dir = tempDir();
    const list = join(dir, 'blocklist');
    writeFileSync(list, 'spam.example\n');
    const kurz = await startKurz(['--mode', 'open', '--blocklist', list], { cwd: dir });
    const shorten = (url: string) => call(kurz.url, 'POST', '/api/shorten', { json: { url } });
    try {
      expect(kurz.output()).toContain(`kurz: blocklist ${list} has 1 domains`);
      expect((await shorten('https://www.spam.example/')).json).toEqual({
        error: 'URL is blocked',
      });
      expect((await shorten('https://later.example/')).status).toBe(201);

      writeFileSync(list, 'spam.example\nlater.example\n');
      kurz.proc.kill('SIGHUP');
      await eventually(() => kurz.output().includes('blocklist reloaded, 2 domains'), 'reload');
      expect((await shorten('https://later.example/2')).json).toEqual({ error: 'URL is blocked' });

      writeFileSync(list, 'not a domain\n');
      kurz.proc.kill('SIGHUP');
      await eventually(() => kurz.output().includes('blocklist not reloaded'), 'failed reload');
      expect(kurz.output()).toContain('line 1: "not a domain" is not a domain');
      expect((await shorten('https://later.example/3')).json).toEqual({ error: 'URL is blocked' });
      expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  });

  test('links to kurz itself are refused, by its base URL and by the address it was reached at', async () => {
    const kurz = await startKurz(['--mode', 'open', '--base-url', 'https://s.example']);
    const shorten = (url: string) => call(kurz.url, 'POST', '/api/shorten', { json: { url } });
    const self = { error: 'URL must not point to this service' };
    try {
      expect((await shorten('https://s.example/abc')).json).toEqual(self);
      expect((await shorten('http://S.example/abc')).json).toEqual(self);
      expect((await shorten(`${kurz.url}/abc`)).json).toEqual(self);
      expect((await shorten('https://s.example.org/abc')).status).toBe(201);
    } finally {
      await kurz.stop();
    }
  });
});
