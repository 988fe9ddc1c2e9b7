// The shorten form's choices, in Chromium against dist/kurz (run `bun run build` first;
// scripts/ensure-chromium.sh installs the browser): the domain picker (only with two
// domains or more), tags as chips, the UTM builder that shows the target it sends, and
// "Paste many" through the bulk endpoint; in both modes, at a desktop and a phone width.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { call, eventually, type Running } from '../support/binary.ts';
import { databaseWithDomains, launchBrowser, registerUser } from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  arriveLoggedIn,
  fitsWidth,
  MODES,
  type Mode,
  modeArgs,
  register,
  rowOf,
  SIZES,
  waitForText,
  withKurz,
} from '../support/web-page.ts';

// Page globals of the functions given to evaluate() (no DOM library in the tsconfig).
declare const document: { activeElement: { id: string } | null };
declare const localStorage: { getItem(key: string): string | null };
declare const navigator: { clipboard: { readText(): Promise<string> } };

const TIMEOUT = 90_000; // paste many fills the box with 1,001 lines
const GO = 'https://go.example.com';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** Opens the page logged in (accounts mode, an account made through the API); its token. */
async function arrive(page: Page, kurz: Running, mode: Mode, email: string) {
  let token: string | undefined;
  if (mode === 'accounts') {
    token = await registerUser(kurz.url, email);
    await arriveLoggedIn(page, token, email);
  }
  await page.goto(kurz.url);
  await page.locator('#list-empty, #links').first().waitFor();
  return token;
}

/** The tags of the chips in `scope`, in order. */
const chipsIn = (scope: Locator) =>
  scope.locator('.chip').evaluateAll((chips) => chips.map((chip) => chip.firstChild?.textContent));

/** The row of the link whose short URL is exactly `url` (a code may be on two domains). */
const rowOfUrl = (page: Page, url: string) =>
  page.locator('#link-rows tr').filter({ has: page.locator(`a.short-link[href="${url}"]`) });

/**
 * Pastes `text` into a text box as one insertion, as the clipboard does. Playwright's
 * fill() inserts a thousand lines as typed text, which takes Chromium tens of seconds
 * on a busy machine; a paste is what people do with that many lines.
 */
