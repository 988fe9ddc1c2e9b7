// Shortening from anywhere, in Chromium against dist/kurz (run `bun run build` first;
// scripts/ensure-chromium.sh installs the browser), in both modes: the web app's manifest
// and its service worker (which keeps the shell and nothing else), the share target as
// Android's Share uses it (GET / with title, text and url), the bookmarklet, and the
// ShareX profile downloaded from the page.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { call, eventually, type Running } from '../support/binary.ts';
import { createLinks, launchBrowser, registerUser, serveOtherOrigin } from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  arriveLoggedIn,
  fitsWidth,
  MODES,
  type Mode,
  modeArgs,
  register,
  withKurz,
} from '../support/web-page.ts';

// Page globals of the functions given to evaluate() (no DOM library in the tsconfig).
declare const document: {
  querySelector(selector: string): { href: string } | null;
  activeElement: { id: string } | null;
};
declare const navigator: {
  serviceWorker: {
    ready: Promise<unknown>;
    controller: unknown;
  };
  clipboard: { readText(): Promise<string> };
};
declare const caches: {
  keys(): Promise<string[]>;
  open(name: string): Promise<{ keys(): Promise<{ url: string }[]> }>;
};
declare const location: { search: string; href: string };
declare const window: {
  open: (...args: unknown[]) => unknown;
  matchMedia: (query: string) => { matches: boolean };
};

const TIMEOUT = 60_000;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** Logged in (accounts mode, an account made through the API) before the page loads; its token. */
async function signIn(page: Page, kurz: Running, mode: Mode, email: string) {
  if (mode === 'open') return undefined;
  const token = await registerUser(kurz.url, email);
  await arriveLoggedIn(page, token, email);
  return token;
}

/** The base URL kurz put in its page (localhost, where kurz.url says 127.0.0.1). */
async function baseUrlOf(kurz: Running) {
  const page = await (await fetch(kurz.url)).text();
  return page.match(/<meta name="kurz-base-url" content="([^"]+)">/)?.[1] ?? kurz.url;
}

/** Every URL in every cache of the page's origin, by cache name. */
const cached = (page: Page) =>
  page.evaluate(async () => {
    const all: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      all[name] = (await cache.keys()).map((request) => new URL(request.url).pathname);
    }
    return all;
  });

/**
 * Makes the page believe it runs as the installed app (`display-mode: standalone`), as
 * Android's Share opens it: Chromium cannot emulate that media feature, so matchMedia
 * answers it before the page's own scripts run.
 */
async function asInstalledApp(page: Page) {
  await page.addInitScript(() => {
    const own = window.matchMedia.bind(window);
    window.matchMedia = (query: string) =>
      query === '(display-mode: standalone)'
        ? ({ matches: true, media: query } as unknown as ReturnType<typeof own>)
        : own(query);
  });
}

/** A link shared from a page or a bookmark waits in the form until the person presses Shorten. */
async function pressShortenFor(page: Page, target: string) {
  await page
    .getByText(`A link was shared with kurz: press Shorten to make it. ${target}`)
    .waitFor();
  expect(await page.locator('#url').inputValue()).toBe(target);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('shorten-submit');
  expect(await page.locator('#result').isHidden()).toBe(true);
  await page.keyboard.press('Enter');
}

/** Waits for the result panel to show a link to `target`; its short URL. */
async function madeLinkTo(page: Page, target: string) {
  await page
    .locator('#result-target')
    .filter({ hasText: new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) })
    .waitFor();
  return (await page.locator('#result-link').getAttribute('href')) ?? '';
}

