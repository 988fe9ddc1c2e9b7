// The list of links found and ordered by the server, in Chromium against dist/kurz (run
// `bun run build` first; scripts/ensure-chromium.sh installs the browser): text, tag and
// domain filters, the orders, a row's tag chips, a tag's stats, and each link's actions
// on its own domain; in both modes, at a desktop and a phone width.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page, Request } from 'playwright-core';
import { call, eventually } from '../support/binary.ts';
import {
  click,
  createLinks,
  databaseWithDomains,
  HUMAN_AGENT,
  launchBrowser,
  registerUser,
} from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  arriveLoggedIn,
  fitsWidth,
  MODES,
  modeArgs,
  rows,
  SIZES,
  waitForText,
  withKurz,
} from '../support/web-page.ts';

declare const document: { activeElement: { id: string } | null };

const TIMEOUT = 60_000;
const GO = 'https://go.example.com';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** The short links shown, in order, as the rows show them (host/code). */
const shown = (page: Page) => page.locator('#link-rows a.short-link').allTextContents();

/** Waits until the rows show exactly `links` (host/code), in that order. */
async function waitForRows(page: Page, links: string[]) {
  let seen: string[] = [];
  await eventually(
    async () => {
      seen = await shown(page);
      return JSON.stringify(seen) === JSON.stringify(links);
    },
    () => `rows ${JSON.stringify(links)}, seen ${JSON.stringify(seen)}`,
  );
}

/** Does `change`, and returns the query of the list request it caused. */
async function listQuery(page: Page, change: () => Promise<unknown>) {
  const [request] = await Promise.all([
    page.waitForRequest((r: Request) => new URL(r.url()).pathname === '/api/links'),
    change(),
  ]);
  return Object.fromEntries(new URL(request.url()).searchParams);
}

