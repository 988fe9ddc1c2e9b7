// The web UI, driven in Chromium against the compiled dist/kurz (run `bun run build`
// first; scripts/ensure-chromium.sh installs the browser). Each test gets its own
// server and database, and a fresh browser context (empty localStorage).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { call, type Running, startKurz } from './support/binary.ts';
import {
  createLinks,
  launchBrowser,
  PASSWORD,
  registerUser,
  serveOtherOrigin,
} from './support/browser.ts';

// Functions given to page.evaluate run in Chromium. The project's tsconfig has no DOM
// library (adding it breaks the server's Bun types), so this file declares the few page
// globals those functions use. These declarations are local to this module.
interface PageElement {
  id: string;
  tagName: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  matches(selector: string): boolean;
  closest(selector: string): PageElement | null;
}
interface PageImage extends PageElement {
  src: string;
  complete: boolean;
  naturalWidth: number;
  decode(): Promise<void>;
}
declare const document: {
  activeElement: PageElement | null;
  body: PageElement;
  documentElement: PageElement;
  getElementById(id: string): PageElement | null;
  querySelectorAll(selector: string): { length: number };
};
declare const window: { innerWidth: number; sameDocument?: boolean };
declare const localStorage: {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const Image: new () => PageImage;
declare function getComputedStyle(element: PageElement): {
  outlineStyle: string;
  outlineWidth: string;
};
declare class PerformanceObserver {
  constructor(callback: (list: { getEntries(): { value: number }[] }) => void);
  observe(options: { type: string; buffered: boolean }): void;
}

const TIMEOUT = 60_000;
/** Longer than one poll of the list (5 s), so a refresh must have happened. */
const POLL_WAIT = 15_000;

let browser: Browser;
/**
 * Where the test links point: a site of its own on this machine (kurz refuses links to
 * itself, and the machine reaches no other site).
 */
let site: ReturnType<typeof Bun.serve>;
let TARGET = '';
beforeAll(async () => {
  site = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => Response.json('Target reached'),
  });
  TARGET = `http://127.0.0.1:${site.port}`;
  browser = await launchBrowser();
}, 30_000); // a cold start of Chromium on a slow CI machine
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
}, 30_000);

