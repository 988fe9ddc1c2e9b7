// The web UI, driven in Chromium against the compiled dist/kurz (run `bun run build`
// first; scripts/ensure-chromium.sh installs the browser). Each test gets its own
// server and database, and a fresh browser context (empty localStorage).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { call, eventually, type Running, runKurz, tempDir } from '../support/binary.ts';
import {
  click,
  createLinks,
  HUMAN_AGENT,
  launchBrowser,
  PASSWORD,
  registerUser,
  serveOtherOrigin,
} from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  escapeRegExp,
  fitsWidth,
  modeArgs,
  register,
  rowOf,
  rows,
  shortCodes,
  waitForText,
  withKurz as withKurzIn,
} from '../support/web-page.ts';

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
  getAttribute(name: string): string | null;
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
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): { length: number };
};
declare const window: { innerWidth: number; sameDocument?: boolean };
declare const localStorage: {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
};
declare const sessionStorage: { getItem(key: string): string | null };
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare function getSelection(): { toString(): string } | null;
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
function withKurz(
  args: string[],
  body: (kurz: Running, page: Page) => Promise<void>,
  options: BrowserContextOptions = {},
) {
  return withKurzIn(browser, args, body, options);
}

async function shorten(page: Page, fields: { url: string; code?: string; source?: string }) {
  await page.getByLabel('URL', { exact: true }).fill(fields.url);
  await page.getByLabel('Custom code').fill(fields.code ?? '');
  await page.getByLabel('Source', { exact: true }).fill(fields.source ?? '');
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
          expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe(''); // the form is ready again

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
          expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe(
            'https://example.com/other',
          );

          // Log out: back to the login form, the token gone, nothing of Ann's left shown.
          await page.getByRole('button', { name: 'Log out' }).click();
          await page.getByLabel('Email').waitFor();
          expect(await page.evaluate(() => localStorage.getItem('kurz.token'))).toBeNull();
          expect(await page.locator('#app-view').isVisible()).toBe(false);
          expect(await rows(page).count()).toBe(0);
          expect(await page.locator('#auth-notice').textContent()).toBe('You have logged out.');

          // Log in again: the same two links.
          await page.getByLabel('Email').fill('ann@example.com');
          await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
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
        await page.getByLabel('Password', { exact: true }).fill('not the password');
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
        await page.getByLabel('URL', { exact: true }).waitFor();
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
        expect(await page.getByLabel('Password', { exact: true }).isVisible()).toBe(false);
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

        // First the mode (one link or many, arrow keys switch), then the form.
        // (The radio itself is hidden: its label shows the ring.)
        await page.keyboard.press('Tab');
        expect(
          await page.evaluate(() => {
            const radio = document.activeElement as PageElement;
            const style = getComputedStyle(radio.closest('label') as PageElement);
            return {
              name: radio.getAttribute('value'),
              visible: radio.matches(':focus-visible'),
              outline: `${style.outlineStyle} ${style.outlineWidth}`,
            };
          }),
        ).toEqual({ name: 'one', ...ring });
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
        expect(await focused()).toEqual({ id: 'tags', text: null, ...ring });
        await page.keyboard.press('Tab');
        expect(await focused()).toEqual({ id: 'shorten-submit', text: 'Shorten', ...ring });
        await page.keyboard.press('Enter');

        await waitForText(
          page.locator('#result-link'),
          `http://localhost:${kurz.port}/by-keyboard`,
        );
        await rowOf(page, 'by-keyboard').waitFor();

        // Space works on it too (an empty form now: the server's message appears).
        await page.keyboard.press('Space');
        await waitForText(page.getByRole('alert'), 'URL must start with http:// or https://');
        expect(await focused()).toEqual({ id: 'shorten-submit', text: 'Shorten', ...ring });
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

// ---- The actions of a listed link: Edit, Delete and Stats, in both modes, at a desktop
// and a phone width.

/** Open mode's admin token in these tests (kurz wants 32 characters at least). */
const ADMIN_TOKEN_REFUSED =
  'The admin token was not accepted (Unauthorized), so it has been forgotten. Enter the token kurz was started with.';
const CSV_HEADER =
  'time,source,query_source,referrer,referrer_host,browser,os,device,country,bot,route';
const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 375, height: 740 }],
] as const;

/** Each test of these: its viewport, a known time zone, and downloads allowed. */
const contextAt = (viewport: { width: number; height: number }): BrowserContextOptions => ({
  viewport,
  timezoneId: 'Europe/Berlin',
  acceptDownloads: true,
});

/** Opens the page on the list, with `codes` shown. */
async function openList(page: Page, url: string, codes: string[]) {
  await page.goto(url);
  for (const code of codes) await rowOf(page, code).waitFor();
}

async function openEdit(page: Page, code: string) {
  await page.getByRole('button', { name: `Edit ${code}`, exact: true }).click();
  const edit = page.getByRole('dialog', { name: `Edit ${code}` });
  await edit.waitFor();
  return edit;
}

/** Presses Save and returns the JSON of the PATCH it sent. */
async function save(page: Page, edit: Locator) {
  const [request] = await Promise.all([
    page.waitForRequest((request) => request.method() === 'PATCH'),
    edit.getByRole('button', { name: 'Save' }).click(),
  ]);
  return request.postDataJSON();
}

/** Saves and waits for the dialog to close; returns what was sent. */
async function saveOk(page: Page, edit: Locator) {
  const sent = await save(page, edit);
  await edit.waitFor({ state: 'hidden' });
  return sent;
}

const badgesOf = (page: Page, code: string) =>
  rowOf(page, code).locator('.badge').allTextContents();

async function waitForBadges(page: Page, code: string, expected: string[]) {
  let seen: string[] = [];
  await eventually(
    async () => {
      seen = await badgesOf(page, code);
      return JSON.stringify(seen) === JSON.stringify(expected);
    },
    () => `badges of ${code}: ${JSON.stringify(expected)}, seen ${JSON.stringify(seen)}`,
  );
}

/** The aria-label (or text) of the focused element. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element?.getAttribute('aria-label') ?? element?.textContent ?? null;
  });

/** Waits until the focused element is named `name` (a dialog gives focus back on its close event). */
async function waitForFocus(page: Page, name: string) {
  let seen: string | null = null;
  await eventually(
    async () => {
      seen = await focusedName(page);
      return seen === name;
    },
    () => `focus on ${name}, seen on ${seen}`,
  );
}

/** Where a short link sends a visitor now: status and Location. */
async function follow(base: string, code: string) {
  const reply = await call(base, 'GET', `/${code}`);
  return { status: reply.status, location: reply.headers.get('location') };
}

const utcDay = (offsetDays = 0) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

