// The Edit dialog's redirect rules, A/B split and preview card, and the Stats dialog's
// routes, in Chromium against dist/kurz (run `bun run build` first;
// scripts/ensure-chromium.sh installs the browser): rules built by keyboard and mouse,
// moved, saved and followed by the redirect; a split refused until it adds up to 100; a
// card drawn as it is typed, and an automatic one's state; in both modes, at a desktop
// and a phone width.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { call, eventually, type Running } from '../support/binary.ts';
import {
  click,
  createLinks,
  HUMAN_AGENT,
  launchBrowser,
  registerUser,
} from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  arriveLoggedIn,
  fitsWidth,
  MODES,
  type Mode,
  modeArgs,
  rowOf,
  SIZES,
  waitForText,
  withKurz,
} from '../support/web-page.ts';

// Page globals of the functions given to evaluate (the tsconfig has no DOM library).
interface PageElement {
  id: string;
  getAttribute(name: string): string | null;
}
declare const document: { activeElement: PageElement | null };

const TIMEOUT = 60_000;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
/** A card's picture, served for its https address by the page's own route (no network here). */
const PICTURE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="63"><rect width="120" height="63" fill="#1d4fd8"/></svg>';

let browser: Browser;
/**
 * Where the test links point: a site of its own on this machine. /card is a page with a
 * card of its own, /missing answers 404, and /slow never answers (its read stays pending
 * until kurz gives up on it).
 */
let site: ReturnType<typeof Bun.serve>;
let TARGET = '';
beforeAll(async () => {
  site = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === '/card') {
        return new Response(
          '<!doctype html><html><head><title>Spring</title>' +
            '<meta property="og:title" content="Read from the page">' +
            '<meta property="og:description" content="The page’s own card">' +
            '<meta property="og:image" content="https://example.com/page-card.png">' +
            '</head><body>Spring</body></html>',
          { headers: { 'content-type': 'text/html; charset=utf-8' } },
        );
      }
      if (path === '/missing') return new Response('gone', { status: 404 });
      if (path === '/slow') return new Promise<Response>(() => {});
      return Response.json('Target reached');
    },
  });
  TARGET = `http://127.0.0.1:${site.port}`;
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
}, 30_000);

/** Each test: its viewport, a known time zone (Berlin: UTC+1 in January). */
const contextAt = (viewport: { width: number; height: number }): BrowserContextOptions => ({
  viewport,
  timezoneId: 'Europe/Berlin',
});

/**
 * Starts kurz in `mode` (open mode with an admin token, so links can be changed), with a
 * logged-in page in accounts mode; `body` gets the token for API calls (none in open mode).
 */
function withMode(
  mode: Mode,
  viewport: { width: number; height: number },
  body: (kurz: Running, page: Page, token: string | undefined) => Promise<void>,
  args: string[] = [],
) {
  return withKurz(
    browser,
    [...modeArgs(mode), ...args],
    async (kurz, page) => {
      let token: string | undefined;
      if (mode === 'accounts') {
        token = await registerUser(kurz.url, 'routes@example.com');
        await arriveLoggedIn(page, token, 'routes@example.com');
      }
      await body(kurz, page, token);
    },
    contextAt(viewport),
  );
}

async function openEdit(page: Page, code: string) {
  await page.getByRole('button', { name: `Edit ${code}`, exact: true }).click();
  const edit = page.getByRole('dialog', { name: `Edit ${code}` });
  await edit.waitFor();
  return edit;
}

/** Opens a section of the dialog by its summary and returns it. */
async function openSection(edit: Locator, name: string) {
  const section = edit.locator('details.edit-section', {
    has: edit.page().locator('summary', { hasText: name }),
  });
  await section.locator('summary').click();
  expect(await section.getAttribute('open')).not.toBeNull();
  return section;
}

/** The text beside a section's name: what it holds. */
const stateOf = (section: Locator) => section.locator('.edit-section-state').textContent();

/** Open mode asks for the admin token once a tab; fills it in when asked. */
async function fillAdminToken(edit: Locator) {
  const field = edit.getByLabel('Admin token');
  if (await field.isVisible()) await field.fill(ADMIN_TOKEN);
}