describe.each(MODES)('shortening from anywhere (%s mode)', (mode) => {
  test(
    'the manifest is linked and served; the service worker caches only the shell, from which the page starts offline',
    async () => {
      await withKurz(browser, modeArgs(mode), async (kurz, page) => {
        const token = await signIn(page, kurz, mode, 'sw@example.com');
        await page.goto(kurz.url);
        const manifestUrl = await page.evaluate(
          () => document.querySelector('link[rel="manifest"]')?.href ?? '',
        );
        expect(manifestUrl).toBe(`${kurz.url}/assets/manifest.webmanifest`);
        const manifest = await page.request.get(manifestUrl);
        expect(manifest.headers()['content-type']).toStartWith('application/manifest+json');
        expect((await manifest.json()).share_target.action).toBe('/');

        // The worker takes the page once it is ready; its cache has the shell, filled at install.
        await page.evaluate(() => navigator.serviceWorker.ready);
        await page.reload();
        await eventually(
          () => page.evaluate(() => navigator.serviceWorker.controller !== null),
          'the service worker controls the page',
        );
        const shell = (await (await page.request.get(`${kurz.url}/sw.js`)).text()).match(
          /const SHELL = (\[[^\]]*\]);/,
        )?.[1];
        const files: string[] = JSON.parse(shell ?? '[]');
        let seen: Record<string, string[]> = {};
        await eventually(
          async () => {
            seen = await cached(page);
            return Object.values(seen)[0]?.length === files.length;
          },
          () => `the shell cached, seen ${JSON.stringify(seen)}`,
        );
        expect(Object.keys(seen)).toHaveLength(1);
        expect(Object.keys(seen)[0]).toStartWith('kurz-shell-');

        // An API call and a redirect through the controlled page leave the caches as they were.
        const [link] = await createLinks(kurz.url, [{ url: 'https://example.com/cached' }], token);
        const code = link?.short_code ?? '';
        const answers = await page.evaluate(
          async ([path, bearer]) => {
            const headers: Record<string, string> = bearer
              ? { authorization: `Bearer ${bearer}` }
              : {};
            const api = await fetch('/api/links', { headers });
            const redirect = await fetch(path ?? '', { redirect: 'manual' });
            return [api.status, redirect.type];
          },
          [`/${code}`, token ?? ''],
        );
        expect(answers).toEqual([200, 'opaqueredirect']);
        const after = await cached(page);
        expect(after).toEqual(seen);
        for (const path of Object.values(after).flat()) {
          expect(path === '/' || path.startsWith('/assets/')).toBe(true);
        }

        // Without a network the page still starts, from the kept shell, and says what is wrong.
        await page.context().setOffline(true);
        await page.goto(`${kurz.url}/?from=offline`);
        await page.locator('#shorten-form').waitFor();
        await page.getByText('Could not reach kurz').first().waitFor();
        await page.context().setOffline(false);
      });
    },
    TIMEOUT,
  );

  test(
    'Share → kurz (GET / with title, text and url, as Android sends it) makes the link in the installed app and cleans the address',
    async () => {
      await withKurz(
        browser,
        modeArgs(mode),
        async (kurz, page) => {
          await asInstalledApp(page);
          await signIn(page, kurz, mode, 'share@example.com');
          const base = await baseUrlOf(kurz);
          await page.goto(`${base}/?title=A+page&text=Look+https://example.com/x&url=`);
          const shortUrl = await madeLinkTo(page, 'https://example.com/x');
          expect(shortUrl).toStartWith(`${base}/`);
          expect(await page.evaluate(() => location.search)).toBe('');
          await eventually(
            async () =>
              (await page.locator('#result-status').textContent()) === `Copied ${shortUrl}`,
            'the short link copied',
          );
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shortUrl);
          await expect(
            page.getByRole('button', { name: 'Copy', exact: true }).isVisible(),
          ).resolves.toBe(true);
          // A reload does not make it again: the shared link was used once.
          await page.reload();
          await page.locator('#links').waitFor();
          expect(await page.locator('#link-rows tr').count()).toBe(1);
          expect(await page.locator('#result').isHidden()).toBe(true);
        },
        { permissions: ['clipboard-read', 'clipboard-write'] },
      );
    },
    TIMEOUT,
  );

  test(
    'the bookmarklet opens kurz at /?url=, which shortens the page it was used on',
    async () => {
      const other = serveOtherOrigin('<!doctype html><title>Elsewhere</title><p>Some page</p>');
      try {
        await withKurz(browser, modeArgs(mode), async (kurz, page) => {
          await signIn(page, kurz, mode, 'bookmarklet@example.com');
          const base = await baseUrlOf(kurz);
          await page.goto(base);
          await page.getByText('Shorten from any page').click();
          const bookmarklet = page.getByRole('link', { name: 'Shorten with kurz' });
          const href = (await bookmarklet.getAttribute('href')) ?? '';
          expect(href).toStartWith('javascript:');
          const code = decodeURIComponent(href.slice('javascript:'.length));
          expect(code).toContain(`${base}/?url=`);
          // Clicked on kurz's own page, it only says where it belongs.
          await bookmarklet.click();
          await page.getByText('Drag this button to your bookmarks bar').waitFor();
          // The section fits a phone's width.
          await page.setViewportSize({ width: 375, height: 800 });
          expect(await fitsWidth(page)).toBe(true);

          // Run on another site's page (window.open recorded), it names kurz with that page.
          const visited = `${other.url}/article?id=7&lang=en`;
          await page.goto(visited);
          const opened = await page.evaluate((source) => {
            const calls: unknown[][] = [];
            window.open = (...args: unknown[]) => calls.push(args);
            // biome-ignore lint/security/noGlobalEval: the bookmarklet's code, as a browser runs it
            eval(source);
            return calls;
          }, code);
          const [url, , features] = (opened?.[0] ?? []) as string[];
          expect(url).toBe(`${base}/?url=${encodeURIComponent(visited)}`);
          expect(features).toContain('noopener');

          await page.goto(url ?? '');
          await pressShortenFor(page, visited);
          await madeLinkTo(page, visited);
          expect(await page.evaluate(() => location.search)).toBe('');
        });
      } finally {
        await other.stop();
      }
    },
    TIMEOUT,
  );

  test(
    'the ShareX profile (.sxcu) downloads as JSON that shortens with this kurz',
    async () => {
      await withKurz(
        browser,
        modeArgs(mode),
        async (kurz, page) => {
          await signIn(page, kurz, mode, 'sharex@example.com');
          const base = await baseUrlOf(kurz);
          await page.goto(base);
          await page.locator('#list-empty, #links').first().waitFor();
          let key: string | undefined;
          let button = page.getByRole('button', { name: 'Download ShareX profile (.sxcu)' });
          if (mode === 'accounts') {
            const dialog = page.getByRole('dialog', { name: 'API keys' });
            await page.getByRole('button', { name: 'API keys' }).click();
            // A read key cannot shorten: no profile for it.
            await dialog.getByLabel('Name').fill('reader');
            await dialog.getByRole('button', { name: 'Create key' }).click();
            await dialog.locator('#new-key').waitFor();
            expect(await dialog.locator('#new-key-sharex').isHidden()).toBe(true);
            await dialog.getByLabel('Name').fill('ShareX');
            await dialog.getByLabel('Write').check();
            await dialog.getByRole('button', { name: 'Create key' }).click();
            await dialog.locator('#new-key-sharex').waitFor();
            key = (await dialog.locator('#new-key-value').textContent()) ?? '';
            button = dialog.getByRole('button', { name: 'Download ShareX profile (.sxcu)' });
          } else {
            await page.getByText('Shorten from any page').click();
          }
          const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
          const host = new URL(base).host;
          expect(download.suggestedFilename()).toBe(`kurz-${host.replace(':', '_')}.sxcu`);
          const profile = JSON.parse(await readFile((await download.path()) ?? '', 'utf8'));
          const expected: Record<string, unknown> = {
            Version: '15.0.0',
            Name: `kurz (${host})`,
            DestinationType: 'URLShortener',
            RequestMethod: 'POST',
            RequestURL: `${base}/api/shorten`,
            Body: 'JSON',
            Data: '{"url":"{input}"}',
            URL: `${base}/{json:short_code}`,
            ErrorMessage: '{json:error}',
          };
          if (key !== undefined) expected.Headers = { Authorization: `Bearer ${key}` };
          expect(profile).toEqual(expected);

          // What ShareX would send, and the short URL it would read from the answer.
          const reply = await call(kurz.url, 'POST', '/api/shorten', {
            json: JSON.parse(profile.Data.replace('{input}', 'https://example.com/sharex')),
            token: key,
          });
          expect(reply.status).toBe(201);
          const shortUrl = profile.URL.replace('{json:short_code}', reply.json.short_code);
          const redirect = await fetch(shortUrl, { redirect: 'manual' });
          expect(redirect.headers.get('location')).toBe('https://example.com/sharex');
        },
        { acceptDownloads: true },
      );
    },
    TIMEOUT,
  );
});

