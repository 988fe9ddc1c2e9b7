// The web UI in the person's language, in Chromium against dist/kurz (run `bun run build`
// first): the browser's language (Playwright's `locale` sends Accept-Language) chooses
// German, French or Spanish, with plural forms and dates as that language writes them; the
// chooser at the foot of the page switches, and its choice outlives a reload and beats
// Accept-Language; a language kurz does not speak gets English; a right-to-left page
// mirrors at a desktop and a phone width; and what people typed is still shown as text.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../support/binary.ts';
import {
  click,
  createLinks,
  HUMAN_AGENT,
  launchBrowser,
  registerUser,
} from '../support/browser.ts';
import {
  arriveLoggedIn,
  fitsWidth,
  modeArgs,
  rowOf,
  SIZES,
  waitForText,
  withKurz,
} from '../support/web-page.ts';

interface Box {
  left: number;
  right: number;
}
declare const document: {
  documentElement: { lang: string; dir: string; clientWidth: number };
  querySelector(selector: string): { getBoundingClientRect(): Box } | null;
  createRange(): { selectNodeContents(node: unknown): void; getBoundingClientRect(): Box };
  cookie: string;
};
declare function getComputedStyle(element: unknown): Record<string, string>;
declare const navigator: { serviceWorker: { ready: Promise<unknown>; controller: unknown } };
declare const caches: {
  match(path: string): Promise<{ text(): Promise<string> } | undefined>;
};

const TIMEOUT = 60_000;
const TARGET = 'https://example.com/landing';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** What each language's page says, as its catalogue does. */
const EXPECTED = {
  de: {
    title: 'Link kürzen',
    list: 'Alle Links',
    stats: 'Statistik',
    limitOne: 'Limit von 1 Klick erreicht',
    limitTwo: 'Limit von 2 Klicks erreicht',
    noMatch: (text: string) => `Keine Links passen zu „${text}“.`,
  },
  fr: {
    title: 'Raccourcir un lien',
    list: 'Tous les liens',
    stats: 'Statistiques',
    limitOne: 'Limite de 1 clic atteinte',
    limitTwo: 'Limite de 2 clics atteinte',
    noMatch: (text: string) => `Aucun lien ne correspond à « ${text} ».`,
  },
  es: {
    title: 'Acortar un enlace',
    list: 'Todos los enlaces',
    stats: 'Estadísticas',
    limitOne: 'Alcanzó su límite de 1 clic',
    limitTwo: 'Alcanzó su límite de 2 clics',
    noMatch: (text: string) => `Ningún enlace coincide con «${text}».`,
  },
} as const;

const lang = (page: Page) => page.evaluate(() => document.documentElement.lang);

/** A date and time as `language` writes it, in the page (whose time zone the test sets). */
const formatted = (page: Page, iso: string, language: string) =>
  page.evaluate(
    ([when, code]) =>
      new Intl.DateTimeFormat(code, { dateStyle: 'medium', timeStyle: 'short' }).format(
        new Date(when ?? ''),
      ),
    [iso, language],
  );