/** Presses Save and returns the JSON of the PATCH it sent. */
async function save(page: Page, edit: Locator) {
  await fillAdminToken(edit);
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

/** The accessible name of the focused element (its aria-label, else its id). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element?.getAttribute('aria-label') ?? element?.id ?? null;
  });

/** Waits until the focused element is the one `locator` finds. */
async function waitForFocusOn(locator: Locator) {
  await eventually(
    () => locator.evaluate((element) => element === document.activeElement),
    'focus on the expected control',
  );
}

/** Where the short link sends a visitor with `userAgent`: its Location. */
async function locationFor(base: string, code: string, userAgent: string) {
  const reply = await fetch(`${base}/${code}`, {
    redirect: 'manual',
    headers: { 'user-agent': userAgent },
  });
  expect(reply.status).toBe(307);
  return reply.headers.get('location');
}

const details = async (base: string, code: string, token: string | undefined) =>
  (await call(base, 'GET', `/api/links/${code}`, { token })).json;

/** The target URLs of the rules shown, in order. */
const ruleTargets = (section: Locator) =>
  section
    .locator('.rule')
    .evaluateAll((rules) =>
      rules.map((rule) => (rule.querySelector('input[type="url"]') as { value: string }).value),
    );

for (const mode of MODES) {
  for (const [size, viewport] of SIZES) {
    describe(`the Edit dialog's routing, ${mode} mode, ${size} (${viewport.width} px)`, () => {
      test(
        'two rules built by keyboard and mouse, moved with their buttons, saved as built and followed',
        async () => {
          await withMode(mode, viewport, async (kurz, page, token) => {
            await createLinks(kurz.url, [{ url: `${TARGET}/home`, custom_code: 'app' }], token);
            await page.goto(kurz.url);
            await rowOf(page, 'app').waitFor();
            let edit = await openEdit(page, 'app');
            let rules = await openSection(edit, 'Redirect rules');
            expect(await stateOf(rules)).toBe('none');
            await waitForText(rules.locator('.section-add > .hint'), '0 of 20 rules');

            // Rule 1, by mouse: a target, a device, a country and a query parameter.
            await rules.getByRole('button', { name: 'Add a rule' }).click();
            const first = rules.locator('.rule').nth(0);
            await waitForFocusOn(first.getByLabel('Rule 1 Target URL'));
            await first.getByLabel('Rule 1 Target URL').fill(`${TARGET}/mobile`);
            expect(await first.getByLabel('Rule 1 Condition 1').inputValue()).toBe('device');
            expect(await first.getByLabel('Device', { exact: true }).inputValue()).toBe('mobile');
            await first.getByRole('button', { name: 'Add a condition to rule 1' }).click();
            await first.getByLabel('Rule 1 Condition 2').selectOption('Country');
            await first.getByLabel('Country code').fill('XX'); // no such country: refused below
            await first.getByRole('button', { name: 'Add a condition to rule 1' }).click();
            await first.getByLabel('Rule 1 Condition 3').selectOption('Query parameter');
            await first.getByLabel('Parameter').fill('ref');
            await waitForText(first.locator('.section-add > .hint'), '3 of 10 conditions');

            // Rule 2, by keyboard: iOS, a person, from a time (in Berlin's zone).
            await rules.getByRole('button', { name: 'Add a rule' }).focus();
            await page.keyboard.press('Enter');
            const second = rules.locator('.rule').nth(1);
            await waitForFocusOn(second.getByLabel('Rule 2 Target URL'));
            await page.keyboard.type(`${TARGET}/iphone`);
            await page.keyboard.press('Tab'); // the type of condition 1
            await page.keyboard.press('ArrowDown'); // Device → Operating system
            expect(await second.getByLabel('Rule 2 Condition 1').inputValue()).toBe('os');
            expect(await second.getByLabel('System').inputValue()).toBe('ios');
            await page.keyboard.press('Tab'); // System (iOS, the first)
            await page.keyboard.press('Tab'); // Remove
            await page.keyboard.press('Tab'); // Add a condition to rule 2
            await page.keyboard.press('Enter');
            await waitForFocusOn(second.getByLabel('Rule 2 Condition 2'));
            await page.keyboard.press('End'); // the last type: Bot or person
            await page.keyboard.press('Tab');
            await page.keyboard.press('ArrowDown'); // A bot or crawler → A person
            expect(await second.getByLabel('Visitor').inputValue()).toBe('false');
            await page.keyboard.press('Tab'); // Remove
            await page.keyboard.press('Tab'); // Add a condition to rule 2
            await page.keyboard.press(' ');
            await waitForFocusOn(second.getByLabel('Rule 2 Condition 3'));
            await page.keyboard.press('f'); // From a time
            expect(await second.getByLabel('Rule 2 Condition 3').inputValue()).toBe('after');
            await second.getByLabel('From', { exact: true }).fill('2020-01-01T10:30');
            expect(await stateOf(rules)).toBe('2 rules');
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/mobile`, `${TARGET}/iphone`]);

            // Moved by keyboard: focus stays on the moved rule's button, named for its place.
            const upOfSecond = rules.getByRole('button', { name: 'Move rule 2 up' });
            await upOfSecond.focus();
            await page.keyboard.press('Enter');
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/iphone`, `${TARGET}/mobile`]);
            expect(await focused(page)).toBe('Move rule 1 up');
            expect(await upOfSecond.count()).toBe(1); // now the other rule's
            expect(
              await rules
                .getByRole('button', { name: 'Move rule 1 up' })
                .getAttribute('aria-disabled'),
            ).toBe('true');
            await waitForText(rules.getByRole('status'), 'Rule 2 moved up: it is now rule 1.');
            // At the top, Up does nothing and keeps focus.
            await page.keyboard.press('Enter');
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/iphone`, `${TARGET}/mobile`]);
            expect(await focused(page)).toBe('Move rule 1 up');
            // By mouse, down and back up by keyboard again.
            await rules.getByRole('button', { name: 'Move rule 1 down' }).click();
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/mobile`, `${TARGET}/iphone`]);
            expect(await focused(page)).toBe('Move rule 2 down');
            await page.keyboard.press('Shift+Tab');
            expect(await focused(page)).toBe('Move rule 2 up');
            await page.keyboard.press(' ');
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/iphone`, `${TARGET}/mobile`]);
            expect(await focused(page)).toBe('Move rule 1 up');

            // A third rule to the limit of conditions, then removed.
            await rules.getByRole('button', { name: 'Add a rule' }).click();
            const third = rules.locator('.rule').nth(2);
            const addToThird = third.getByRole('button', { name: 'Add a condition to rule 3' });
            for (let i = 1; i < 10; i++) await addToThird.click();
            await waitForText(third.locator('.section-add > .hint'), '10 of 10 conditions');
            expect(await addToThird.isDisabled()).toBe(true);
            expect(await fitsWidth(page)).toBe(true);
            await third.getByRole('button', { name: 'Remove rule 3' }).click();
            expect(await focused(page)).toBe('Remove rule 2');
            expect(await rules.locator('.rule').count()).toBe(2);

            // The server refuses the country, naming its place; the field is pointed at.
            expect(await fitsWidth(page)).toBe(true);
            await save(page, edit);
            await waitForText(
              edit.getByRole('alert'),
              'rules[1].conditions[1]: country must be a two-letter ISO 3166 country code, such as DE',
            );
            await waitForFocusOn(rules.locator('.rule').nth(1).getByLabel('Country code'));
            await page.keyboard.press('Control+A');
            await page.keyboard.type('de'); // sent upper-cased, as kept

            const expected = [
              {
                url: `${TARGET}/iphone`,
                conditions: [
                  { type: 'os', value: 'ios' },
                  { type: 'bot', value: false },
                  { type: 'after', value: '2020-01-01T09:30:00.000Z' },
                ],
              },
              {
                url: `${TARGET}/mobile`,
                conditions: [
                  { type: 'device', value: 'mobile' },
                  { type: 'country', value: 'DE' },
                  { type: 'query', name: 'ref' },
                ],
              },
            ];
            expect(await saveOk(page, edit)).toEqual({ rules: expected });
            await waitForText(page.locator('#list-status'), 'Saved app.');
            expect((await details(kurz.url, 'app', token)).rules).toEqual(expected);

            // Followed: an iPhone goes by rule 1, a desktop to the link's own target.
            expect(await locationFor(kurz.url, 'app', IPHONE)).toBe(`${TARGET}/iphone`);
            expect(await locationFor(kurz.url, 'app', HUMAN_AGENT)).toBe(`${TARGET}/home`);

            // Opened again: as saved, the time in the viewer's zone; unchanged, nothing sent.
            edit = await openEdit(page, 'app');
            rules = await openSection(edit, 'Redirect rules');
            expect(await stateOf(rules)).toBe('2 rules');
            expect(await ruleTargets(rules)).toEqual([`${TARGET}/iphone`, `${TARGET}/mobile`]);
            expect(await rules.getByLabel('From', { exact: true }).inputValue()).toBe(
              '2020-01-01T10:30',
            );
            expect(await rules.getByLabel('Country code').inputValue()).toBe('DE');
            expect(await fitsWidth(page)).toBe(true);
            await fillAdminToken(edit);
            await edit.getByRole('button', { name: 'Save' }).click();
            await edit.waitFor({ state: 'hidden' });
            await waitForText(
              page.locator('#list-status'),
              'Nothing was changed, so app was not saved.',
            );

            // Every rule removed: null clears them.
            edit = await openEdit(page, 'app');
            rules = await openSection(edit, 'Redirect rules');
            await rules.getByRole('button', { name: 'Remove rule 2' }).click();
            expect(await focused(page)).toBe('Remove rule 1');
            await page.keyboard.press('Enter');
            await waitForFocusOn(rules.getByRole('button', { name: 'Add a rule' }));
            expect(await saveOk(page, edit)).toEqual({ rules: null });
            expect((await details(kurz.url, 'app', token)).rules).toEqual([]);
            expect(await locationFor(kurz.url, 'app', IPHONE)).toBe(`${TARGET}/home`);

            // A link with 20 rules: no room for another.
            const full = Array.from({ length: 20 }, (_, i) => ({
              url: `${TARGET}/rule-${i}`,
              conditions: [{ type: 'language', value: 'de' }],
            }));
            const made = await call(kurz.url, 'POST', '/api/shorten', {
              json: { url: `${TARGET}/full`, custom_code: 'full', rules: full },
              token,
            });
            expect(made.status).toBe(201);
            await page.reload();
            edit = await openEdit(page, 'full');
            rules = await openSection(edit, 'Redirect rules');
            await waitForText(rules.locator('.section-add > .hint').last(), '20 of 20 rules');
            expect(await rules.getByRole('button', { name: 'Add a rule' }).isDisabled()).toBe(true);
            expect(await rules.getByLabel('Language code').first().inputValue()).toBe('de');
            expect(await fitsWidth(page)).toBe(true);
          });
        },
        TIMEOUT,
      );

      test(
        'an A/B split whose weights do not add up to 100 is refused with its total; 30/70 saves',
        async () => {
          await withMode(mode, viewport, async (kurz, page, token) => {
            await createLinks(kurz.url, [{ url: `${TARGET}/home`, custom_code: 'try' }], token);
            const patches: string[] = [];
            page.on('request', (request) => {
              if (request.method() === 'PATCH') patches.push(request.postData() ?? '');
            });
            await page.goto(kurz.url);
            await rowOf(page, 'try').waitFor();
            let edit = await openEdit(page, 'try');
            let split = await openSection(edit, 'A/B split');
            expect(await stateOf(split)).toBe('none');

            // The first press makes two variants, half each.
            await split.getByRole('button', { name: 'Add an A/B split' }).click();
            await waitForFocusOn(split.getByLabel('Variant A target URL'));
            expect(await split.getByLabel('Variant A weight').inputValue()).toBe('50');
            expect(await split.getByLabel('Variant B weight').inputValue()).toBe('50');
            const total = split.locator('.variants-total');
            expect(await total.getAttribute('aria-live')).toBe('polite');
            await waitForText(total, 'Total: 100 of 100.');
            await split.getByLabel('Variant A target URL').fill(`${TARGET}/landing-a`);
            await split.getByLabel('Variant B target URL').fill(`${TARGET}/landing-b`);
            await split.getByLabel('Variant A weight').fill('30');
            await waitForText(total, 'Total: 80 of 100. The weights must add up to 100.');
            expect(await stateOf(split)).toBe('30 / 50');

            // Up to four; at two, only the whole split can go.
            expect(await split.getByRole('button', { name: /^Remove Variant/ }).count()).toBe(0);
            const add = split.getByRole('button', { name: 'Add a variant' });
            await add.click();
            await waitForFocusOn(split.getByLabel('Variant C target URL'));
            await add.click();
            await waitForText(split.locator('.section-add > .hint'), '4 of 4 variants');
            expect(await add.isDisabled()).toBe(true);
            expect(await fitsWidth(page)).toBe(true);
            await split.getByRole('button', { name: 'Remove Variant D' }).click();
            await split.getByRole('button', { name: 'Remove Variant C' }).click();
            await waitForFocusOn(split.getByLabel('Variant B target URL'));
            expect(await add.isDisabled()).toBe(false);

            // Not 100: the same words in the dialog's error, and nothing is sent.
            await fillAdminToken(edit);
            await edit.getByRole('button', { name: 'Save' }).click();
            await waitForText(
              edit.getByRole('alert'),
              'Total: 80 of 100. The weights must add up to 100.',
            );
            await waitForFocusOn(split.getByLabel('Variant A weight'));
            expect(patches).toEqual([]);
            expect((await details(kurz.url, 'try', token)).variants).toEqual([]);

            // 30/70 adds up: saved as typed.
            await split.getByLabel('Variant B weight').fill('70');
            await waitForText(total, 'Total: 100 of 100.');
            const expected = [
              { url: `${TARGET}/landing-a`, weight: 30 },
              { url: `${TARGET}/landing-b`, weight: 70 },
            ];
            expect(await saveOk(page, edit)).toEqual({ variants: expected });
            expect((await details(kurz.url, 'try', token)).variants).toEqual(expected);
            expect([`${TARGET}/landing-a`, `${TARGET}/landing-b`]).toContain(
              (await locationFor(kurz.url, 'try', HUMAN_AGENT)) ?? '',
            );

            // Opened again as saved; removing the split clears it.
            edit = await openEdit(page, 'try');
            split = await openSection(edit, 'A/B split');
            expect(await stateOf(split)).toBe('30 / 70');
            expect(await split.getByLabel('Variant B target URL').inputValue()).toBe(
              `${TARGET}/landing-b`,
            );
            await split.getByRole('button', { name: 'Remove the split' }).click();
            await waitForFocusOn(split.getByRole('button', { name: 'Add an A/B split' }));
            expect(await saveOk(page, edit)).toEqual({ variants: null });
            expect((await details(kurz.url, 'try', token)).variants).toEqual([]);
            expect(await locationFor(kurz.url, 'try', HUMAN_AGENT)).toBe(`${TARGET}/home`);
          });
        },
        TIMEOUT,
      );

      test(
        'a custom card is drawn as it is typed and saved; an automatic one shows its state',
        async () => {
          await withMode(
            mode,
            viewport,
            async (kurz, page, token) => {
              await page.route('https://example.com/*.png', (route) =>
                route.fulfill({ contentType: 'image/svg+xml', body: PICTURE }),
              );
              await createLinks(
                kurz.url,
                [
                  { url: `${TARGET}/card`, custom_code: 'card' },
                  { url: `${TARGET}/missing`, custom_code: 'broken' },
                  { url: `${TARGET}/slow`, custom_code: 'slow' },
                ],
                token,
              );
              await page.goto(kurz.url);
              await rowOf(page, 'slow').waitFor();
              let edit = await openEdit(page, 'card');
              let preview = await openSection(edit, 'Preview card');
              expect(await stateOf(preview)).toBe('none');
              expect(await preview.getByLabel('None').isChecked()).toBe(true);
              expect(await preview.getByLabel('Title').isVisible()).toBe(false);

              // Custom: the card follows the fields as they are typed.
              await preview.getByLabel('Custom').check();
              expect(await stateOf(preview)).toBe('custom');
              const card = preview.locator('.preview-card');
              expect(await card.isVisible()).toBe(false);
              expect(await preview.getByLabel('Title').getAttribute('maxlength')).toBe('200');
              expect(await preview.getByLabel('Description').getAttribute('maxlength')).toBe('500');
              expect(await preview.getByLabel('Image URL').getAttribute('maxlength')).toBe('2048');
              await preview.getByLabel('Title').pressSequentially('Spring sale');
              await waitForText(card.locator('.preview-card-title'), 'Spring sale');
              await waitForText(card.locator('.preview-card-host'), `localhost:${kurz.port}`);
              await preview.getByLabel('Description').fill('Everything 20% off until May');
              await waitForText(
                card.locator('.preview-card-description'),
                'Everything 20% off until May',
              );
              const picture = card.locator('img');
              expect(await picture.isVisible()).toBe(false);
              // Not https: no picture, and saving is refused here.
              await preview.getByLabel('Image URL').fill('http://example.com/card.png');
              await fillAdminToken(edit);
              await edit.getByRole('button', { name: 'Save' }).click();
              await waitForText(
                edit.getByRole('alert'),
                'Preview card: the image must be an https:// address.',
              );
              expect(await picture.isVisible()).toBe(false);
              await preview.getByLabel('Image URL').fill('https://example.com/card.png');
              await picture.waitFor();
              await eventually(
                () =>
                  picture.evaluate(
                    (image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0,
                  ),
                'the card’s picture drawn',
              );
              expect(await fitsWidth(page)).toBe(true);
              const manual = {
                title: 'Spring sale',
                description: 'Everything 20% off until May',
                image: 'https://example.com/card.png',
              };
              expect(await saveOk(page, edit)).toEqual({ preview: manual });
              expect((await details(kurz.url, 'card', token)).preview).toEqual({
                mode: 'manual',
                status: 'ready',
                ...manual,
                error: null,
              });

              // Opened again: the card as saved.
              edit = await openEdit(page, 'card');
              preview = await openSection(edit, 'Preview card');
              expect(await preview.getByLabel('Custom').isChecked()).toBe(true);
              await waitForText(card.locator('.preview-card-title'), 'Spring sale');

              // Automatic: read from the target page once saved, then shown as read.
              await preview.getByLabel('Automatic, from the target page').check();
              expect(await stateOf(preview)).toBe('automatic');
              await waitForText(
                preview.locator('.preview-state'),
                'The target page is read once you save.',
              );
              expect(await saveOk(page, edit)).toEqual({ preview: 'auto' });
              await eventually(
                async () => (await details(kurz.url, 'card', token)).preview?.status === 'ready',
                'the target page read',
              );
              edit = await openEdit(page, 'card');
              preview = await openSection(edit, 'Preview card');
              await waitForText(preview.locator('.preview-state'), 'Read from the target page:');
              await waitForText(card.locator('.preview-card-title'), 'Read from the page');
              await waitForText(card.locator('.preview-card-description'), 'The page’s own card');
              expect(await fitsWidth(page)).toBe(true);
              await page.keyboard.press('Escape');
              await edit.waitFor({ state: 'hidden' });

              // A page that cannot be read: the reason; read again on request.
              edit = await openEdit(page, 'broken');
              preview = await openSection(edit, 'Preview card');
              await preview.getByLabel('Automatic, from the target page').check();
              expect(await saveOk(page, edit)).toEqual({ preview: 'auto' });
              await eventually(
                async () => (await details(kurz.url, 'broken', token)).preview?.status === 'failed',
                'the target page refused',
              );
              const failed = (await details(kurz.url, 'broken', token)).preview;
              expect(failed.error).toBeString();
              edit = await openEdit(page, 'broken');
              preview = await openSection(edit, 'Preview card');
              await waitForText(
                preview.locator('.preview-state'),
                `The page could not be read: ${failed.error}.`,
              );
              expect(await card.isVisible()).toBe(false);
              await preview.getByLabel('Read the page again').check();
              await waitForText(
                preview.locator('.preview-state'),
                'The page is read again once you save.',
              );
              expect(await saveOk(page, edit)).toEqual({ preview: 'auto' });

              // A page still being read.
              edit = await openEdit(page, 'slow');
              preview = await openSection(edit, 'Preview card');
              await preview.getByLabel('Automatic, from the target page').check();
              expect(await saveOk(page, edit)).toEqual({ preview: 'auto' });
              edit = await openEdit(page, 'slow');
              preview = await openSection(edit, 'Preview card');
              expect(await preview.locator('.preview-state').textContent()).toBe(
                'Reading the page…',
              );
              expect(await preview.getByLabel('Read the page again').isVisible()).toBe(false);
              expect(await fitsWidth(page)).toBe(true);
            },
            // The pages are on this machine: let kurz read them.
            ['--webhook-allow-private', 'on'],
          );
        },
        TIMEOUT,
      );

      test(
        'the Stats dialog lists the routes clicks took: a rule and the default target',
        async () => {
          await withMode(mode, viewport, async (kurz, page, token) => {
            await createLinks(kurz.url, [{ url: `${TARGET}/plain`, custom_code: 'plain' }], token);
            const made = await call(kurz.url, 'POST', '/api/shorten', {
              json: {
                url: `${TARGET}/home`,
                custom_code: 'routed',
                rules: [{ url: `${TARGET}/iphone`, conditions: [{ type: 'os', value: 'ios' }] }],
              },
              token,
            });
            expect(made.status).toBe(201);
            await click(kurz.url, 'plain', 1, { userAgent: HUMAN_AGENT });
            await click(kurz.url, 'routed', 2, { userAgent: IPHONE }); // by rule 1
            await click(kurz.url, 'routed', 1, { userAgent: HUMAN_AGENT }); // the default
            const statsOf = async (code: string) =>
              (await call(kurz.url, 'GET', `/api/links/${code}/stats`, { token })).json;
            await eventually(
              async () =>
                (await statsOf('plain')).range.clicks === 1 &&
                (await statsOf('routed')).range.clicks === 3,
              'the clicks counted',
            );
            await page.goto(kurz.url);
            await rowOf(page, 'routed').waitFor();

            // A link that routes nobody: no Routes list.
            await page.getByRole('button', { name: 'Stats for plain' }).click();
            let stats = page.getByRole('dialog', { name: 'Stats for plain' });
            await waitForText(stats.locator('#stats-all-time'), '1');
            expect(await stats.getByRole('heading', { name: 'Countries' }).isVisible()).toBe(true);
            expect(await stats.getByRole('heading', { name: 'Routes' }).count()).toBe(0);
            await page.keyboard.press('Escape');
            await stats.waitFor({ state: 'hidden' });

            // What the dialog draws from: the server's count of each route.
            expect((await statsOf('routed')).top.routes).toEqual([
              { value: 'rule:0', clicks: 2 },
              { value: 'default', clicks: 1 },
            ]);
            // The routed one: each route in words, with its clicks and share.
            await page.getByRole('button', { name: 'Stats for routed' }).click();
            stats = page.getByRole('dialog', { name: 'Stats for routed' });
            await waitForText(stats.locator('#stats-all-time'), '3');
            const routes = stats.getByRole('table', { name: 'Routes' });
            await routes.waitFor({ timeout: 10_000 });
            const cells = await routes
              .locator('tbody tr')
              .evaluateAll((rows) =>
                rows.map((row) =>
                  [...row.querySelectorAll('th, td')].map((cell) => cell.textContent),
                ),
              );
            expect(cells).toEqual([
              ['Rule 1', '2', '66.7%'],
              ['Default target', '1', '33.3%'],
            ]);
            expect(await fitsWidth(page)).toBe(true);
          });
        },
        TIMEOUT,
      );
    });
  }
}
