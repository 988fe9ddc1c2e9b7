// Link previews through the API, in both modes: a card given by hand or read from the
// target page (`"auto"`, in the background, against a local server), shown to
// link-preview crawlers as a small page with every value escaped, never for a link with a
// password; everyone else is redirected as before, and both visits count.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eventually } from '../support/binary.ts';
import { ADMIN_TOKEN, TestApp } from '../support/test-app.ts';

const SLACK = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const TARGET = 'https://example.com/article';

// A target page for auto previews, and one whose address changes its card.
let page: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  page = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const path = new URL(request.url).pathname;
      const title = path === '/other' ? 'Another page' : 'Spring &amp; summer';
      return new Response(
        `<!doctype html><html><head><title>ignored</title>
         <meta property="og:title" content="${title}">
         <meta property="og:description" content="Everything 20% off">
         <meta property="og:image" content="https://cdn.example/card.png"></head><body></body></html>`,
        { headers: { 'content-type': 'text/html; charset=utf-8' } },
      );
    },
  });
});
afterAll(() => page?.stop(true));

async function setup(mode: 'accounts' | 'open', previewAllowPrivate = true) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, previewAllowPrivate });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const manage = mode === 'accounts' ? client.token : ADMIN_TOKEN;
  const visit = (code: string, agent: string) =>
    app.get(`/${code}`, { headers: { 'user-agent': agent } });
  const patch = (code: string, json: unknown) =>
    app.request('PATCH', `/api/links/${code}`, { json, token: manage });
  const detail = async (code: string) =>
    (await app.get(`/api/links/${code}`, { token: client.token })).json;
  /** Waits until the link's auto preview is no longer pending; its preview then. */
  const read = async (code: string) => {
    await eventually(
      async () => (await detail(code)).preview?.status !== 'pending',
      `${code}'s preview read`,
    );
    return (await detail(code)).preview;
  };
  return { app, client, visit, patch, detail, read };
}