for (const mode of MODES) {
  for (const [size, viewport] of SIZES) {
    describe(`the list, ${mode} mode, ${size} (${viewport.width} px)`, () => {
      test(
        'filters by text, tag and domain, orders by clicks, date or code, shows a tag’s stats; actions on the link’s domain',
        async () => {
          const db = await databaseWithDomains([GO]);
          const args = mode === 'open' ? modeArgs('open') : ['--mode', 'accounts'];
          await withKurz(
            browser,
            [...args, '--db', db],
            async (kurz, page) => {
              const home = `localhost:${kurz.port}`;
              let token: string | undefined;
              if (mode === 'accounts') {
                token = await registerUser(kurz.url, `list-${size}@example.com`);
                await arriveLoggedIn(page, token, `list-${size}@example.com`);
              }
              await createLinks(
                kurz.url,
                [
                  { url: 'https://example.com/alpha', custom_code: 'alpha', tags: ['promo'] },
                  {
                    url: 'https://example.com/beta',
                    custom_code: 'beta',
                    tags: ['promo', 'news'],
                    domain: 'go.example.com',
                  },
                  { url: 'https://example.com/gamma', custom_code: 'gamma' },
                ],
                token,
              );
              await click(kurz.url, 'alpha', 1, { userAgent: HUMAN_AGENT });
              await click(kurz.url, 'beta', 3, { userAgent: HUMAN_AGENT, host: 'go.example.com' });

              // Newest first, each link's short URL on its own domain, its tags as chips.
              const query = await listQuery(page, () => page.goto(kurz.url));
              expect(query).toEqual({ view: 'full', limit: '50', offset: '0' });
              await waitForRows(page, [`${home}/gamma`, 'go.example.com/beta', `${home}/alpha`]);
              const betaRow = rows(page).filter({ hasText: 'go.example.com/beta' });
              expect(await betaRow.locator('.row-tags button').allTextContents()).toEqual([
                'news',
                'promo',
              ]);
              await waitForText(betaRow.locator('.cell-clicks'), '3');

              // The tag select lists the tags with their links; the domain select both domains.
              const tagFilter = page.getByRole('combobox', { name: 'Tag', exact: true });
              await eventually(
                async () => (await tagFilter.locator('option').count()) === 3,
                'the tags listed',
              );
              expect(await tagFilter.locator('option').allTextContents()).toEqual([
                'All tags',
                'news (1)',
                'promo (2)',
              ]);
              const domainFilter = page.locator('#list-filters').getByLabel('Domain');
              await domainFilter.waitFor();
              expect(await domainFilter.locator('option').allTextContents()).toEqual([
                'All domains',
                home,
                'go.example.com',
              ]);
              expect(await fitsWidth(page)).toBe(true);

              // By tag: the server's filter, and the tag's stats at hand.
              expect(await listQuery(page, () => tagFilter.selectOption('promo'))).toMatchObject({
                view: 'full',
                tag: 'promo',
              });
              await waitForRows(page, ['go.example.com/beta', `${home}/alpha`]);
              await waitForText(page.locator('#range'), '1–2 of 2 matching');
              // (The server folds clicks into a tag's day counts within a second or so: wait
              // for them, so the dialog shows what this test clicked.)
              await eventually(async () => {
                const reply = await call(kurz.url, 'GET', '/api/tags/promo/stats', { token });
                return reply.json?.range?.clicks === 4;
              }, 'the tag’s clicks counted');
              const tagStats = page.getByRole('button', { name: 'Stats for tag promo' });
              await tagStats.click();
              const stats = page.getByRole('dialog', { name: 'Stats for tag promo' });
              await stats.waitFor();
              await waitForText(stats.locator('#stats-all-time'), '4'); // 1 + 3
              expect(await stats.locator('#stats-range-total').textContent()).toBe('4');
              expect(await stats.locator('#stats-humans').textContent()).toBe('4 (100%)');
              expect(await stats.getByRole('button', { name: 'Download CSV' }).isVisible()).toBe(
                false,
              );
              expect(await fitsWidth(page)).toBe(true);
              await page.keyboard.press('Escape');
              await stats.waitFor({ state: 'hidden' });
              expect(await page.evaluate(() => document.activeElement?.id)).toBe('tag-stats');

              // A row's chip chooses its tag; "Show all tags" goes back.
              const narrowed = await listQuery(page, () =>
                betaRow.getByRole('button', { name: 'news', exact: true }).click(),
              );
              expect(narrowed.tag).toBe('news');
              await waitForRows(page, ['go.example.com/beta']);
              expect(await tagFilter.inputValue()).toBe('news');
              expect(await page.evaluate(() => document.activeElement?.id)).toBe('filter-tag');
              await page.getByRole('button', { name: 'Show all tags' }).click();
              await waitForRows(page, [`${home}/gamma`, 'go.example.com/beta', `${home}/alpha`]);
              expect(await tagStats.isVisible()).toBe(false);

              // By domain.
              expect(
                await listQuery(page, () => domainFilter.selectOption('go.example.com')),
              ).toMatchObject({ domain: 'go.example.com' });
              await waitForRows(page, ['go.example.com/beta']);
              await domainFilter.selectOption('');
              await waitForRows(page, [`${home}/gamma`, 'go.example.com/beta', `${home}/alpha`]);

              // By text, the server's `q`: a code, or a tag.
              const text = page.getByLabel('Filter', { exact: true });
              expect(await listQuery(page, () => text.fill('gam'))).toMatchObject({ q: 'gam' });
              await waitForRows(page, [`${home}/gamma`]);
              await text.fill('news');
              await waitForRows(page, ['go.example.com/beta']);
              await text.fill('nothing like it');
              await waitForText(page.locator('#list-empty'), 'No links match “nothing like it”.');
              await text.fill('');
              await waitForRows(page, [`${home}/gamma`, 'go.example.com/beta', `${home}/alpha`]);

              // The orders: by clicks (once the server's counts, folded within a second or
              // so, order them), the oldest first, by code.
              await eventually(async () => {
                const reply = await call(
                  kurz.url,
                  'GET',
                  '/api/links?view=full&sort=clicks&order=desc',
                  {
                    token,
                  },
                );
                const codes = (reply.json as { short_code: string }[]).map((l) => l.short_code);
                return codes.join() === 'beta,alpha,gamma';
              }, 'the links ordered by their clicks');
              const order = page.getByLabel('Order', { exact: true });
              expect(await listQuery(page, () => order.selectOption('Most clicks'))).toMatchObject({
                sort: 'clicks',
                order: 'desc',
              });
              await waitForRows(page, ['go.example.com/beta', `${home}/alpha`, `${home}/gamma`]);
              expect(
                await listQuery(page, () => order.selectOption('Fewest clicks')),
              ).toMatchObject({ sort: 'clicks', order: 'asc' });
              await waitForRows(page, [`${home}/gamma`, `${home}/alpha`, 'go.example.com/beta']);
              expect(await listQuery(page, () => order.selectOption('Oldest first'))).toMatchObject(
                { sort: 'created', order: 'asc' },
              );
              await waitForRows(page, [`${home}/alpha`, 'go.example.com/beta', `${home}/gamma`]);
              await order.selectOption('Short code, A to Z');
              await waitForRows(page, [`${home}/alpha`, 'go.example.com/beta', `${home}/gamma`]);
              // Filters and order together.
              await tagFilter.selectOption('promo');
              await order.selectOption('Most clicks');
              await waitForRows(page, ['go.example.com/beta', `${home}/alpha`]);
              expect(await fitsWidth(page)).toBe(true);

              // A link on another domain: its stats, CSV and deletion name that domain.
              await page.getByRole('button', { name: 'Stats for go.example.com/beta' }).click();
              const linkStats = page.getByRole('dialog', { name: 'Stats for go.example.com/beta' });
              await waitForText(linkStats.locator('#stats-all-time'), '3');
              expect(await linkStats.locator('#stats-target').textContent()).toBe(
                'go.example.com/beta → https://example.com/beta',
              );
              const [download] = await Promise.all([
                page.waitForEvent('download'),
                linkStats.getByRole('button', { name: 'Download CSV' }).click(),
              ]);
              expect(download.suggestedFilename()).toBe('go.example.com-beta-clicks.csv');
              await page.keyboard.press('Escape');
              await page.getByRole('button', { name: 'Delete go.example.com/beta' }).click();
              const confirm = page.getByRole('dialog', { name: 'Delete go.example.com/beta?' });
              await confirm.waitFor();
              expect(await confirm.locator('#delete-what').textContent()).toStartWith(
                `${GO}/beta will stop working at once`,
              );
              const adminField = confirm.getByLabel('Admin token');
              if (await adminField.isVisible()) await adminField.fill(ADMIN_TOKEN);
              const [deleted] = await Promise.all([
                page.waitForResponse((r) => r.request().method() === 'DELETE'),
                confirm.getByRole('button', { name: 'Delete' }).click(),
              ]);
              expect(deleted.url()).toBe(`${kurz.url}/api/links/beta?domain=go.example.com`);
              expect(deleted.status()).toBe(204);
              await waitForRows(page, [`${home}/alpha`]);
              await waitForText(page.locator('#list-status'), 'Deleted go.example.com/beta.');
              // The tag list follows: news is gone, promo has one link left.
              await eventually(
                async () =>
                  JSON.stringify(await tagFilter.locator('option').allTextContents()) ===
                  JSON.stringify(['All tags', 'promo (1)']),
                'the tags listed again',
              );
              const left = await call(kurz.url, 'GET', '/api/links', { token });
              expect(
                (left.json as { short_code: string }[]).map((l) => l.short_code).sort(),
              ).toEqual(['alpha', 'gamma']);
            },
            { viewport, acceptDownloads: true },
          );
        },
        TIMEOUT,
      );
    });
  }
}