async function paste(box: Locator, text: string) {
  await box.evaluate((element, value) => {
    // The page's textarea (the DOM's types are not the tests').
    const area = element as unknown as { focus(): void; value: string } & EventTarget;
    area.focus();
    area.value = value;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}

async function waitForChips(scope: Locator, tags: string[]) {
  let seen: unknown[] = [];
  await eventually(
    async () => {
      seen = await chipsIn(scope);
      return JSON.stringify(seen) === JSON.stringify(tags);
    },
    () => `chips ${JSON.stringify(tags)}, seen ${JSON.stringify(seen)}`,
  );
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);

/** Presses Save in the Edit dialog (with the admin token when asked) and returns what was sent. */
async function saveEdit(page: Page, edit: Locator) {
  const token = edit.getByLabel('Admin token');
  if (await token.isVisible()) await token.fill(ADMIN_TOKEN);
  const [request] = await Promise.all([
    page.waitForRequest((request) => request.method() === 'PATCH'),
    edit.getByRole('button', { name: 'Save' }).click(),
  ]);
  await edit.waitFor({ state: 'hidden' });
  return { url: request.url(), body: request.postDataJSON() };
}

async function openEdit(page: Page, name: string) {
  await page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
  const edit = page.getByRole('dialog', { name: `Edit ${name}` });
  await edit.waitFor();
  return edit;
}

for (const mode of MODES) {
  for (const [size, viewport] of SIZES) {
    describe(`the shorten form, ${mode} mode, ${size} (${viewport.width} px)`, () => {
      test(
        'a link on the chosen domain, with tags as chips and UTM parameters composed in sight; its tags edited',
        async () => {
          const db = await databaseWithDomains([GO]);
          await withKurz(
            browser,
            [...modeArgs(mode), '--db', db],
            async (kurz, page) => {
              const home = `http://localhost:${kurz.port}`; // the default domain
              let token: string | undefined;
              await page.goto(kurz.url);
              if (mode === 'accounts') {
                await register(page, `${size}@example.com`);
                token = (await page.evaluate(() => localStorage.getItem('kurz.token'))) ?? '';
              }
              const form = page.locator('#shorten-form');

              // Two domains: the picker shows them, the default one first and chosen.
              const domain = form.getByLabel('Domain');
              await domain.waitFor();
              expect(await domain.locator('option').allTextContents()).toEqual([
                `localhost:${kurz.port}`,
                'go.example.com',
              ]);
              expect(await domain.inputValue()).toBe(`localhost:${kurz.port}`);
              await page
                .getByLabel('URL', { exact: true })
                .fill('https://example.com/spring?ref=home&utm_source=old#offer');
              await form.getByLabel('Custom code').fill('spring');
              await domain.selectOption('go.example.com');

              // Tags: Enter or a comma makes a chip (lower-cased); a broken rule is said and
              // the text kept; × and Backspace take one away.
              const tags = form.getByRole('textbox', { name: 'Tags', exact: true });
              const chips = form.locator('#tags-chips');
              await tags.fill('Promo');
              await tags.press('Enter');
              await tags.pressSequentially('q4,temp,');
              expect(await chipsIn(chips)).toEqual(['promo', 'q4', 'temp']);
              expect(await tags.inputValue()).toBe('');
              await tags.fill('no spaces');
              await tags.press('Enter');
              await waitForText(
                form.locator('#tags-error'),
                '“no spaces” is not a tag: use 1 to 32 letters, digits, - and _.',
              );
              expect(await form.locator('#tags-error').getAttribute('role')).toBe('alert');
              expect(await tags.inputValue()).toBe('no spaces');
              await tags.fill('');
              await form.getByRole('button', { name: 'Remove tag temp' }).click();
              expect(await chipsIn(chips)).toEqual(['promo', 'q4']);
              expect(await focusedId(page)).toBe('tags');
              await tags.pressSequentially('extra,');
              await tags.press('Backspace');
              expect(await chipsIn(chips)).toEqual(['promo', 'q4']);
              await waitForText(form.locator('#tags-status'), 'Removed tag extra.');

              // UTM parameters: the target to be sent shows under the URL as they are typed,
              // the old utm_source replaced, values encoded, the fragment kept.
              const preview = page.locator('#utm-url');
              expect(await preview.isVisible()).toBe(false);
              await form.getByText('Add UTM parameters').click();
              await form.getByLabel('utm_source').fill('news letter');
              await form.getByLabel('utm_medium').fill('email');
              await form.getByLabel('utm_campaign').fill('spring&sale');
              const composed =
                'https://example.com/spring?ref=home&utm_source=news%20letter&utm_medium=email&utm_campaign=spring%26sale#offer';
              await waitForText(preview, composed);
              expect(await preview.isVisible()).toBe(true);
              expect(await form.locator('#utm-summary').textContent()).toBe(
                'UTM parameters (3 added)',
              );
              expect(await fitsWidth(page)).toBe(true);

              // Sent: the URL shown, the domain chosen, the chips.
              const [request] = await Promise.all([
                page.waitForRequest(
                  (r) => r.method() === 'POST' && r.url().endsWith('/api/shorten'),
                ),
                form.getByRole('button', { name: 'Shorten', exact: true }).click(),
              ]);
              expect(request.postDataJSON()).toEqual({
                url: composed,
                custom_code: 'spring',
                domain: 'go.example.com',
                tags: ['promo', 'q4'],
              });
              await waitForText(page.locator('#result-link'), `${GO}/spring`);
              await page.locator('#qr[src^="blob:"]').waitFor(); // its QR code, on that domain
              // Ready for the next link: no chips, no UTM parameters, the domain kept.
              expect(await chipsIn(chips)).toEqual([]);
              expect(await preview.isVisible()).toBe(false);
              expect(await domain.inputValue()).toBe('go.example.com');
              const detail = await call(
                kurz.url,
                'GET',
                '/api/links/spring?domain=go.example.com',
                {
                  token,
                },
              );
              expect(detail.json).toMatchObject({
                original_url: composed,
                short_url: `${GO}/spring`,
                domain: 'go.example.com',
                tags: ['promo', 'q4'],
              });

              // The same code on the default domain is another link.
              await domain.selectOption(`localhost:${kurz.port}`);
              await page.getByLabel('URL', { exact: true }).fill('https://example.com/other');
              await form.getByLabel('Custom code').fill('spring');
              const [second] = await Promise.all([
                page.waitForRequest(
                  (r) => r.method() === 'POST' && r.url().endsWith('/api/shorten'),
                ),
                form.getByRole('button', { name: 'Shorten', exact: true }).click(),
              ]);
              expect(second.postDataJSON()).toEqual({
                url: 'https://example.com/other',
                custom_code: 'spring',
              });
              await waitForText(page.locator('#result-link'), `${home}/spring`);

              // Both listed, each with its own short URL and tags.
              const goRow = rowOfUrl(page, `${GO}/spring`);
              const homeRow = rowOfUrl(page, `${home}/spring`);
              await goRow.waitFor();
              await homeRow.waitFor();
              expect(await goRow.locator('a.short-link').textContent()).toBe(
                'go.example.com/spring',
              );
              await waitForChips(goRow.locator('.row-tags'), ['promo', 'q4']);
              expect(await chipsIn(homeRow.locator('.row-tags'))).toEqual([]);

              // Edit: the chips of the link, changed and sent whole, on its domain.
              let edit = await openEdit(page, 'go.example.com/spring');
              const editChips = edit.locator('#edit-tags-chips');
              expect(await chipsIn(editChips)).toEqual(['promo', 'q4']);
              await edit.getByRole('button', { name: 'Remove tag q4' }).click();
              await edit.getByRole('textbox', { name: 'Tags', exact: true }).fill('summer'); // typed, not yet a chip
              expect(await fitsWidth(page)).toBe(true);
              let saved = await saveEdit(page, edit);
              expect(saved.url).toBe(`${kurz.url}/api/links/spring?domain=go.example.com`);
              expect(saved.body).toEqual({ tags: ['promo', 'summer'] });
              await waitForChips(goRow.locator('.row-tags'), ['promo', 'summer']);
              await waitForText(page.locator('#list-status'), 'Saved go.example.com/spring.');

              // They persist: a reload shows them, and the dialog opens with them.
              await page.reload();
              await waitForChips(rowOfUrl(page, `${GO}/spring`).locator('.row-tags'), [
                'promo',
                'summer',
              ]);
              edit = await openEdit(page, 'go.example.com/spring');
              expect(await chipsIn(edit.locator('#edit-tags-chips'))).toEqual(['promo', 'summer']);
              // All removed: null clears the set.
              await edit.getByRole('button', { name: 'Remove tag promo' }).click();
              await edit.getByRole('button', { name: 'Remove tag summer' }).click();
              saved = await saveEdit(page, edit);
              expect(saved.body).toEqual({ tags: null });
              await waitForChips(rowOfUrl(page, `${GO}/spring`).locator('.row-tags'), []);
              const cleared = await call(
                kurz.url,
                'GET',
                '/api/links/spring?domain=go.example.com',
                { token },
              );
              expect(cleared.json.tags).toEqual([]);
            },
            { viewport },
          );
        },
        TIMEOUT,
      );

      test(
        'paste many: one call for every line, each line’s answer, the refused ones kept to correct',
        async () => {
          await withKurz(
            browser,
            modeArgs(mode),
            async (kurz, page) => {
              const token = await arrive(page, kurz, mode, `many-${size}@example.com`);
              // One domain: no picker, in the form or the list.
              expect(await page.locator('#domain-field').isVisible()).toBe(false);
              expect(await page.locator('#filter-domain-field').isVisible()).toBe(false);

              await page.getByText('Paste many').click();
              expect(await page.getByLabel('Paste many').isChecked()).toBe(true);
              expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(false);
              expect(await page.getByLabel('Custom code').isVisible()).toBe(false);
              const box = page.getByLabel('URLs', { exact: true });
              await box.fill(
                [
                  'https://example.com/one',
                  '',
                  'not a url',
                  '  https://example.com/three  ',
                  '',
                ].join('\n'),
              );
              await waitForText(page.locator('#bulk-count'), '3 URLs');
              const tags = page.getByRole('textbox', { name: 'Tags', exact: true });
              await tags.fill('batch');
              await tags.press('Enter');
              expect(await fitsWidth(page)).toBe(true);

              const [request] = await Promise.all([
                page.waitForRequest((r) => r.url().endsWith('/api/links/bulk')),
                page.getByRole('button', { name: 'Shorten all' }).click(),
              ]);
              expect(request.method()).toBe('POST');
              expect(request.postDataJSON()).toEqual({
                links: [
                  { url: 'https://example.com/one', tags: ['batch'] },
                  { url: 'not a url', tags: ['batch'] },
                  { url: 'https://example.com/three', tags: ['batch'] },
                ],
              });
              const summary = page.locator('#bulk-summary');
              await waitForText(
                summary,
                '2 created, 1 failed. The failed line is left in the box to correct and send again.',
              );
              expect(await summary.getAttribute('role')).toBe('status');
              // A line each, numbered as in the box (blank lines skipped).
              const lines = page.locator('#bulk-lines li');
              expect(
                await lines.evaluateAll((items) => items.map((li) => li.getAttribute('value'))),
              ).toEqual(['1', '3', '4']);
              expect(await lines.nth(1).locator('.bulk-target').textContent()).toBe('not a url');
              expect(await lines.nth(1).locator('.bulk-error').textContent()).toBe(
                'URL must start with http:// or https://',
              );
              const made = await lines
                .locator('a.short-link')
                .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
              expect(made).toHaveLength(2);
              for (const url of made) {
                expect(url).toMatch(new RegExp(`^http://localhost:${kurz.port}/[A-Za-z0-9]{7}$`));
              }
              expect(await box.inputValue()).toBe('not a url');
              expect(await fitsWidth(page)).toBe(true);

              // Made, tagged, and listed.
              for (const url of made) {
                const row = rowOf(page, url.split('/').pop() ?? '');
                await row.waitFor();
                await waitForChips(row.locator('.row-tags'), ['batch']);
              }
              const listed = await call(kurz.url, 'GET', '/api/links', { token });
              expect(
                (listed.json as { original_url: string }[]).map((l) => l.original_url).sort(),
              ).toEqual(['https://example.com/one', 'https://example.com/three']);

              // Copy: a line's short link, or all of them, one a line.
              if (size === 'desktop') {
                await page.getByRole('button', { name: `Copy ${made[0]}` }).click();
                await waitForText(page.locator('#bulk-status'), `Copied ${made[0]}`);
                expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(made[0]);
                await page.getByRole('button', { name: 'Copy all short links' }).click();
                await waitForText(
                  page.locator('#bulk-status'),
                  'Copied 2 short links, one a line.',
                );
                expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
                  made.join('\n'),
                );
              }

              // The refused line, corrected, sent again with the same tags, kept for it.
              expect(await chipsIn(page.locator('#tags-chips'))).toEqual(['batch']);
              await box.fill('https://example.com/two');
              const [again] = await Promise.all([
                page.waitForRequest((r) => r.url().endsWith('/api/links/bulk')),
                page.getByRole('button', { name: 'Shorten all' }).click(),
              ]);
              expect(again.postDataJSON()).toEqual({
                links: [{ url: 'https://example.com/two', tags: ['batch'] }],
              });
              await waitForText(summary, '1 created, 0 failed.');
              expect(await box.inputValue()).toBe('');
              expect(await chipsIn(page.locator('#tags-chips'))).toEqual([]);
              await waitForText(page.locator('#range'), '1–3 of 3');

              // Over 1,000 lines: said, and nothing sent.
              let sent = 0;
              page.on('request', (r) => {
                if (r.url().endsWith('/api/links/bulk')) sent++;
              });
              await paste(
                box,
                Array.from({ length: 1001 }, (_, i) => `https://example.com/m/${i}`).join('\n'),
              );
              await waitForText(page.locator('#bulk-count'), '1,001 URLs: too many');
              await page.getByRole('button', { name: 'Shorten all' }).click();
              await waitForText(
                page.locator('#shorten-error'),
                'At most 1,000 URLs at a time: this has 1,001.',
              );
              expect(sent).toBe(0);

              // Back to one link: its fields again, the lines' answers still shown.
              await page.getByText('One link').click();
              expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(true);
              expect(await box.isVisible()).toBe(false);
              expect(
                await page.getByRole('button', { name: 'Shorten', exact: true }).isVisible(),
              ).toBe(true);
            },
            {
              viewport,
              permissions: size === 'desktop' ? ['clipboard-read', 'clipboard-write'] : [],
            },
          );
        },
        TIMEOUT,
      );
    });
  }
}

describe('paste many, the most lines at once', () => {
  test(
    '1,000 lines make 1,000 links in one call',
    async () => {
      await withKurz(
        browser,
        ['--mode', 'open', '--rate-limits', 'off'],
        async (kurz, page) => {
          await page.goto(kurz.url);
          await page.getByText('No links yet.', { exact: false }).waitFor();
          await page.getByText('Paste many').click();
          await paste(
            page.getByLabel('URLs', { exact: true }),
            Array.from({ length: 1000 }, (_, i) => `https://example.com/n/${i}`).join('\n'),
          );
          await waitForText(page.locator('#bulk-count'), '1,000 URLs');
          let calls = 0;
          page.on('request', (r) => {
            if (r.url().endsWith('/api/links/bulk')) calls++;
          });
          await page.getByRole('button', { name: 'Shorten all' }).click();
          await waitForText(page.locator('#bulk-summary'), '1,000 created, 0 failed.', 30_000);
          expect(calls).toBe(1);
          expect(await page.locator('#bulk-lines li').count()).toBe(1000);
          expect(await page.getByLabel('URLs', { exact: true }).inputValue()).toBe('');
          await waitForText(page.locator('#range'), '1–50 of 1,000');
        },
        { viewport: { width: 1280, height: 800 } },
      );
    },
    TIMEOUT,
  );
});

describe('the UTM builder’s composition (utm.js, in the page)', () => {
  test(
    'adds what is given, replaces the same names, keeps the rest as written',
    async () => {
      await withKurz(browser, ['--mode', 'open'], async (kurz, page) => {
        await page.goto(kurz.url);
        const compose = (url: string, values: Record<string, string>) =>
          page.evaluate(
            async ([path, url, values]) => {
              const { withUtm } = await import(path as string);
              return withUtm(url, values);
            },
            ['/assets/utm.js', url, values] as const,
          );
        const cases: [string, Record<string, string>, string | null][] = [
          // Nothing given: the URL as it is, whatever it is.
          ['https://example.com/a?b=1', { utm_source: '  ' }, 'https://example.com/a?b=1'],
          ['not a url', {}, 'not a url'],
          // Given, to no web URL: nothing composed.
          ['example.com/a', { utm_source: 'x' }, null],
          ['', { utm_source: 'x' }, null],
          // No query yet; values trimmed and encoded; the fixed order of the five.
          [
            'https://example.com',
            { utm_content: 'b/c', utm_source: ' news ', utm_term: 'a+b' },
            'https://example.com?utm_source=news&utm_term=a%2Bb&utm_content=b%2Fc',
          ],
          // Same names replaced whatever their case or encoding; others kept byte for byte.
          [
            'https://example.com/p?UTM_SOURCE=old&q=a%20b+c&utm%5Fmedium=old&utm_campaign=kept&#top',
            { utm_source: 'new', utm_medium: 'mail' },
            'https://example.com/p?q=a%20b+c&utm_campaign=kept&utm_source=new&utm_medium=mail#top',
          ],
          // Non-ASCII and reserved characters encoded.
          [
            'HTTPS://example.com/x#a?b',
            { utm_campaign: 'Frühling & Sommer?' },
            'HTTPS://example.com/x?utm_campaign=Fr%C3%BChling%20%26%20Sommer%3F#a?b',
          ],
        ];
        for (const [url, values, expected] of cases) {
          expect(await compose(url, values)).toBe(expected);
        }
      });
    },
    TIMEOUT,
  );
});