/** Two links that reached their click limits, 1 and 2, for the plural of their badges. */
async function linksAtTheirLimits(base: string) {
  const made = [];
  for (const [code, limit] of [
    ['one', 1],
    ['two', 2],
  ] as const) {
    const reply = await fetch(`${base}/api/shorten`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${TARGET}/${code}`, custom_code: code, max_clicks: limit }),
    });
    expect(reply.status).toBe(201);
    made.push((await reply.json()) as { created_at: string });
    await click(base, code, limit, { userAgent: HUMAN_AGENT });
  }
  return made;
}

describe('the page in the browser’s language', () => {
  for (const language of ['de', 'fr', 'es'] as const) {
    test(
      `${language}: texts, the plural of a click limit, dates`,
      async () => {
        const want = EXPECTED[language];
        await withKurz(
          browser,
          modeArgs('open'),
          async (kurz, page) => {
            const [first] = await linksAtTheirLimits(kurz.url);
            await page.goto(kurz.url);
            expect(await lang(page)).toBe(language);
            await waitForText(page.locator('#shorten-title'), want.title);
            await waitForText(page.locator('#list-title'), want.list);
            await rowOf(page, 'one').waitFor();
            await waitForText(rowOf(page, 'one').locator('.stats-button'), want.stats);
            // One click, two clicks: the language's plural forms.
            const badge = (code: string) => rowOf(page, code).locator('.badge');
            await eventually(
              async () => (await badge('one').getAttribute('title')) === want.limitOne,
              `the limit of one in ${language}`,
            );
            expect(await badge('two').getAttribute('title')).toBe(want.limitTwo);
            // The date as the language writes it.
            const created = await rowOf(page, 'one').locator('time').textContent();
            expect(created).toBe(await formatted(page, first?.created_at ?? '', language));
            // What the person typed is text, in a translated sentence.
            const typed = '<b id="typed">x</b>';
            await page.locator('#filter').fill(typed);
            await waitForText(page.locator('#list-empty'), want.noMatch(typed));
            expect(await page.locator('#typed').count()).toBe(0);
          },
          { locale: language, timezoneId: 'UTC' },
        );
      },
      TIMEOUT,
    );
  }

  test(
    'a language kurz does not speak gets English',
    async () => {
      await withKurz(
        browser,
        modeArgs('accounts'),
        async (kurz, page) => {
          await page.goto(kurz.url);
          expect(await lang(page)).toBe('en');
          expect(await page.getByLabel('Language').inputValue()).toBe('en');
          await waitForText(page.locator('#auth-title'), 'Log in to kurz');
          await page.getByRole('button', { name: 'Register' }).waitFor();
        },
        { locale: 'ja-JP' },
      );
    },
    TIMEOUT,
  );
});

describe('longer words at a phone width', () => {
  for (const language of ['de', 'fr', 'es'] as const) {
    test(
      `${language}: the signed-in page and the Edit dialog fit, nothing scrolls sideways`,
      async () => {
        await withKurz(
          browser,
          modeArgs('accounts'),
          async (kurz, page) => {
            const email = 'someone.with.a.long.address@example.com';
            const token = await registerUser(kurz.url, email);
            await createLinks(kurz.url, [{ url: TARGET, custom_code: 'promo' }], token);
            await arriveLoggedIn(page, token, email);
            await page.goto(kurz.url);
            await rowOf(page, 'promo').waitFor();
            expect(await lang(page)).toBe(language);
            expect(await fitsWidth(page)).toBe(true);
            await rowOf(page, 'promo').locator('.edit-button').click();
            await page.locator('#edit-dialog[open]').waitFor();
            for (const section of await page.locator('#edit-dialog summary').all()) {
              await section.click();
            }
            expect(await fitsWidth(page)).toBe(true);
          },
          { locale: language, viewport: { width: 390, height: 844 } },
        );
      },
      TIMEOUT,
    );
  }
});

describe('the language chooser', () => {
  test(
    'switches the page, keeps the choice across a reload, and beats Accept-Language',
    async () => {
      await withKurz(
        browser,
        modeArgs('open'),
        async (kurz, page) => {
          const [link] = await createLinks(kurz.url, [{ url: TARGET, custom_code: 'promo' }]);
          const created = (link as unknown as { created_at: string }).created_at;
          await page.goto(kurz.url);
          expect(await lang(page)).toBe('de');
          const chooser = page.getByLabel('Sprache');
          await chooser.waitFor();
          expect(await chooser.locator('option').allTextContents()).toEqual([
            'English',
            'Deutsch',
            'Français',
            'Español',
          ]);
          expect(await chooser.inputValue()).toBe('de');
          await Promise.all([page.waitForEvent('load'), chooser.selectOption('fr')]);
          await waitForText(page.locator('#shorten-title'), 'Raccourcir un lien', 20_000);
          expect(await lang(page)).toBe('fr');
          expect(await page.evaluate(() => document.cookie)).toContain('kurz-lang=fr');
          // Kept: a reload (whose Accept-Language still says German) stays French.
          await page.reload();
          await waitForText(page.locator('#shorten-title'), 'Raccourcir un lien');
          expect(await page.getByLabel('Langue').inputValue()).toBe('fr');
          // The views' dates follow the chosen language, not the browser's.
          const time = rowOf(page, 'promo').locator('time');
          await time.waitFor();
          const french = await formatted(page, created, 'fr');
          expect(french).not.toBe(await formatted(page, created, 'de'));
          expect(await time.textContent()).toBe(french);
          // And back to English, which the chooser names in its own words.
          await Promise.all([
            page.waitForEvent('load'),
            page.getByLabel('Langue').selectOption('en'),
          ]);
          await waitForText(page.locator('#shorten-title'), 'Shorten a link');
          expect(await lang(page)).toBe('en');
        },
        // The service worker has a test of its own (below); here the page is the server's.
        { locale: 'de-DE', timezoneId: 'UTC', serviceWorkers: 'block' },
      );
    },
    TIMEOUT,
  );
});

describe('the installed app', () => {
  test(
    'starts offline in the language last chosen: each page from the network replaces the kept one',
    async () => {
      await withKurz(
        browser,
        modeArgs('open'),
        async (kurz, page) => {
          await page.goto(kurz.url);
          await page.evaluate(() => navigator.serviceWorker.ready);
          await page.reload();
          await eventually(
            () => page.evaluate(() => navigator.serviceWorker.controller !== null),
            'the service worker controls the page',
          );
          const keptLanguage = () =>
            page.evaluate(async () => {
              const kept = await caches.match('/');
              return kept ? /<html lang="(\w+)"/.exec(await kept.text())?.[1] : undefined;
            });
          await eventually(async () => (await keptLanguage()) === 'de', 'the German page kept');
          await Promise.all([
            page.waitForEvent('load'),
            page.getByLabel('Sprache').selectOption('es'),
          ]);
          await waitForText(page.locator('#shorten-title'), 'Acortar un enlace');
          await eventually(async () => (await keptLanguage()) === 'es', 'the Spanish page kept');
          // Without a network, the kept page: Spanish, not the German one installed first.
          await page.context().setOffline(true);
          await page.reload();
          await waitForText(page.locator('#shorten-title'), 'Acortar un enlace');
          expect(await lang(page)).toBe('es');
          await page.context().setOffline(false);
        },
        { locale: 'de' },
      );
    },
    TIMEOUT,
  );
});

describe('right to left', () => {
  for (const [size, viewport] of SIZES) {
    test(
      `a right-to-left page mirrors (${size})`,
      async () => {
        await withKurz(
          browser,
          modeArgs('open'),
          async (kurz, page) => {
            await createLinks(kurz.url, [{ url: TARGET, custom_code: 'promo' }]);
            await page.goto(kurz.url);
            await rowOf(page, 'promo').waitFor();
            const place = () =>
              page.evaluate(() => {
                const width = document.documentElement.clientWidth;
                const box = (selector: string) => {
                  const rect = document.querySelector(selector)?.getBoundingClientRect();
                  return rect ? { left: rect.left, right: width - rect.right } : null;
                };
                // A column's heading: its text against its cell (text-align: start).
                const heading = (() => {
                  const cell = document.querySelector('th.col-target');
                  const text = document.createRange();
                  text.selectNodeContents(cell);
                  const outer = cell?.getBoundingClientRect();
                  const inner = text.getBoundingClientRect();
                  if (outer === undefined || outer.right === outer.left) return null; // hidden
                  return { left: inner.left - outer.left, right: outer.right - inner.right };
                })();
                const first = document.querySelector('.segmented .option:first-child');
                const style = getComputedStyle(first);
                return {
                  brand: box('.brand'),
                  option: box('.segmented .option:first-child'),
                  heading,
                  rounded: [style.borderTopLeftRadius, style.borderTopRightRadius],
                };
              });
            const ltr = await place();
            // The start edge is the left one: the brand and the first of two options sit at the left.
            expect(ltr.brand?.left).toBeLessThan(ltr.brand?.right ?? 0);
            expect(ltr.option?.left).toBeLessThan(ltr.option?.right ?? 0);
            expect(ltr.rounded).toEqual(['6px', '0px']);
            // The table's headings show at a desktop width (a phone shows cards).
            if (size === 'desktop') expect(ltr.heading?.left).toBeLessThan(ltr.heading?.right ?? 0);
            await page.evaluate(() => {
              document.documentElement.dir = 'rtl';
            });
            const rtl = await place();
            // Mirrored: they sit at the right, the first option rounded on its right.
            expect(rtl.brand?.right).toBeLessThan(rtl.brand?.left ?? 0);
            expect(Math.abs((rtl.brand?.right ?? 0) - (ltr.brand?.left ?? 0))).toBeLessThan(2);
            expect(rtl.option?.right).toBeLessThan(rtl.option?.left ?? 0);
            expect(rtl.rounded).toEqual(['0px', '6px']);
            if (size === 'desktop') expect(rtl.heading?.right).toBeLessThan(rtl.heading?.left ?? 0);
            expect(await fitsWidth(page)).toBe(true);
          },
          { viewport },
        );
      },
      TIMEOUT,
    );
  }
});
