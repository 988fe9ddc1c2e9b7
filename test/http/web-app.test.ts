// The installable web app's files, in-process: the manifest (with its share target) and
// the service worker at /sw.js, their types and headers, and the CSP that lets the page
// use both and nothing else. Chromium's side is test/browser/share.test.ts.

import { describe, expect, test } from 'bun:test';
import { TestApp } from '../support/test-app.ts';

describe.each(['accounts', 'open'] as const)('web app (%s mode)', (mode) => {
  test('the page links the manifest, which is JSON with the share target', async () => {
    const app = await TestApp.init(mode);
    const page = (await app.get('/')).text;
    // With credentials: the language chooser's cookie goes with the request.
    expect(page).toContain(
      '<link rel="manifest" href="/assets/manifest.webmanifest" crossorigin="use-credentials">',
    );
    const reply = await app.get('/assets/manifest.webmanifest');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    const manifest = JSON.parse(reply.text);
    expect(manifest).toMatchObject({
      name: 'kurz',
      short_name: 'kurz',
      start_url: '/',
      display: 'standalone',
      theme_color: '#1d4fd8',
      share_target: {
        action: '/',
        method: 'GET',
        params: { title: 'title', text: 'text', url: 'url' },
      },
    });
    expect(manifest.icons).toContainEqual(
      expect.objectContaining({ src: '/assets/favicon.svg', sizes: 'any' }),
    );
    for (const icon of manifest.icons) expect((await app.get(icon.src)).status).toBe(200);
    // The PNG icons are PNG files of the size the manifest names.
    for (const size of [192, 512]) {
      expect(manifest.icons).toContainEqual(
        expect.objectContaining({ src: `/assets/icon-${size}.png`, sizes: `${size}x${size}` }),
      );
      const reply = await app.app.handle(
        new Request(`http://localhost/assets/icon-${size}.png`, {
          headers: { 'accept-encoding': 'gzip' },
        }),
      );
      expect(reply.headers.get('content-type')).toBe('image/png');
      expect(reply.headers.get('content-encoding')).toBeNull(); // compressed already
      const png = new Uint8Array(await reply.arrayBuffer());
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const header = new DataView(png.buffer, 16, 8); // IHDR: width, height
      expect([header.getUint32(0), header.getUint32(4)]).toEqual([size, size]);
    }
  });

  test("the manifest is in the person's language: the chooser's cookie, else Accept-Language, else English", async () => {
    const app = await TestApp.init(mode);
    const manifestIn = async (headers: Record<string, string>) => {
      const reply = await app.get('/assets/manifest.webmanifest', { headers });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('vary')).toBe('cookie, accept-language, accept-encoding');
      return { json: JSON.parse(reply.text), etag: reply.headers.get('etag') };
    };
    const english = await manifestIn({});
    expect(english.json).toMatchObject({
      lang: 'en',
      dir: 'ltr',
      description: 'Shorten links, from any app.',
      share_target: { action: '/' },
    });
    const german = await manifestIn({ 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(german.json).toMatchObject({
      lang: 'de',
      dir: 'ltr',
      description: 'Links kürzen, aus jeder App.',
      name: 'kurz',
      share_target: { action: '/' },
    });
    expect(german.etag).not.toBe(english.etag);
    const chosen = await manifestIn({ 'accept-language': 'de', cookie: 'kurz-lang=es' });
    expect(chosen.json).toMatchObject({
      lang: 'es',
      description: 'Acorta enlaces, desde cualquier aplicación.',
    });
    // Apart from its words, every language's manifest is the same.
    const { lang, dir, description, ...rest } = german.json;
    const { lang: _l, dir: _d, description: _e, ...englishRest } = english.json;
    expect(rest).toEqual(englishRest);
    expect([lang, dir, typeof description]).toEqual(['de', 'ltr', 'string']);
    // A cached copy of the language asked for is revalidated with 304.
    const again = await app.get('/assets/manifest.webmanifest', {
      headers: { 'accept-language': 'de', 'if-none-match': german.etag as string },
    });
    expect(again.status).toBe(304);
  });

  test('the CSP lets the page use its own manifest and worker, and nothing more', async () => {
    const app = await TestApp.init(mode);
    const csp = (await app.get('/')).headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives['default-src']).toBe("'none'");
    expect(directives['manifest-src']).toBe("'self'");
    expect(directives['worker-src']).toBe("'self'");
    expect(directives['script-src']).toBe("'self'");
    expect(csp).not.toContain('unsafe');
  });

  test('/sw.js is the service worker: JavaScript, revalidated, caching the shell under this build', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/sw.js');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(reply.headers.get('cache-control')).toBe('no-cache');
    expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
    // Served at the root, its scope is / without a Service-Worker-Allowed header.
    expect(reply.headers.get('service-worker-allowed')).toBeNull();
    const cache = reply.text.match(/const CACHE = "([^"]+)";/)?.[1];
    expect(cache).toMatch(/^kurz-shell-\d+\.\d+\.\d+\S*-[0-9a-z-]+$/);
    const files: string[] = JSON.parse(reply.text.match(/const SHELL = (\[[^\]]*\]);/)?.[1] ?? '');
    expect(files).toContain('/');
    expect(files).toContain('/assets/app.js');
    expect(files).toContain('/assets/manifest.webmanifest');
    for (const file of files) {
      expect(file === '/' || file.startsWith('/assets/')).toBe(true);
      expect((await app.get(file)).status).toBe(200);
    }
    // The worker's source and the page's parts are no assets of their own.
    expect((await app.get('/assets/service-worker.js')).status).toBe(404);
    expect((await app.get('/assets/share.html')).status).toBe(404);
  });

  test('/sw.js takes no short code: a link cannot be named so, and the worker is not a redirect', async () => {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const refused = await client.shorten({ url: 'https://example.com/', custom_code: 'sw.js' });
    expect(refused.status).toBe(400);
    const reply = await app.get('/sw.js');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('location')).toBeNull();
  });
});