/** Runs `body` with a fresh kurz and page, fails on any script error in the page. */
async function withKurz(
  args: string[],
  body: (kurz: Running, page: Page) => Promise<void>,
  options: BrowserContextOptions = {},
) {
  const kurz = await startKurz(args);
  try {
    const context = await browser.newContext(options);
    try {
      const errors: string[] = [];
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(error.message));
      await body(kurz, page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  } finally {
    await kurz.stop();
  }
}

const rows = (page: Page) => page.locator('#link-rows tr');
const rowOf = (page: Page, code: string) =>
  rows(page).filter({ has: page.locator(`a.short-link[href$="/${code}"]`) });
const shortCodes = (page: Page) =>
  page
    .locator('#link-rows a.short-link')
    .evaluateAll((links) => links.map((a) => a.getAttribute('href')?.split('/').pop()));

/** Waits until the locator's text is exactly `text` (polled by Playwright). */
async function waitForText(locator: Locator, text: string, timeout = 10_000) {
  await locator.filter({ hasText: new RegExp(`^${escapeRegExp(text)}$`) }).waitFor({ timeout });
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function register(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

async function shorten(page: Page, fields: { url: string; code?: string; source?: string }) {
  await page.getByLabel('URL').fill(fields.url);
  await page.getByLabel('Custom code').fill(fields.code ?? '');
  await page.getByLabel('Source').fill(fields.source ?? '');
  await page.getByRole('button', { name: 'Shorten' }).click();
}

/** Shortens through the form and returns the short URL the result panel shows. */
async function shortenOk(page: Page, fields: { url: string; code?: string; source?: string }) {
  const before = await page.locator('#result-link').textContent();
  await shorten(page, fields);
  await page.waitForFunction((old) => {
    const link = document.getElementById('result-link');
    return link?.closest('[hidden]') === null && link.textContent !== old;
  }, before);
  return (await page.locator('#result-link').textContent()) ?? '';
}

describe('web UI, accounts mode', () => {
  test(
    'register, shorten twice, see both, count a click live, refuse a taken code, log out and in',
    async () => {
      await withKurz(
        ['--mode', 'accounts'],
        async (kurz, page) => {
          const base = `http://localhost:${kurz.port}`; // the default --base-url
          await page.goto(kurz.url);
          await register(page, 'ann@example.com');
          expect(await page.locator('#session-email').textContent()).toBe('ann@example.com');
          const token = await page.evaluate(() => localStorage.getItem('kurz.token'));
          expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

          // An auto-generated code: the full short URL, its QR code and the PNG download.
          const target = `${TARGET}/landing`;
          const auto = await shortenOk(page, { url: target });
          expect(auto).toMatch(new RegExp(`^${escapeRegExp(base)}/[A-Za-z0-9]{7}$`));
          const autoCode = auto.split('/').pop() ?? '';
          const qr = page.locator('#qr[src^="blob:"]');
          await qr.waitFor();
          expect(await qr.getAttribute('alt')).toBe(`QR code for ${auto}`);
          await page.waitForFunction(() => {
            const img = document.getElementById('qr') as PageImage;
            return img.complete && img.naturalWidth > 0;
          });
          const download = page.getByRole('link', { name: 'Download PNG' });
          expect(await download.getAttribute('href')).toStartWith('blob:');
          expect(await download.getAttribute('download')).toBe(`kurz-${autoCode}.png`);
          // (The page's CSP keeps fetch() away from blob: URLs; an image may load one.)
          const pngWidth = await page.evaluate(
            async (href) => {
              const image = new Image();
              image.src = href;
              await image.decode();
              return image.naturalWidth;
            },
            (await download.getAttribute('href')) ?? '',
          );
          expect(pngWidth).toBe(512);

          // Copy puts the full short URL on the clipboard.
          await page.getByRole('button', { name: 'Copy' }).click();
          await waitForText(page.locator('#result-status'), `Copied ${auto}`);
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(auto);

          // A custom code (and a source).
          const custom = await shortenOk(page, {
            url: `${TARGET}/landing?from=launch`,
            code: 'launch',
            source: 'newsletter',
          });
          expect(custom).toBe(`${base}/launch`);
          expect(await page.getByLabel('URL').inputValue()).toBe(''); // the form is ready again

          // Both are listed, newest first, with target, local time and clicks.
          await page.waitForFunction(() => document.querySelectorAll('#link-rows tr').length === 2);
          expect(await shortCodes(page)).toEqual(['launch', autoCode]);
          const launchRow = rowOf(page, 'launch');
          expect(await launchRow.locator('a.short-link').textContent()).toBe(
            `localhost:${kurz.port}/launch`,
          );
          expect(await launchRow.locator('a.target').getAttribute('title')).toBe(
            `${TARGET}/landing?from=launch`,
          );
          const iso = (await launchRow.locator('time').getAttribute('datetime')) ?? '';
          expect(iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          const local = await page.evaluate(
            (value) =>
              new Intl.DateTimeFormat(undefined, {
                dateStyle: 'medium',
                timeStyle: 'short',
              }).format(new Date(value)),
            iso,
          );
          expect(await launchRow.locator('time').textContent()).toBe(local);
          expect(await launchRow.locator('.cell-clicks').textContent()).toBe('0');
          expect(await page.locator('#range').textContent()).toBe('1–2 of 2');

          // Someone follows the short link in another tab: it redirects to the target…
          await page.evaluate(() => {
            window.sameDocument = true;
          });
          const visitor = await page.context().newPage();
          const response = await visitor.goto(custom);
          expect(visitor.url()).toBe(`${TARGET}/landing?from=launch`);
          expect(await response?.json()).toBe('Target reached');
          await visitor.close();
          await page.bringToFront();

          // … and the list shows the click after a poll, without reloading the page.
          await waitForText(launchRow.locator('.cell-clicks'), '1', POLL_WAIT);
          expect(await rowOf(page, autoCode).locator('.cell-clicks').textContent()).toBe('0');
          expect(await page.evaluate(() => window.sameDocument)).toBe(true);

          // The same custom code again: the server's message, next to the form, as an alert.
          await shorten(page, { url: 'https://example.com/other', code: 'launch' });
          const alert = page.getByRole('alert').filter({ hasText: 'Custom code already taken' });
          await alert.waitFor();
          expect(await alert.getAttribute('id')).toBe('shorten-error');
          expect(await page.getByLabel('URL').inputValue()).toBe('https://example.com/other');

          // Log out: back to the login form, the token gone, nothing of Ann's left shown.
          await page.getByRole('button', { name: 'Log out' }).click();
          await page.getByLabel('Email').waitFor();
          expect(await page.evaluate(() => localStorage.getItem('kurz.token'))).toBeNull();
          expect(await page.locator('#app-view').isVisible()).toBe(false);
          expect(await rows(page).count()).toBe(0);
          expect(await page.locator('#auth-notice').textContent()).toBe('You have logged out.');

          // Log in again: the same two links.
          await page.getByLabel('Email').fill('ann@example.com');
          await page.getByLabel('Password').fill(PASSWORD);
          await page.getByRole('button', { name: 'Log in' }).click();
          await page.getByRole('button', { name: 'Log out' }).waitFor();
          await page.waitForFunction(() => document.querySelectorAll('#link-rows tr').length === 2);
          expect(await shortCodes(page)).toEqual(['launch', autoCode]);
          expect(await rowOf(page, 'launch').locator('.cell-clicks').textContent()).toBe('1');
        },
        { permissions: ['clipboard-read', 'clipboard-write'] },
      );
    },
    TIMEOUT,
  );

  test(
    'wrong credentials show the server message; a rejected token returns to the login form',
    async () => {
      await withKurz(['--mode', 'accounts'], async (kurz, page) => {
        await registerUser(kurz.url, 'bob@example.com');
        await page.goto(kurz.url);
        await page.getByLabel('Email').fill('bob@example.com');
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Log in' }).click();
        await waitForText(page.getByRole('alert'), 'Invalid credentials');

        // A token the server rejects (here: not a JWT at all) sends the person back.
        await page.evaluate(() => localStorage.setItem('kurz.token', 'not-a-token'));
        await page.reload();
        await waitForText(
          page.locator('#auth-notice'),
          'Your session has ended. Please log in again.',
        );
        expect(await page.getByLabel('Email').isVisible()).toBe(true);
        expect(await page.locator('#app-view').isVisible()).toBe(false);
        expect(await page.evaluate(() => localStorage.getItem('kurz.token'))).toBeNull();
      });
    },
    TIMEOUT,
  );

  test(
    'a token that expires while the page is open returns to the login form at the next poll',
    async () => {
      await withKurz(['--mode', 'accounts', '--token-ttl', '2'], async (kurz, page) => {
        await page.goto(kurz.url);
        await register(page, 'cy@example.com');
        await page.getByText('No links yet.', { exact: false }).waitFor();
        // No reload: the list's poll gets 401 once the token has expired.
        await waitForText(
          page.locator('#auth-notice'),
          'Your session has ended. Please log in again.',
          POLL_WAIT,
        );
        expect(await page.getByLabel('Email').isVisible()).toBe(true);
        expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(false);
      });
    },
    TIMEOUT,
  );
});

describe('web UI, open mode', () => {
  test(
    'shortens and lists without any login',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        await createLinks(kurz.url, [{ url: 'https://example.com/made-by-the-api' }]);
        await page.goto(kurz.url);
        await page.getByLabel('URL').waitFor();
        await rows(page).first().waitFor();
        // Nothing visible moved while the page loaded and filled in.
        const shift = await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              let sum = 0;
              new PerformanceObserver((entries) => {
                for (const entry of entries.getEntries()) sum += entry.value;
              }).observe({ type: 'layout-shift', buffered: true });
              setTimeout(() => resolve(sum), 250);
            }),
        );
        expect(shift).toBe(0);
        expect(await page.getByLabel('Email').isVisible()).toBe(false);
        expect(await page.getByLabel('Password').isVisible()).toBe(false);
        expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(false);
        expect(await page.getByRole('heading', { name: 'All links' }).isVisible()).toBe(true);

        const short = await shortenOk(page, { url: 'https://example.com/open', code: 'open-1' });
        expect(short).toBe(`http://localhost:${kurz.port}/open-1`);
        await page.waitForFunction(() => document.querySelectorAll('#link-rows tr').length === 2);
        expect(await rows(page).first().locator('a.target').textContent()).toBe(
          'https://example.com/open',
        );
        expect(await rows(page).nth(1).locator('a.target').textContent()).toBe(
          'https://example.com/made-by-the-api',
        );
      });
    },
    TIMEOUT,
  );

  test(
    'the shorten form works by keyboard alone, with a visible focus indicator',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        await page.goto(kurz.url);
        await page.getByText('No links yet.', { exact: false }).waitFor();
        expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);

        const focused = () =>
          page.evaluate(() => {
            const element = document.activeElement as PageElement;
            const style = getComputedStyle(element);
            return {
              id: element.id,
              text: element.tagName === 'BUTTON' ? element.textContent : null,
              visible: element.matches(':focus-visible'),
              outline: `${style.outlineStyle} ${style.outlineWidth}`,
            };
          });
        const ring = { visible: true, outline: 'solid 3px' };

        await page.keyboard.press('Tab');
        expect(await focused()).toEqual({ id: 'url', text: null, ...ring });
        await page.keyboard.type(`${TARGET}/landing`);
        await page.keyboard.press('Tab');
        expect(await focused()).toEqual({ id: 'custom-code', text: null, ...ring });
        await page.keyboard.type('by-keyboard');
        await page.keyboard.press('Tab');
        expect(await focused()).toEqual({ id: 'source', text: null, ...ring });
        await page.keyboard.type('keyboard');
        await page.keyboard.press('Tab');
        expect(await focused()).toEqual({ id: '', text: 'Shorten', ...ring });
        await page.keyboard.press('Enter');

        await waitForText(
          page.locator('#result-link'),
          `http://localhost:${kurz.port}/by-keyboard`,
        );
        await rowOf(page, 'by-keyboard').waitFor();

        // Space works on it too (an empty form now: the server's message appears).
        await page.keyboard.press('Space');
        await waitForText(page.getByRole('alert'), 'URL must start with http:// or https://');
        expect(await focused()).toEqual({ id: '', text: 'Shorten', ...ring });
      });
    },
    TIMEOUT,
  );

  test(
    'pages through the list 50 at a time',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        const made = await createLinks(
          kurz.url,
          Array.from({ length: 51 }, (_, i) => ({ url: `https://example.com/page/${i}` })),
        );
        await page.goto(kurz.url);
        await waitForText(page.locator('#range'), '1–50 of 51');
        expect(await rows(page).count()).toBe(50);
        expect(await rows(page).first().locator('a.target').textContent()).toBe(
          'https://example.com/page/50',
        );
        const previous = page.getByRole('button', { name: 'Previous' });
        const next = page.getByRole('button', { name: 'Next' });
        expect(await previous.getAttribute('aria-disabled')).toBe('true');
        expect(await next.getAttribute('aria-disabled')).toBe('false');

        await next.click();
        await waitForText(page.locator('#range'), '51–51 of 51');
        expect(await shortCodes(page)).toEqual([made[0]?.short_code]);
        expect(await next.getAttribute('aria-disabled')).toBe('true');

        await previous.click();
        await waitForText(page.locator('#range'), '1–50 of 51');
        expect(await rows(page).count()).toBe(50);
      });
    },
    TIMEOUT,
  );

  test(
    'the filter narrows the whole list, not just the page shown',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        // The oldest link is on page 2 of the unfiltered list.
        await createLinks(kurz.url, [
          { url: 'https://example.com/needle-in-a-haystack', custom_code: 'zebra' },
          ...Array.from({ length: 51 }, (_, i) => ({ url: `https://example.com/hay/${i}` })),
        ]);
        await page.goto(kurz.url);
        await waitForText(page.locator('#range'), '1–50 of 52');

        await page.getByLabel('Filter').fill('needle');
        await waitForText(page.locator('#range'), '1–1 of 1 matching');
        expect(await shortCodes(page)).toEqual(['zebra']);

        await page.getByLabel('Filter').fill('ZEBRA'); // by code, ignoring case
        await waitForText(page.locator('#range'), '1–1 of 1 matching');
        expect(await shortCodes(page)).toEqual(['zebra']);

        await page.getByLabel('Filter').fill('hay/1');
        await waitForText(page.locator('#range'), '1–11 of 11 matching'); // 1, 10…19
        expect(await rows(page).count()).toBe(11);

        await page.getByLabel('Filter').fill('nothing like this');
        await waitForText(page.locator('#list-empty'), 'No links match “nothing like this”.');
        expect(await page.locator('#links').isVisible()).toBe(false);
        expect(await page.locator('#range').isVisible()).toBe(false);

        await page.getByLabel('Filter').fill('');
        await waitForText(page.locator('#range'), '1–50 of 52');
        expect(await rows(page).count()).toBe(50);
      });
    },
    TIMEOUT,
  );
});