for (const mode of ['accounts', 'open'] as const) {
  describe(`link previews (${mode} mode)`, () => {
    test('a card given by hand is shown to crawlers, in their language; people are redirected; both count', async () => {
      const { app, client, visit, detail } = await setup(mode);
      const preview = {
        title: 'Spring sale',
        description: 'Everything 20% off',
        image: 'https://cdn.example/sale.png',
      };
      await client.link(TARGET, { custom_code: 'sale', preview });
      expect((await detail('sale')).preview).toEqual({
        mode: 'manual',
        status: 'ready',
        ...preview,
        error: null,
      });
      const crawler = await visit('sale', SLACK);
      expect(crawler.status).toBe(200);
      expect(crawler.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(crawler.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(crawler.text).toContain('<meta property="og:title" content="Spring sale">');
      expect(crawler.text).toContain('content="https://cdn.example/sale.png"');
      expect(crawler.text).toContain(`url=${TARGET}`);
      expect(crawler.text).not.toContain('<script');
      expect(crawler.headers.get('content-language')).toBe('en');
      // A crawler that names a language gets the page's words in it.
      const german = await app.get('/sale', {
        headers: { 'user-agent': SLACK, 'accept-language': 'de-DE,de;q=0.9' },
      });
      expect(german.headers.get('content-language')).toBe('de');
      expect(german.text).toContain('<html lang="de" dir="ltr">');
      expect(german.text).toContain(`<a href="${TARGET}">Weiter zu ${new URL(TARGET).host}</a>`);
      const person = await visit('sale', BROWSER);
      expect([person.status, person.headers.get('location')]).toEqual([307, TARGET]);
      expect(await client.clicksOf('sale')).toBe(3);
      // The crawlers' visits are a bot's clicks; the person's a human's.
      const stats = await app.get('/api/links/sale/stats', { token: client.token });
      expect(stats.json.range).toEqual({ clicks: 3, humans: 1, bots: 2 });
    });

    test('hostile text never becomes markup', async () => {
      const { client, visit } = await setup(mode);
      const title = '"><script>alert(1)</script><meta x="';
      await client.link(TARGET, {
        custom_code: 'evil',
        preview: { title, description: "it's <b>bold</b> & 'quoted'" },
      });
      const crawler = await visit('evil', FACEBOOK);
      expect(crawler.text).not.toContain('<script');
      expect(crawler.text).not.toContain('<b>');
      expect(crawler.text).toContain(
        '<meta property="og:title" content="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;meta x=&#34;">',
      );
      expect(crawler.text).toContain(
        'content="it&#39;s &#60;b&#62;bold&#60;/b&#62; &#38; &#39;quoted&#39;"',
      );
    });

    test('a link with a password shows crawlers its form, not its card or target', async () => {
      const { client, visit } = await setup(mode);
      await client.link(TARGET, {
        custom_code: 'locked',
        password: 'open sesame',
        preview: { title: 'Secret' },
      });
      const crawler = await visit('locked', SLACK);
      expect(crawler.status).toBe(200);
      expect(crawler.text).not.toContain('Secret');
      expect(crawler.text).not.toContain(TARGET);
      expect(crawler.text).toContain('password');
    });

    test('a broken preview is refused with its place, and nothing changes', async () => {
      const { client, patch, detail } = await setup(mode);
      await client.link(TARGET, { custom_code: 'p', preview: { title: 'Kept' } });
      const cases: [unknown, string][] = [
        [
          { title: 'x'.repeat(201) },
          'preview.title: title must be a string of at most 200 characters',
        ],
        [
          { description: 'x'.repeat(501) },
          'preview.description: description must be a string of at most 500 characters',
        ],
        [
          { image: 'http://cdn.example/a.png' },
          'preview.image: image must be an https URL of at most 2048 characters',
        ],
        [{}, 'preview must be "auto", null, or an object with a title, a description or an image'],
        [
          'manual',
          'preview must be "auto", null, or an object with a title, a description or an image',
        ],
      ];
      for (const [preview, error] of cases) {
        const reply = await patch('p', { preview });
        expect({ status: reply.status, body: reply.json }).toEqual({
          status: 400,
          body: { error },
        });
      }
      expect((await detail('p')).preview.title).toBe('Kept');
      expect((await patch('p', { preview: null })).json.preview).toBeNull();
    });

    test('"auto" reads the target page once, in the background; a new target is read again', async () => {
      const { client, visit, patch, detail, read } = await setup(mode);
      const url = `http://127.0.0.1:${page.port}/article`;
      await client.link(url, { custom_code: 'auto', preview: 'auto' });
      expect(['pending', 'ready']).toContain((await detail('auto')).preview.status);
      expect(await read('auto')).toEqual({
        mode: 'auto',
        status: 'ready',
        title: 'Spring & summer',
        description: 'Everything 20% off',
        image: 'https://cdn.example/card.png',
        error: null,
      });
      expect((await visit('auto', SLACK)).text).toContain('content="Spring &#38; summer"');
      await patch('auto', { url: `http://127.0.0.1:${page.port}/other` });
      expect((await read('auto')).title).toBe('Another page');
      expect((await visit('auto', SLACK)).text).toContain('content="Another page"');
    });

    test('"auto" refuses a private address unless allowed, and says why in the details', async () => {
      const { client, visit, read } = await setup(mode, false);
      await client.link(`http://127.0.0.1:${page.port}/article`, {
        custom_code: 'lan',
        preview: 'auto',
      });
      const preview = await read('lan');
      expect(preview).toMatchObject({ mode: 'auto', status: 'failed', title: null });
      expect(preview.error).toContain('127.0.0.1');
      // Nothing to show: the crawler is redirected as anyone is.
      expect((await visit('lan', SLACK)).status).toBe(307);
    });
  });
}
