// The web UI's shell and assets, and the QR codes of links, in-process.

import { describe, expect, test } from 'bun:test';
import { DomainRegistry } from '../../src/domains/registry.ts';
import { BASE_URL, TestApp } from '../support/test-app.ts';

describe.each(['accounts', 'open'] as const)('web UI (%s mode)', (mode) => {
  test('GET / serves the page with the mode and base URL, under a strict CSP', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(reply.text).toContain(`<meta name="kurz-mode" content="${mode}">`);
    expect(reply.text).toContain(`<meta name="kurz-base-url" content="${BASE_URL}">`);
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('cache-control')).toBe('no-cache');
  });

  test('assets are served with their type and an ETag; a matching If-None-Match is 304', async () => {
    const app = await TestApp.init(mode);
    const js = await app.get('/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const css = await app.get('/assets/app.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = js.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    const again = await app.get('/assets/app.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  test('the page links only its own assets (nothing from other hosts)', async () => {
    const app = await TestApp.init(mode);
    const page = (await app.get('/')).text;
    const urls = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(urls.some((url) => url.startsWith('/assets/'))).toBe(true);
    for (const url of urls) {
      // Same origin only: a path, never a scheme or a protocol-relative //host.
      expect(url).toMatch(/^\/(?!\/)|^#/);
      if (url.startsWith('/assets/')) expect((await app.get(url)).status).toBe(200);
    }
  });

  test('assets and the page are sent gzipped to clients that accept it', async () => {
    const app = await TestApp.init(mode);
    for (const path of ['/', '/assets/app.js', '/assets/app.css']) {
      const plain = await app.app.handle(new Request(`http://localhost${path}`));
      const zipped = await app.app.handle(
        new Request(`http://localhost${path}`, { headers: { 'accept-encoding': 'gzip, br' } }),
      );
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      // The page is in the person's language too (the chooser's cookie, or Accept-Language).
      expect(zipped.headers.get('vary')).toBe(
        path === '/' ? 'cookie, accept-language, accept-encoding' : 'accept-encoding',
      );
      const bytes = new Uint8Array(await zipped.arrayBuffer());
      expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(await plain.text());
    }
  });

  test('the page carries its parts (the API keys and admin dialogs, the admin section), which are not assets themselves', async () => {
    const app = await TestApp.init(mode);
    const page = (await app.get('/')).text;
    expect(page).not.toContain('<!-- part:');
    for (const id of ['keys-dialog', 'admin-view', 'admin-dialog', 'admin-token-dialog']) {
      expect(page).toContain(`id="${id}"`);
    }
    for (const part of ['index.html', 'keys.html', 'admin.html', 'admin-dialogs.html']) {
      expect((await app.get(`/assets/${part}`)).status).toBe(404);
    }
  });

  test('an unknown asset is 404 "Not found"', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/assets/nope.js');
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });
});

describe('the base URL is escaped into the page', () => {
  test('quotes and angle brackets cannot break out of the attribute', async () => {
    const { createApp } = await import('../../src/app.ts');
    const { openSqlite } = await import('../../src/store/sqlite/sqlite-store.ts');
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    const baseUrl = () => 'https://x.test/"><script>alert(1)</script>';
    const app = createApp({
      mode: 'open',
      store,
      jwtSecret: 'x'.repeat(40),
      tokenTtlSeconds: 60,
      baseUrl,
      domains: await DomainRegistry.open(store, baseUrl),
    });
    const page = await (await app.handle(new Request('http://localhost/'))).text();
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain(
      'content="https://x.test/&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"',
    );
  });
});

describe.each(['accounts', 'open'] as const)('QR codes (%s mode)', (mode) => {
  async function setup() {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    await client.link('https://example.com/qr', { custom_code: 'qr1' });
    return { app, client };
  }

  test('qr.svg is an SVG image of the short URL', async () => {
    const { app, client } = await setup();
    const reply = await app.get('/api/links/qr1/qr.svg', { token: client.token });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('image/svg+xml');
    expect(reply.text).toStartWith('<svg');
    expect(reply.text).toContain('<path');
  });

  test('qr.png is a PNG image', async () => {
    const { app, client } = await setup();
    const response = await app.app.handle(
      new Request('http://localhost/api/links/qr1/qr.png', {
        headers: client.token ? { authorization: `Bearer ${client.token}` } : {},
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(bytes.length).toBeGreaterThan(200);
  });

  test('different short URLs give different codes', async () => {
    const { app, client } = await setup();
    await client.link('https://example.com/qr', { custom_code: 'qr2' });
    const one = (await app.get('/api/links/qr1/qr.svg', { token: client.token })).text;
    const two = (await app.get('/api/links/qr2/qr.svg', { token: client.token })).text;
    expect(one).not.toBe(two);
  });

  test('an unknown or malformed code is 404', async () => {
    const { app, client } = await setup();
    for (const path of ['/api/links/nope/qr.svg', '/api/links/bad.code/qr.png']) {
      const reply = await app.get(path, { token: client.token });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ error: 'Not found' });
    }
  });
});

describe('QR codes in accounts mode', () => {
  test("need a token, and only the owner's links are found", async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const bob = await app.user();
    await ann.link('https://example.com/mine', { custom_code: 'anns' });
    expect((await app.get('/api/links/anns/qr.svg')).status).toBe(401);
    const other = await app.get('/api/links/anns/qr.svg', { token: bob.token });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ error: 'Not found' });
    expect((await app.get('/api/links/anns/qr.svg', { token: ann.token })).status).toBe(200);
  });
});