describe('the installed app in the chosen language', () => {
  test(
    "Chromium reads the manifest with the chooser's cookie: its description in that language",
    async () => {
      await withKurz(browser, modeArgs('open'), async (kurz, page) => {
        // The browser asks for English; the person chose German on kurz's page.
        await page.context().addCookies([{ name: 'kurz-lang', value: 'de', url: kurz.url }]);
        await page.goto(kurz.url);
        const cdp = await page.context().newCDPSession(page);
        let manifest: { lang?: string; description?: string } = {};
        await eventually(async () => {
          const read = (await cdp.send('Page.getAppManifest', {})) as { data?: string };
          manifest = JSON.parse(read.data || '{}');
          return manifest.lang !== undefined;
        }, 'Chromium has read the manifest');
        expect(manifest).toMatchObject({ lang: 'de', description: 'Links kürzen, aus jeder App.' });
      });
    },
    TIMEOUT,
  );
});

describe('a link shared while logged out (accounts mode)', () => {
  test(
    'is kept through the sign-in and shortened after it',
    async () => {
      await withKurz(browser, modeArgs('accounts'), async (kurz, page) => {
        await page.goto(`${kurz.url}/?url=${encodeURIComponent('https://example.com/later')}`);
        await page
          .getByText('Log in to shorten the link you shared: https://example.com/later')
          .waitFor();
        expect(await page.evaluate(() => location.search)).toBe('');
        await register(page, 'later@example.com');
        await pressShortenFor(page, 'https://example.com/later');
        await madeLinkTo(page, 'https://example.com/later');
      });
    },
    TIMEOUT,
  );
});

describe.each(MODES)('a link sent to /?url= from another page (%s mode)', (mode) => {
  test(
    'is not made until the person presses Shorten: any site can send a browser there',
    async () => {
      const target = 'https://example.com/pushed';
      const other = serveOtherOrigin('<!doctype html><title>Elsewhere</title><p>A page</p>');
      try {
        await withKurz(browser, modeArgs(mode), async (kurz, page) => {
          const token = await signIn(page, kurz, mode, 'pushed@example.com');
          const base = await baseUrlOf(kurz);
          await page.goto(`${other.url}/`);
          await page.goto(`${base}/?url=${encodeURIComponent(target)}`, {
            referer: `${other.url}/`,
          });
          await page.getByText(`press Shorten to make it. ${target}`).waitFor();
          expect(await page.evaluate(() => location.search)).toBe('');
          const listed = await call(kurz.url, 'GET', '/api/links', {
            token: mode === 'accounts' ? token : ADMIN_TOKEN,
          });
          expect(listed.json).toEqual([]);
          await page.keyboard.press('Enter');
          await madeLinkTo(page, target);
        });
      } finally {
        await other.stop();
      }
    },
    TIMEOUT,
  );
});