describe('web UI at 360 px wide', () => {
  test(
    'nothing overflows sideways, and a cut-off target shows in full on focus',
    async () => {
      await withKurz(
        ['--mode', 'accounts'],
        async (kurz, page) => {
          const overflow = () =>
            page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          await page.goto(kurz.url);
          await page.getByLabel('Email').waitFor();
          expect(await overflow()).toBeLessThanOrEqual(0);

          await register(page, 'a-rather-long-address.for-testing@subdomain.example.com');
          const long = `https://example.com/${'a-very-long-path-segment/'.repeat(8)}?q=${'x'.repeat(80)}`;
          await shortenOk(page, { url: long, code: 'a-custom-code-of-32-characters-x' });
          await page.locator('#qr[src^="blob:"]').waitFor();
          await rowOf(page, 'a-custom-code-of-32-characters-x').waitFor();
          await shorten(page, { url: 'not a url' });
          await page.getByRole('alert').filter({ hasText: 'URL must start with' }).waitFor();
          expect(
            await page.evaluate(() => document.documentElement.scrollWidth),
          ).toBeLessThanOrEqual(360);

          const target = rowOf(page, 'a-custom-code-of-32-characters-x').locator('a.target');
          const cut = () => target.evaluate((a) => a.scrollWidth > a.clientWidth);
          expect(await cut()).toBe(true);
          await target.focus();
          expect(await cut()).toBe(false);
          expect(await overflow()).toBeLessThanOrEqual(0);
        },
        { viewport: { width: 360, height: 740 } },
      );
    },
    TIMEOUT,
  );
});