for (const [size, viewport] of VIEWPORTS) {
  describe(`link actions, accounts mode, ${size} (${viewport.width} px)`, () => {
    test(
      'Edit changes the target, expiry, click limit and password, sending only what changed',
      async () => {
        await withKurz(
          ['--mode', 'accounts'],
          async (kurz, page) => {
            await page.goto(kurz.url);
            await register(page, 'ed@example.com');
            const token = (await page.evaluate(() => localStorage.getItem('kurz.token'))) ?? '';
            await createLinks(
              kurz.url,
              [
                { url: `${TARGET}/limited`, custom_code: 'limited' },
                { url: `${TARGET}/old`, custom_code: 'promo' },
              ],
              token,
            );
            await click(kurz.url, 'limited', 2);
            await openList(page, kurz.url, ['promo', 'limited']);
            expect(await badgesOf(page, 'promo')).toEqual([]);

            // By keyboard: Enter opens the dialog on the target; a refused URL gets the
            // server's message in the dialog; Escape closes it, focus back on Edit.
            await page.getByRole('button', { name: 'Edit promo', exact: true }).focus();
            await page.keyboard.press('Enter');
            let edit = page.getByRole('dialog', { name: 'Edit promo' });
            await edit.waitFor();
            expect(await page.evaluate(() => document.activeElement?.id)).toBe('edit-url');
            expect(await edit.getByLabel('Target URL').inputValue()).toBe(`${TARGET}/old`);
            expect(await fitsWidth(page)).toBe(true);
            await edit.getByLabel('Target URL').fill('ftp://example.com/file');
            await save(page, edit);
            await waitForText(edit.getByRole('alert'), 'URL must start with http:// or https://');
            await page.keyboard.press('Escape');
            await edit.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'Edit promo');
            expect(await rowOf(page, 'promo').locator('a.target').textContent()).toBe(
              `${TARGET}/old`,
            );

            // A new target: only `url` is sent, the row shows it, the short link follows it.
            edit = await openEdit(page, 'promo');
            await edit.getByLabel('Target URL').fill(`${TARGET}/new`);
            expect(await saveOk(page, edit)).toEqual({ url: `${TARGET}/new` });
            await waitForText(rowOf(page, 'promo').locator('a.target'), `${TARGET}/new`);
            await waitForText(page.locator('#list-status'), 'Saved promo.');
            await waitForFocus(page, 'Edit promo');
            expect(await follow(kurz.url, 'promo')).toEqual({
              status: 307,
              location: `${TARGET}/new`,
            });

            // An expiry, typed in the viewer's time zone (Berlin, UTC+2 in June), sent in UTC.
            edit = await openEdit(page, 'promo');
            expect(await edit.getByLabel('Never').isChecked()).toBe(true);
            expect(await edit.getByLabel('Date and time').isVisible()).toBe(false);
            await edit.getByLabel('At a time').check();
            await edit.getByLabel('Date and time').fill('2030-06-01T12:00');
            expect(await saveOk(page, edit)).toEqual({ expires_at: '2030-06-01T10:00:00.000Z' });
            await waitForText(page.locator('#list-status'), 'Saved promo.');
            expect(await badgesOf(page, 'promo')).toEqual([]);

            // It opens with that time, in local time again; one in the past expires the link.
            edit = await openEdit(page, 'promo');
            expect(await edit.getByLabel('At a time').isChecked()).toBe(true);
            expect(await edit.getByLabel('Date and time').inputValue()).toBe('2030-06-01T12:00');
            await edit.getByLabel('Date and time').fill('2020-01-01T00:00');
            expect(await saveOk(page, edit)).toEqual({ expires_at: '2019-12-31T23:00:00.000Z' });
            await waitForBadges(page, 'promo', ['Expired']);
            expect((await follow(kurz.url, 'promo')).status).toBe(410);

            // Never again: null is sent, the badge goes, the link works.
            edit = await openEdit(page, 'promo');
            await edit.getByLabel('Never').check();
            expect(await saveOk(page, edit)).toEqual({ expires_at: null });
            await waitForBadges(page, 'promo', []);
            expect((await follow(kurz.url, 'promo')).status).toBe(307);

            // A click limit the link has reached already (its 2 clicks count): Expired.
            edit = await openEdit(page, 'limited');
            await edit.getByLabel('Max clicks').fill('2');
            expect(await saveOk(page, edit)).toEqual({ max_clicks: 2 });
            await waitForBadges(page, 'limited', ['Expired']);
            expect(await rowOf(page, 'limited').locator('.badge').getAttribute('title')).toBe(
              'Reached its limit of 2 clicks',
            );
            expect((await follow(kurz.url, 'limited')).status).toBe(410);
            // A value the server refuses: its message, in the dialog.
            edit = await openEdit(page, 'limited');
            expect(await edit.getByLabel('Max clicks').inputValue()).toBe('2');
            await edit.getByLabel('Max clicks').fill('0');
            await save(page, edit);
            await waitForText(
              edit.getByRole('alert'),
              'max_clicks must be a whole number from 1 to 1000000000',
            );
            // Emptied: no limit.
            await edit.getByLabel('Max clicks').fill('');
            expect(await saveOk(page, edit)).toEqual({ max_clicks: null });
            await waitForBadges(page, 'limited', []);

            // A password: the badge, and the short link asks for it; then removed.
            edit = await openEdit(page, 'promo');
            expect(await edit.getByText('This link has no password.').isVisible()).toBe(true);
            expect(await edit.getByLabel('Remove it').isVisible()).toBe(false);
            await edit.getByLabel('Set a new one').check();
            await edit.getByLabel('New password').fill('open sesame');
            expect(await saveOk(page, edit)).toEqual({ password: 'open sesame' });
            await waitForBadges(page, 'promo', ['Password']);
            const asked = await follow(kurz.url, 'promo');
            expect(asked.status).toBe(200);
            expect(asked.location).toBeNull();

            edit = await openEdit(page, 'promo');
            expect(await edit.getByText('This link has a password.').isVisible()).toBe(true);
            expect(await edit.getByLabel('Keep as it is').isChecked()).toBe(true);
            expect(await fitsWidth(page)).toBe(true);
            await edit.getByLabel('Remove it').check();
            expect(await saveOk(page, edit)).toEqual({ password: null });
            await waitForBadges(page, 'promo', []);
            expect((await follow(kurz.url, 'promo')).status).toBe(307);

            // Nothing changed: nothing sent.
            edit = await openEdit(page, 'promo');
            await edit.getByRole('button', { name: 'Save' }).click();
            await edit.waitFor({ state: 'hidden' });
            await waitForText(
              page.locator('#list-status'),
              'Nothing was changed, so promo was not saved.',
            );
            expect(await fitsWidth(page)).toBe(true);
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );

    test(
      'the shorten form’s options set an expiry, a click limit and a password at creation',
      async () => {
        await withKurz(
          ['--mode', 'accounts'],
          async (kurz, page) => {
            await page.goto(kurz.url);
            await register(page, 'new@example.com');
            const token = (await page.evaluate(() => localStorage.getItem('kurz.token'))) ?? '';
            const shortenForm = page.locator('#shorten-form');
            await shortenForm.getByText('Expiry, click limit, password').click();
            await page.getByLabel('URL', { exact: true }).fill(`${TARGET}/guarded`);
            await page.getByLabel('Custom code').fill('guarded');
            await shortenForm.getByLabel('Expires').fill('2031-01-02T03:04');
            await shortenForm.getByLabel('Max clicks').fill('5');
            await shortenForm.getByLabel('Link password').fill('letmein');
            expect(await fitsWidth(page)).toBe(true);
            const [request] = await Promise.all([
              page.waitForRequest((request) => request.method() === 'POST'),
              page.getByRole('button', { name: 'Shorten' }).click(),
            ]);
            expect(request.postDataJSON()).toEqual({
              url: `${TARGET}/guarded`,
              custom_code: 'guarded',
              expires_at: '2031-01-02T02:04:00.000Z', // Berlin is UTC+1 in January
              max_clicks: 5,
              password: 'letmein',
            });
            await waitForBadges(page, 'guarded', ['Password']);
            expect(await shortenForm.getByLabel('Link password').inputValue()).toBe(''); // reset
            const detail = await call(kurz.url, 'GET', '/api/links/guarded', { token });
            expect(detail.json).toMatchObject({
              expires_at: '2031-01-02T02:04:00.000Z',
              max_clicks: 5,
              password_protected: true,
              status: 'active',
            });

            // The Edit dialog opens with those settings.
            const edit = await openEdit(page, 'guarded');
            expect(await edit.getByLabel('Date and time').inputValue()).toBe('2031-01-02T03:04');
            expect(await edit.getByLabel('Max clicks').inputValue()).toBe('5');
            expect(await edit.getByText('This link has a password.').isVisible()).toBe(true);
            await edit.getByRole('button', { name: 'Cancel' }).click();
            await edit.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'Edit guarded');
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );

    test(
      'Delete asks first, naming the link; confirmed, the row and its count go',
      async () => {
        await withKurz(
          ['--mode', 'accounts'],
          async (kurz, page) => {
            const token = await registerUser(kurz.url, 'del@example.com');
            await page.addInitScript(
              ([value]) => {
                localStorage.setItem('kurz.token', value ?? '');
                localStorage.setItem('kurz.email', 'del@example.com');
              },
              [token],
            );
            await createLinks(
              kurz.url,
              ['first', 'second', 'third'].map((code) => ({
                url: `${TARGET}/${code}`,
                custom_code: code,
              })),
              token,
            );
            await openList(page, kurz.url, ['first', 'second', 'third']);
            await waitForText(page.locator('#range'), '1–3 of 3');

            // Cancel (focused first, so Enter deletes nothing) keeps everything.
            await page.getByRole('button', { name: 'Delete second', exact: true }).click();
            const confirm = page.getByRole('dialog', { name: 'Delete second?' });
            await confirm.waitFor();
            expect(await confirm.locator('#delete-what').textContent()).toBe(
              `http://localhost:${kurz.port}/second will stop working at once, and its clicks and stats will be deleted. This cannot be undone.`,
            );
            await waitForFocus(page, 'Cancel');
            expect(await confirm.getByLabel('Admin token').isVisible()).toBe(false);
            expect(await fitsWidth(page)).toBe(true);
            await page.keyboard.press('Enter');
            await confirm.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'Delete second');
            expect(await shortCodes(page)).toEqual(['third', 'second', 'first']);

            // Confirmed: gone from the list and the server; focus moves to the next row.
            await page.getByRole('button', { name: 'Delete second', exact: true }).click();
            await confirm.waitFor();
            const [request] = await Promise.all([
              page.waitForRequest((request) => request.method() === 'DELETE'),
              confirm.getByRole('button', { name: 'Delete' }).click(),
            ]);
            // On the link's domain, the default one here.
            expect(request.url()).toBe(
              `${kurz.url}/api/links/second?domain=localhost%3A${kurz.port}`,
            );
            await confirm.waitFor({ state: 'hidden' });
            await waitForText(page.locator('#list-status'), 'Deleted second.');
            await waitForText(page.locator('#range'), '1–2 of 2');
            expect(await shortCodes(page)).toEqual(['third', 'first']);
            await waitForFocus(page, 'Delete first');
            expect((await call(kurz.url, 'GET', '/api/links/second', { token })).status).toBe(404);
            expect((await follow(kurz.url, 'second')).status).toBe(404);

            // The last ones: focus goes to the row before, then to the list's heading.
            for (const [code, next] of [
              ['first', 'Delete third'],
              ['third', null],
            ] as const) {
              await page.getByRole('button', { name: `Delete ${code}`, exact: true }).click();
              const dialog = page.getByRole('dialog', { name: `Delete ${code}?` });
              await dialog.getByRole('button', { name: 'Delete' }).click();
              await dialog.waitFor({ state: 'hidden' });
              if (next !== null) await waitForFocus(page, next);
            }
            await page.getByText('No links yet.', { exact: false }).waitFor();
            await eventually(
              async () => (await page.evaluate(() => document.activeElement?.id)) === 'list-title',
              'focus on the list’s heading',
            );
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );

    test(
      'Stats show totals, humans and bots, a bar per day, the top lists and a CSV download',
      async () => {
        await withKurz(
          ['--mode', 'accounts'],
          async (kurz, page) => {
            const token = await registerUser(kurz.url, 'stats@example.com');
            await page.addInitScript(
              ([value]) => localStorage.setItem('kurz.token', value ?? ''),
              [token],
            );
            await createLinks(
              kurz.url,
              [{ url: `${TARGET}/launch`, custom_code: 'launch', source: 'newsletter' }],
              token,
            );
            const before = utcDay();
            await click(kurz.url, 'launch', 2, { userAgent: HUMAN_AGENT });
            await click(kurz.url, 'launch', 1, { userAgent: HUMAN_AGENT, source: 'qr' });
            await click(kurz.url, 'launch', 1); // Bun's own User-Agent: a bot
            const today = utcDay();
            await openList(page, kurz.url, ['launch']);

            const statsButton = page.getByRole('button', { name: 'Stats for launch' });
            await statsButton.click();
            const stats = page.getByRole('dialog', { name: 'Stats for launch' });
            await stats.waitFor();
            await waitForText(stats.locator('#stats-all-time'), '4');
            expect(await stats.locator('#stats-range-total').textContent()).toBe('4');
            expect(await stats.locator('#stats-humans').textContent()).toBe('3 (75%)');
            expect(await stats.locator('#stats-bots').textContent()).toBe('1 (25%)');
            expect(await stats.getByRole('radio', { name: '30 days' }).isChecked()).toBe(true);

            // The chart: an image with a title and a description that says the numbers…
            const chart = stats.getByRole('img');
            expect(await chart.getAttribute('aria-labelledby')).toBe(
              'stats-chart-title stats-chart-desc',
            );
            expect(await chart.locator('title').first().textContent()).toStartWith(
              'Clicks per day, ',
            );
            expect(await chart.locator('desc').textContent()).toMatch(
              /^4 clicks from .+ \(30 UTC days\): 3 by humans, 1 by bots\. Busiest day: .+, 4 clicks\.$/,
            );
            // … a column per day, today's with a bar of humans and one of bots on top.
            expect(await chart.locator('g.day').count()).toBe(30);
            const last = chart.locator('g.day').last();
            expect([before, today]).toContain((await last.getAttribute('data-date')) ?? '');
            expect(await last.locator('rect.bar-human').count()).toBe(1);
            expect(await last.locator('rect.bar-bot').count()).toBe(1);
            const heights = await last
              .locator('rect.bar')
              .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('height'))));
            expect((heights[0] ?? 0) / (heights[1] ?? 1)).toBeCloseTo(3, 1);
            expect(await chart.locator('g.day').first().locator('rect.bar').count()).toBe(0);

            // The same as a table, behind a disclosure.
            await stats.getByText('Clicks per day as a table').click();
            const days = stats.locator('#stats-table tbody tr');
            expect(await days.count()).toBe(30);
            expect(await days.last().locator('td').allTextContents()).toEqual(['4', '3', '1']);

            // The top lists, as tables.
            const top = (name: string) =>
              stats.getByRole('table', { name }).locator('tbody tr').first();
            expect(await top('Sources').textContent()).toBe('newsletter4100%');
            expect(await top('Query sources').textContent()).toBe('qr125%');
            expect(await top('Referrers').textContent()).toBe('direct4100%');
            expect(await top('Browsers').textContent()).toBe('Chrome375%');
            expect(await stats.getByRole('heading', { name: 'Countries' }).isVisible()).toBe(true);
            expect(await fitsWidth(page)).toBe(true);

            // Other ranges: the last 7 days, then two days picked by hand.
            await stats.getByText('7 days').click();
            await eventually(
              async () => (await chart.locator('g.day').count()) === 7,
              'a chart of 7 days',
            );
            await stats.getByText('Custom').click();
            await stats.getByLabel('From', { exact: true }).fill(utcDay(-1));
            await stats.getByLabel('To', { exact: true }).fill(today);
            await stats.getByRole('button', { name: 'Show' }).click();
            await eventually(
              async () => (await stats.getByRole('img').locator('g.day').count()) === 2,
              'a chart of 2 days',
            );
            expect(await stats.locator('#stats-range-total').textContent()).toBe('4');
            // From after To: the server's message.
            await stats.getByLabel('From', { exact: true }).fill(utcDay(1));
            await stats.getByRole('button', { name: 'Show' }).click();
            await waitForText(
              stats.getByRole('alert'),
              'from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days apart',
            );

            // The CSV, fetched with the token and saved from a blob: a header and 4 records.
            const [download] = await Promise.all([
              page.waitForEvent('download'),
              stats.getByRole('button', { name: 'Download CSV' }).click(),
            ]);
            expect(download.suggestedFilename()).toBe('launch-clicks.csv');
            const csv = await Bun.file(await download.path()).text();
            const lines = csv.trimEnd().split('\n');
            expect(lines[0]).toBe(CSV_HEADER);
            expect(lines.length).toBe(5);
            await waitForText(stats.getByRole('status'), 'Downloaded launch-clicks.csv.');

            // Closed, focus is back on the Stats button.
            await stats.getByRole('button', { name: 'Close' }).click();
            await stats.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'Stats for launch');
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );
  });

  describe(`link actions, open mode, ${size} (${viewport.width} px)`, () => {
    test(
      'Edit and Delete ask for the admin token, keep it for the tab, and forget a wrong one',
      async () => {
        await withKurz(
          modeArgs('open'),
          async (kurz, page) => {
            await createLinks(kurz.url, [
              { url: `${TARGET}/beta`, custom_code: 'beta' },
              { url: `${TARGET}/alpha`, custom_code: 'alpha' },
            ]);
            await openList(page, kurz.url, ['alpha', 'beta']);
            const forget = page.getByRole('button', { name: 'Forget admin token' });
            expect(await forget.isVisible()).toBe(false);

            // No token yet: the dialog asks for it. A wrong one: refused, forgotten, asked again.
            let edit = await openEdit(page, 'alpha');
            const tokenField = edit.getByLabel('Admin token');
            expect(await tokenField.isVisible()).toBe(true);
            expect(await fitsWidth(page)).toBe(true);
            await edit.getByLabel('Target URL').fill(`${TARGET}/alpha-2`);
            await edit.getByRole('button', { name: 'Save' }).click(); // nothing sent without one
            await waitForText(edit.getByRole('alert'), 'Enter the admin token to change links.');
            await tokenField.fill('not-the-admin-token');
            const [refused] = await Promise.all([
              page.waitForResponse((response) => response.request().method() === 'PATCH'),
              edit.getByRole('button', { name: 'Save' }).click(),
            ]);
            expect(refused.status()).toBe(401);
            expect(refused.request().headers().authorization).toBe('Bearer not-the-admin-token');
            await waitForText(edit.getByRole('alert'), ADMIN_TOKEN_REFUSED);
            expect(await tokenField.inputValue()).toBe('');
            expect(await page.evaluate(() => document.activeElement?.id)).toBe('edit-admin-token');
            expect(await page.evaluate(() => sessionStorage.getItem('kurz.adminToken'))).toBeNull();

            // The right one: saved, kept for this tab, the header offers to forget it.
            await tokenField.fill(ADMIN_TOKEN);
            expect(await saveOk(page, edit)).toEqual({ url: `${TARGET}/alpha-2` });
            await waitForText(rowOf(page, 'alpha').locator('a.target'), `${TARGET}/alpha-2`);
            expect(await follow(kurz.url, 'alpha')).toEqual({
              status: 307,
              location: `${TARGET}/alpha-2`,
            });
            expect(await page.evaluate(() => sessionStorage.getItem('kurz.adminToken'))).toBe(
              ADMIN_TOKEN,
            );
            expect(await forget.isVisible()).toBe(true);

            // Kept: not asked again. A password and a past expiry, and both badges.
            edit = await openEdit(page, 'alpha');
            expect(await edit.getByLabel('Admin token').isVisible()).toBe(false);
            await edit.getByLabel('At a time').check();
            await edit.getByLabel('Date and time').fill('2021-03-04T05:06');
            await edit.getByLabel('Set a new one').check();
            await edit.getByLabel('New password').fill('hunter2');
            expect(await saveOk(page, edit)).toEqual({
              expires_at: '2021-03-04T04:06:00.000Z',
              password: 'hunter2',
            });
            await waitForBadges(page, 'alpha', ['Expired', 'Password']);
            expect((await follow(kurz.url, 'alpha')).status).toBe(410);

            // Delete with the kept token.
            await page.getByRole('button', { name: 'Delete beta', exact: true }).click();
            const confirm = page.getByRole('dialog', { name: 'Delete beta?' });
            await confirm.waitFor();
            expect(await confirm.getByLabel('Admin token').isVisible()).toBe(false);
            const [deleted] = await Promise.all([
              page.waitForResponse((response) => response.request().method() === 'DELETE'),
              confirm.getByRole('button', { name: 'Delete' }).click(),
            ]);
            expect(deleted.status()).toBe(204);
            expect(deleted.request().headers().authorization).toBe(`Bearer ${ADMIN_TOKEN}`);
            await waitForText(page.locator('#range'), '1–1 of 1');
            expect(await shortCodes(page)).toEqual(['alpha']);
            expect((await follow(kurz.url, 'beta')).status).toBe(404);

            // Forgotten by hand: asked for again.
            await forget.click();
            await forget.waitFor({ state: 'hidden' });
            expect(await page.evaluate(() => sessionStorage.getItem('kurz.adminToken'))).toBeNull();
            await page.getByRole('button', { name: 'Delete alpha', exact: true }).click();
            const again = page.getByRole('dialog', { name: 'Delete alpha?' });
            await again.waitFor();
            expect(await again.getByLabel('Admin token').isVisible()).toBe(true);
            expect(await page.evaluate(() => document.activeElement?.id)).toBe(
              'delete-admin-token',
            );
            expect(await fitsWidth(page)).toBe(true);
            await page.keyboard.press('Escape');
            await waitForFocus(page, 'Delete alpha');
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );

    test(
      'without an admin token configured, Edit and Delete show the server’s 403 message',
      async () => {
        await withKurz(
          ['--mode', 'open'],
          async (kurz, page) => {
            await createLinks(kurz.url, [{ url: `${TARGET}/kept`, custom_code: 'kept' }]);
            await openList(page, kurz.url, ['kept']);
            const edit = await openEdit(page, 'kept');
            await edit.getByLabel('Target URL').fill(`${TARGET}/changed`);
            await edit.getByLabel('Admin token').fill('any-token-at-all');
            await save(page, edit);
            await waitForText(
              edit.getByRole('alert'),
              'Link management needs an admin token in open mode',
            );
            await page.keyboard.press('Escape');

            await page.getByRole('button', { name: 'Delete kept', exact: true }).click();
            const confirm = page.getByRole('dialog', { name: 'Delete kept?' });
            await confirm.waitFor();
            await confirm.getByLabel('Admin token').fill('any-token-at-all');
            await confirm.getByRole('button', { name: 'Delete' }).click();
            await waitForText(
              confirm.getByRole('alert'),
              'Link management needs an admin token in open mode',
            );
            expect(await fitsWidth(page)).toBe(true);
            await page.keyboard.press('Escape');
            expect(await shortCodes(page)).toEqual(['kept']);
            expect(await follow(kurz.url, 'kept')).toEqual({
              status: 307,
              location: `${TARGET}/kept`,
            });
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );

    test(
      'Stats and the CSV need no token; open mode has no ?source= list',
      async () => {
        await withKurz(
          ['--mode', 'open'],
          async (kurz, page) => {
            await createLinks(kurz.url, [
              { url: `${TARGET}/open`, custom_code: 'opened', source: 'poster' },
            ]);
            await click(kurz.url, 'opened', 3, { userAgent: HUMAN_AGENT });
            await openList(page, kurz.url, ['opened']);
            await page.getByRole('button', { name: 'Stats for opened' }).click();
            const stats = page.getByRole('dialog', { name: 'Stats for opened' });
            await waitForText(stats.locator('#stats-all-time'), '3');
            expect(await stats.locator('#stats-humans').textContent()).toBe('3 (100%)');
            expect(await stats.locator('#stats-bots').textContent()).toBe('0 (0%)');
            const last = stats.getByRole('img').locator('g.day').last();
            expect(await last.locator('rect.bar-human').count()).toBe(1);
            expect(await last.locator('rect.bar-bot').count()).toBe(0);
            expect(
              await stats
                .getByRole('table', { name: 'Sources' })
                .locator('tbody tr')
                .first()
                .textContent(),
            ).toBe('poster3100%');
            expect(await stats.getByRole('heading', { name: 'Query sources' }).count()).toBe(0);
            expect(await fitsWidth(page)).toBe(true);

            const [download] = await Promise.all([
              page.waitForEvent('download'),
              stats.getByRole('button', { name: 'Download CSV' }).click(),
            ]);
            const csv = await Bun.file(await download.path()).text();
            expect(csv.split('\n')[0]).toBe(CSV_HEADER);
            expect(csv.trimEnd().split('\n').length).toBe(4);
            await page.keyboard.press('Escape');
            await stats.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'Stats for opened');
          },
          contextAt(viewport),
        );
      },
      TIMEOUT,
    );
  });
}

// ---- API keys (accounts mode): made, shown once, listed, revoked; and the page of a
// kurz whose registration is closed.

/** The row of the key named `name`, found by its Revoke button's name. */
const keyRow = (page: Page, name: string) =>
  page
    .locator('#key-rows tr')
    .filter({ has: page.getByRole('button', { name: `Revoke ${name}`, exact: true }) });
const keyNames = (page: Page) => page.locator('#key-rows th').allTextContents();

/** An ISO instant as the page shows dates: the viewer's locale and time zone. */
const localTime = (page: Page, iso: string) =>
  page.evaluate(
    (value) =>
      new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(
        new Date(value),
      ),
    iso,
  );

/** The key-making request the next click sends, and its JSON. */
async function createKey(page: Page, dialog: Locator) {
  const [request] = await Promise.all([
    page.waitForRequest(
      (request) => request.method() === 'POST' && request.url().endsWith('/api/keys'),
    ),
    dialog.getByRole('button', { name: 'Create key' }).click(),
  ]);
  return request.postDataJSON();
}

/** Waits until the new-key box shows a key other than `previous`, and returns it. */
async function shownKey(dialog: Locator, previous = '') {
  const value = dialog.locator('#new-key-value');
  let seen = '';
  await eventually(
    async () => {
      seen = (await value.isVisible()) ? ((await value.textContent()) ?? '') : '';
      return seen !== '' && seen !== previous;
    },
    () => `a new key shown, seen ${JSON.stringify(seen)}`,
  );
  return seen;
}

/** Opens the API keys dialog from the header. */
async function openKeys(page: Page) {
  await page.getByRole('button', { name: 'API keys' }).click();
  const dialog = page.getByRole('dialog', { name: 'API keys' });
  await dialog.waitFor();
  return dialog;
}

interface ListedKey {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

for (const [size, viewport] of VIEWPORTS) {
  describe(`web UI, API keys, ${size} (${viewport.width} px)`, () => {
    // The desktop run copies with the clipboard; the phone run has none (as on a page
    // served over plain http from another host), so Copy selects the key instead.
    const clipboard = size === 'desktop';

    test(
      'a read and a write key: made, shown once, copied, used, their last use listed, revoked after a confirmation',
      async () => {
        await withKurz(
          ['--mode', 'accounts'],
          async (kurz, page) => {
            const token = await registerUser(kurz.url, 'keys@example.com');
            await page.addInitScript(
              ({ value, noClipboard }) => {
                localStorage.setItem('kurz.token', value);
                localStorage.setItem('kurz.email', 'keys@example.com');
                if (noClipboard)
                  Object.defineProperty(navigator, 'clipboard', { value: undefined });
              },
              { value: token, noClipboard: !clipboard },
            );
            await page.goto(kurz.url);
            const dialog = await openKeys(page);
            expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-name');
            await waitForText(
              dialog.locator('#keys-empty'),
              'No keys yet. Create one above for a script or a tool.',
            );
            expect(await fitsWidth(page)).toBe(true);

            // No name: the server's message, next to the form, as an alert.
            const formError = dialog.locator('#key-error');
            expect(await formError.getAttribute('role')).toBe('alert');
            expect(await createKey(page, dialog)).toEqual({ name: '', scope: 'read' });
            await waitForText(formError, 'name must be a string of 1 to 100 characters');

            // A read key (the default scope), named with what would be markup as HTML.
            const readName = 'nightly <b>report</b> & co';
            await dialog.getByLabel('Name', { exact: true }).fill(readName);
            expect(await dialog.getByLabel('Read', { exact: true }).isChecked()).toBe(true);
            expect(await createKey(page, dialog)).toEqual({ name: readName, scope: 'read' });
            const box = dialog.getByRole('region', { name: 'Your new key' });
            const readKey = await shownKey(dialog);
            expect(readKey).toMatch(/^kurz_[0-9A-Za-z]{38}$/);
            expect(await formError.textContent()).toBe('');
            expect(await box.locator('#new-key-warning').textContent()).toStartWith(
              'Copy it now: it will not be shown again.',
            );
            await waitForFocus(page, 'Copy key');
            expect(await dialog.getByLabel('Name', { exact: true }).inputValue()).toBe('');

            await box.getByRole('button', { name: 'Copy key' }).click();
            if (clipboard) {
              await waitForText(box.getByRole('status'), 'Copied the key.');
              expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(readKey);
            } else {
              await waitForText(
                box.getByRole('status'),
                'Copying is not available here. The key is selected: press Ctrl+C (⌘C on a Mac).',
              );
              expect(await page.evaluate(() => getSelection()?.toString())).toBe(readKey);
            }

            // Listed: the name as text, the key's first characters, scope and dates.
            const readRow = keyRow(page, readName);
            await readRow.waitFor();
            const [made] = (await call(kurz.url, 'GET', '/api/keys', { token }))
              .json as ListedKey[];
            expect(await readRow.locator('th, td').allTextContents()).toEqual([
              readName,
              `${readKey.slice(0, 13)}…`,
              'Read',
              await localTime(page, made?.created_at ?? ''),
              'Never',
              'Never',
              'Revoke',
            ]);
            expect(await readRow.locator('b').count()).toBe(0);
            expect(await fitsWidth(page)).toBe(true);

            // A write key that ends with a chosen day: its last millisecond in Berlin.
            await dialog.getByLabel('Name', { exact: true }).fill('deploy');
            await dialog.getByLabel('Write', { exact: true }).check();
            await dialog.getByLabel('Expires', { exact: true }).fill('2031-01-02');
            expect(await createKey(page, dialog)).toEqual({
              name: 'deploy',
              scope: 'write',
              expires_at: '2031-01-02T22:59:59.999Z', // Berlin is UTC+1 in January
            });
            const writeKey = await shownKey(dialog, readKey);
            expect(writeKey).toMatch(/^kurz_[0-9A-Za-z]{38}$/);
            expect(await page.content()).not.toContain(readKey); // one key at a time
            await eventually(async () => (await keyNames(page)).length === 2, 'two keys listed');
            expect(await keyNames(page)).toEqual(['deploy', readName]);
            const writeCells = await keyRow(page, 'deploy').locator('td').allTextContents();
            expect(writeCells.slice(0, 2)).toEqual([`${writeKey.slice(0, 13)}…`, 'Write']);
            expect(writeCells.slice(3)).toEqual([
              await localTime(page, '2031-01-02T22:59:59.999Z'),
              'Never',
              'Revoke',
            ]);
            expect(await fitsWidth(page)).toBe(true);

            // Closed, the key is gone from the page; opened again, it is not shown.
            await page.keyboard.press('Escape');
            await dialog.waitFor({ state: 'hidden' });
            await waitForFocus(page, 'API keys');
            // Chromium gives focus back as the dialog closes; its close event, which
            // clears the key, is the next task.
            await eventually(
              async () => !(await page.content()).includes(writeKey),
              'the key gone from the page once the dialog closed',
              2000,
            );
            await openKeys(page);
            await keyRow(page, 'deploy').waitFor();
            expect(await box.isVisible()).toBe(false);
            expect(await page.content()).not.toContain(writeKey);

            // The keys work within their scope: read lists, write also creates.
            expect((await call(kurz.url, 'GET', '/api/links', { token: readKey })).status).toBe(
              200,
            );
            const refused = await call(kurz.url, 'POST', '/api/shorten', {
              token: readKey,
              json: { url: `${TARGET}/by-read-key` },
            });
            expect([refused.status, refused.json]).toEqual([403, { error: 'Forbidden' }]);
            const created = await call(kurz.url, 'POST', '/api/shorten', {
              token: writeKey,
              json: { url: `${TARGET}/by-write-key`, custom_code: 'by-key' },
            });
            expect(created.status).toBe(201);
            let used: ListedKey[] = [];
            await eventually(async () => {
              used = (await call(kurz.url, 'GET', '/api/keys', { token })).json;
              return used.every((key) => key.last_used_at !== null);
            }, 'both keys’ last use recorded');

            // After a reload: each key's last use, and neither key anywhere in the page.
            await page.reload();
            await openKeys(page);
            await keyRow(page, 'deploy').waitFor();
            for (const key of used) {
              expect(await keyRow(page, key.name).locator('.cell-key-used').textContent()).toBe(
                await localTime(page, key.last_used_at ?? ''),
              );
            }
            await rowOf(page, 'by-key').waitFor(); // the write key's link, listed behind
            expect(await box.isVisible()).toBe(false);
            const html = await page.content();
            expect(html).not.toContain(readKey);
            expect(html).not.toContain(writeKey);

            // Revoke asks first, naming the key; Cancel (focused, so Enter) keeps it.
            const revokeRead = dialog.getByRole('button', {
              name: `Revoke ${readName}`,
              exact: true,
            });
            await revokeRead.click();
            const confirm = page.getByRole('dialog', { name: `Revoke “${readName}”?` });
            await confirm.waitFor();
            expect(await confirm.locator('#revoke-what').textContent()).toBe(
              `Anything using the key ${readKey.slice(0, 13)}… is refused from now on. This cannot be undone.`,
            );
            await waitForFocus(page, 'Cancel');
            expect(await fitsWidth(page)).toBe(true);
            await page.keyboard.press('Enter');
            await confirm.waitFor({ state: 'hidden' });
            await waitForFocus(page, `Revoke ${readName}`);
            expect((await call(kurz.url, 'GET', '/api/links', { token: readKey })).status).toBe(
              200,
            );

            // Confirmed: the key is refused, its row goes, focus moves to the row before.
            await revokeRead.click();
            await confirm.waitFor();
            const [revoked] = await Promise.all([
              page.waitForRequest((request) => request.method() === 'DELETE'),
              confirm.getByRole('button', { name: 'Revoke', exact: true }).click(),
            ]);
            const readId = used.find((key) => key.name === readName)?.id;
            expect(revoked.url()).toBe(`${kurz.url}/api/keys/${readId}`);
            await confirm.waitFor({ state: 'hidden' });
            await waitForText(dialog.locator('#keys-status'), `Revoked ${readName}.`);
            expect(await keyNames(page)).toEqual(['deploy']);
            await waitForFocus(page, 'Revoke deploy');
            const gone = await call(kurz.url, 'GET', '/api/links', { token: readKey });
            expect([gone.status, gone.json]).toEqual([401, { error: 'Unauthorized' }]);
            expect((await call(kurz.url, 'GET', '/api/links', { token: writeKey })).status).toBe(
              200,
            );
            const left = (await call(kurz.url, 'GET', '/api/keys', { token })).json as ListedKey[];
            expect(left.map((key) => key.name)).toEqual(['deploy']);

            // The last one: the list says there are none, focus is on its heading.
            await dialog.getByRole('button', { name: 'Revoke deploy', exact: true }).click();
            await page
              .getByRole('dialog', { name: 'Revoke “deploy”?' })
              .getByRole('button', { name: 'Revoke', exact: true })
              .click();
            await waitForText(
              dialog.locator('#keys-empty'),
              'No keys yet. Create one above for a script or a tool.',
            );
            await eventually(
              async () =>
                (await page.evaluate(() => document.activeElement?.id)) === 'keys-list-title',
              'focus on the list’s heading',
            );
            expect((await call(kurz.url, 'GET', '/api/links', { token: writeKey })).status).toBe(
              401,
            );
          },
          {
            ...contextAt(viewport),
            permissions: clipboard ? ['clipboard-read', 'clipboard-write'] : [],
          },
        );
      },
      TIMEOUT,
    );
  });
}

describe('web UI, API keys', () => {
  test(
    'the expiry must be a whole day, today or later; the server’s refusal (100 keys) shows in the form',
    async () => {
      await withKurz(
        ['--mode', 'accounts'],
        async (kurz, page) => {
          const token = await registerUser(kurz.url, 'many@example.com');
          for (let i = 1; i <= 100; i++) {
            const reply = await call(kurz.url, 'POST', '/api/keys', {
              token,
              json: { name: `key ${i}` },
            });
            expect(reply.status).toBe(201);
          }
          await page.addInitScript((value) => localStorage.setItem('kurz.token', value), token);
          await page.goto(kurz.url);
          const dialog = await openKeys(page);
          await keyRow(page, 'key 1').waitFor();
          expect(await keyNames(page)).toHaveLength(100);
          expect((await keyNames(page))[0]).toBe('key 100'); // newest first

          const sent: string[] = [];
          page.on('request', (request) => {
            if (request.method() === 'POST') sent.push(request.url());
          });
          const formError = dialog.locator('#key-error');
          const expires = dialog.getByLabel('Expires', { exact: true });
          await dialog.getByLabel('Name', { exact: true }).fill('one more');

          // A day already over, and a date typed only in part: said here, nothing sent.
          await expires.fill('2020-01-01');
          await dialog.getByRole('button', { name: 'Create key' }).click();
          await waitForText(formError, 'Expires must be today or a later day, or empty.');
          await expires.fill('');
          await expires.focus();
          await page.keyboard.type('01'); // the month alone
          await dialog.getByRole('button', { name: 'Create key' }).click();
          await waitForText(formError, 'Expires must be a whole date, or empty.');
          expect(sent).toEqual([]);

          // Today is allowed (until it ends); the server refuses a 101st key.
          const today = await page.evaluate(() => {
            const now = new Date();
            const pad = (n: number) => String(n).padStart(2, '0');
            return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
          });
          await expires.fill(today);
          const body = await createKey(page, dialog);
          expect(body.expires_at).toBe(
            await page.evaluate((day) => new Date(`${day}T23:59:59.999`).toISOString(), today),
          );
          await waitForText(formError, 'API key limit reached');
          expect(await dialog.locator('#new-key').isVisible()).toBe(false);
          expect(await dialog.getByLabel('Name', { exact: true }).inputValue()).toBe('one more');
        },
        contextAt({ width: 1280, height: 800 }),
      );
    },
    TIMEOUT,
  );

  test(
    'a list that cannot load says why; a key revoked elsewhere just goes; a failed revoke says why',
    async () => {
      await withKurz(['--mode', 'accounts'], async (kurz, page) => {
        const token = await registerUser(kurz.url, 'faults@example.com');
        const ids: Record<string, number> = {};
        for (const name of ['first', 'second']) {
          ids[name] = (
            await call(kurz.url, 'POST', '/api/keys', { token, json: { name } })
          ).json.id;
        }
        await page.addInitScript((value) => localStorage.setItem('kurz.token', value), token);
        const unavailable = {
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'Database unavailable' }),
        };
        let listing = false;
        await page.route(`${kurz.url}/api/keys`, (route) =>
          listing ? route.continue() : route.fulfill(unavailable),
        );
        await page.goto(kurz.url);
        let dialog = await openKeys(page);
        await waitForText(dialog.locator('#keys-error'), 'Database unavailable');
        expect(await dialog.locator('#keys-empty').isVisible()).toBe(false); // not "Loading…"
        expect(await dialog.locator('#keys').isVisible()).toBe(false);
        await page.keyboard.press('Escape');
        listing = true;
        dialog = await openKeys(page);
        await keyRow(page, 'first').waitFor();
        expect(await dialog.locator('#keys-error').textContent()).toBe('');

        // Revoked in another tab meanwhile (404 here): the row goes all the same.
        await call(kurz.url, 'DELETE', `/api/keys/${ids.first}`, { token });
        await dialog.getByRole('button', { name: 'Revoke first', exact: true }).click();
        await page
          .getByRole('dialog', { name: 'Revoke “first”?' })
          .getByRole('button', { name: 'Revoke', exact: true })
          .click();
        await waitForText(dialog.locator('#keys-status'), 'Revoked first.');
        expect(await keyNames(page)).toEqual(['second']);

        // Any other failure: the server's message in the confirmation, the key kept.
        await page.route(`${kurz.url}/api/keys/*`, (route) => route.fulfill(unavailable));
        await dialog.getByRole('button', { name: 'Revoke second', exact: true }).click();
        const confirm = page.getByRole('dialog', { name: 'Revoke “second”?' });
        await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
        await waitForText(confirm.getByRole('alert'), 'Database unavailable');
        expect(await confirm.isVisible()).toBe(true);
        expect(await keyNames(page)).toEqual(['second']);
      });
    },
    TIMEOUT,
  );

  test(
    'a session that ends while the dialog is open takes it away, with every key shown',
    async () => {
      const db = join(tempDir(), 'kurz.db');
      await withKurz(['--mode', 'accounts', '--db', db], async (kurz, page) => {
        const token = await registerUser(kurz.url, 'gone@example.com');
        await page.addInitScript((value) => localStorage.setItem('kurz.token', value), token);
        await page.goto(kurz.url);
        const dialog = await openKeys(page);
        await dialog.getByLabel('Name', { exact: true }).fill('laptop');
        await createKey(page, dialog);
        const key = await shownKey(dialog);
        await keyRow(page, 'laptop').waitFor();

        // The operator sets a new password: every token issued before it is refused.
        const passwd = await runKurz(['user', 'passwd', 'gone@example.com', '--db', db], {
          input: 'a brand new password\n',
        });
        expect(passwd.code).toBe(0);
        await dialog.getByLabel('Name', { exact: true }).fill('another');
        await createKey(page, dialog);
        await waitForText(
          page.locator('#auth-notice'),
          'Your session has ended. Please log in again.',
        );
        await dialog.waitFor({ state: 'hidden' });
        await eventually(
          async () => (await page.locator('#key-rows tr').count()) === 0,
          'the keys list emptied',
        );
        expect(await page.content()).not.toContain(key);
      });
    },
    TIMEOUT,
  );

  test(
    'open mode has no API keys',
    async () => {
      await withKurz(['--mode', 'open'], async (kurz, page) => {
        await page.goto(kurz.url);
        await page.getByText('No links yet.', { exact: false }).waitFor();
        expect(await page.getByRole('button', { name: 'API keys' }).count()).toBe(0);
        expect(await page.getByRole('dialog').count()).toBe(0);
      });
    },
    TIMEOUT,
  );
});

describe('web UI, registration closed', () => {
  test(
    'the page offers only Log in; an account made by kurz user add logs in',
    async () => {
      const db = join(tempDir(), 'kurz.db');
      await withKurz(
        ['--mode', 'accounts', '--registration', 'closed', '--db', db],
        async (kurz, page) => {
          const added = await runKurz(['user', 'add', 'ops@example.com', '--db', db], {
            input: `${PASSWORD}\n`,
          });
          expect(added.code).toBe(0);
          await page.goto(kurz.url);
          const form = page.locator('#auth-form');
          await form.getByLabel('Email').waitFor();
          expect(await form.getByRole('button').allTextContents()).toEqual(['Log in']);
          expect(await page.locator('#auth-view .lead').textContent()).toBe(
            'New accounts are made by the operator of this kurz.',
          );
          expect(
            await form.getByLabel('Password', { exact: true }).getAttribute('aria-describedby'),
          ).toBeNull();
          expect(await page.getByText('At least 8 characters').isVisible()).toBe(false);

          await form.getByLabel('Email').fill('ops@example.com');
          await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
          await form.getByRole('button', { name: 'Log in' }).click();
          await page.getByRole('button', { name: 'Log out' }).waitFor();
          expect(await page.locator('#session-email').textContent()).toBe('ops@example.com');
          await page.getByText('No links yet.', { exact: false }).waitFor();
        },
      );
    },
    TIMEOUT,
  );

  test(
    'closed after the page was loaded: Register shows the server’s 403, then goes',
    async () => {
      await withKurz(['--mode', 'accounts', '--registration', 'closed'], async (kurz, page) => {
        // The page as it was served while registration was still open.
        await page.route(`${kurz.url}/`, async (route) => {
          const response = await route.fetch();
          const headers = response.headers();
          delete headers['content-encoding'];
          delete headers['content-length'];
          const body = (await response.text()).replace(
            '<meta name="kurz-registration" content="closed">',
            '<meta name="kurz-registration" content="open">',
          );
          await route.fulfill({ status: response.status(), headers, body });
        });
        // And the sign-in methods the page asked for then.
        await page.route(`${kurz.url}/api/auth/methods`, (route) =>
          route.fulfill({ json: { password: true, registration: 'open', oidc: null } }),
        );
        await page.goto(kurz.url);
        const form = page.locator('#auth-form');
        await form.getByLabel('Email').fill('late@example.com');
        await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
        const [answer] = await Promise.all([
          page.waitForResponse((response) => response.url().endsWith('/api/auth/register')),
          form.getByRole('button', { name: 'Register' }).click(),
        ]);
        expect(answer.status()).toBe(403);
        await waitForText(form.getByRole('alert'), 'Registration is closed');
        expect(await form.getByRole('button').allTextContents()).toEqual(['Log in']);
        expect(await page.locator('#auth-view .lead').textContent()).toBe(
          'New accounts are made by the operator of this kurz.',
        );
        await waitForFocus(page, 'Log in');
        const login = await call(kurz.url, 'POST', '/api/auth/login', {
          json: { email: 'late@example.com', password: PASSWORD },
        });
        expect(login.status).toBe(401); // no account was made
      });
    },
    TIMEOUT,
  );
});