for (const mode of MODES) {
  for (const [size, viewport] of SIZES) {
    describe(`the list of a text that many links hold, ${mode} mode, ${size} (${viewport.width} px)`, () => {
      test(
        'the summary says the count stopped at its bound ("2,000+"), and Next goes on',
        async () => {
          await withKurz(
            browser,
            ['--mode', mode, '--rate-limits', 'off'],
            async (kurz, page) => {
              let token: string | undefined;
              if (mode === 'accounts') {
                token = await registerUser(kurz.url, 'many@example.com');
                await arriveLoggedIn(page, token, 'many@example.com');
              }
              for (let at = 0; at < 2100; at += 700) {
                const links = Array.from({ length: 700 }, (_, i) => ({
                  url: `https://example.com/spring/${at + i}`,
                }));
                const reply = await call(kurz.url, 'POST', '/api/links/bulk', {
                  json: { links },
                  token,
                });
                expect(reply.status).toBe(200);
              }
              await page.goto(kurz.url);
              await waitForText(page.locator('#range'), '1–50 of 2,100');
              await page.getByLabel('Filter', { exact: true }).fill('spring');
              await waitForText(page.locator('#range'), '1–50 of 2,000+ matching');
              const next = page.getByRole('button', { name: 'Next' });
              expect(await next.getAttribute('aria-disabled')).toBe('false');
              await next.click();
              await waitForText(page.locator('#range'), '51–100 of 2,050+ matching');
              expect(await fitsWidth(page)).toBe(true);
            },
            { viewport },
          );
        },
        TIMEOUT,
      );
    });
  }
}