/**
 * A page of another origin aiming at kurz's POST /api/shorten: a text/plain form whose
 * body is valid JSON (`name=value` with the `=` inside a string), an urlencoded form,
 * and a fetch that needs no preflight (text/plain, no-cors).
 */
function attackerPage(kurz: string) {
  const action = `${kurz}/api/shorten`;
  return `<!doctype html><title>elsewhere</title>
<form id="plain" method="post" enctype="text/plain" action="${action}">
<input type="hidden" name='{"url":"https://example.com/plain","x":"' value='"}'>
<button>plain</button></form>
<form id="urlencoded" method="post" action="${action}">
<input type="hidden" name="url" value="https://example.com/urlencoded">
<button>urlencoded</button></form>`;
}

describe('pages of other origins', () => {
  test(
    'cannot create links in open mode, by form or by fetch',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        const other = serveOtherOrigin(attackerPage(kurz.url));
        try {
          const shorten = `${kurz.url}/api/shorten`;
          for (const form of ['plain', 'urlencoded']) {
            await page.goto(other.url);
            const [answer] = await Promise.all([
              page.waitForResponse(shorten),
              page.locator(`#${form} button`).click(),
            ]);
            // The request reached kurz, from the other origin, and was refused.
            expect(answer.request().headers().origin).toBe(other.url);
            expect(answer.status()).toBe(403);
            expect(await answer.json()).toEqual({ error: 'Cross-origin request refused' });
          }
          await page.goto(other.url);
          const [answer] = await Promise.all([
            page.waitForResponse(shorten),
            page.evaluate(async (url) => {
              await fetch(url, {
                method: 'POST',
                mode: 'no-cors',
                headers: { 'content-type': 'text/plain' },
                body: JSON.stringify({ url: 'https://example.com/fetch' }),
              });
            }, shorten),
          ]);
          expect(answer.status()).toBe(403);
          // Not one link was made.
          const list = await call(kurz.url, 'GET', '/api/links');
          expect(list.json).toEqual([]);
        } finally {
          await other.stop();
        }
      });
    },
    TIMEOUT,
  );

  test(
    'allowed by --cors-origins, call the API with JSON and read its answers',
    async () => {
      const other = serveOtherOrigin('<!doctype html><title>app</title>');
      try {
        await withKurz(['--mode', 'open', '--cors-origins', other.url], async (kurz, page) => {
          await page.goto(other.url);
          const result = await page.evaluate(async (base) => {
            const created = await fetch(`${base}/api/shorten`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ url: 'https://example.com/cors', custom_code: 'cors' }),
            });
            const list = await fetch(`${base}/api/links`);
            return {
              status: created.status,
              link: await created.json(),
              total: list.headers.get('x-total-count'),
            };
          }, kurz.url);
          expect(result.status).toBe(201);
          expect(result.link).toMatchObject({
            short_code: 'cors',
            original_url: 'https://example.com/cors',
          });
          expect(result.total).toBe('1');
        });
      } finally {
        await other.stop();
      }
    },
    TIMEOUT,
  );
});
