// The admin section of the web UI, in Chromium against dist/kurz (run `bun run build`
// first; scripts/ensure-chromium.sh installs the browser): hidden from everyone but
// admins; its figures, users (accounts mode), every link, the reports and the blocklist,
// each acted on through the page and checked through the API and the short links
// themselves; in both modes, at a desktop and a phone width, without sideways scrolling.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { call, eventually } from '../support/binary.ts';
import { type Account, account, createLinks, launchBrowser } from '../support/browser.ts';
import {
  ADMIN_TOKEN,
  fitsWidth,
  modeArgs,
  rowOf,
  SIZES,
  waitForText,
  withKurz,
} from '../support/web-page.ts';

declare const localStorage: { setItem(key: string, value: string): void };
declare const document: {
  activeElement: {
    id: string;
    textContent: string | null;
    getAttribute(name: string): string | null;
  } | null;
};

const TIMEOUT = 90_000;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** Makes a user an admin with the operator's token. */
async function promote(base: string, user: Account) {
  const reply = await call(base, 'PATCH', `/api/admin/users/${user.id}`, {
    json: { admin: true },
    token: ADMIN_TOKEN,
  });
  if (reply.status !== 200) throw new Error(`promote failed: ${reply.status} ${reply.text}`);
}

/** Opens the page signed in as `user`, and waits until it knows whether they are an admin. */
async function signIn(page: Page, base: string, user: Account) {
  await page.goto(base);
  await page.evaluate(
    ([token, email]) => {
      localStorage.setItem('kurz.token', token ?? '');
      localStorage.setItem('kurz.email', email ?? '');
    },
    [user.token, user.email],
  );
  await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/overview'),
    page.reload(),
  ]);
}

/** The status a short link answers with (and where it sends the visitor). */
async function follow(base: string, code: string) {
  const reply = await call(base, 'GET', `/${code}`);
  return reply.status;
}

const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' });
const adminTabs = (page: Page) => page.getByRole('navigation', { name: 'Administration' });
const view = (page: Page, id: string) => page.locator(`#admin-${id}`);

/** Goes to an admin view through its tab; focus lands on its heading. */
async function openView(page: Page, tab: string, heading: string) {
  await adminTabs(page).getByRole('link', { name: tab, exact: true }).click();
  const title = page.getByRole('heading', { name: heading, exact: true });
  await title.waitFor();
  await eventually(
    async () => (await page.evaluate(() => document.activeElement?.textContent)) === heading,
    `focus on the heading ${heading}`,
  );
  expect(await adminTabs(page).locator('[aria-current="page"]').textContent()).toBe(tab);
}

/** The rows of a table of the admin section, named by their first cell (its badges left out). */
const firstCells = (table: Locator) =>
  table
    .locator('tbody tr > th')
    .evaluateAll((cells) => cells.map((cell) => cell.firstChild?.textContent ?? ''));

async function waitForCells(table: Locator, expected: string[]) {
  let seen: string[] = [];
  await eventually(
    async () => {
      seen = await firstCells(table);
      return JSON.stringify(seen) === JSON.stringify(expected);
    },
    () => `rows ${JSON.stringify(expected)}, seen ${JSON.stringify(seen)}`,
  );
}

/** Opens the confirmation `name` by pressing `button`, and confirms it with `confirm`. */
async function confirmDialog(
  page: Page,
  button: Locator,
  name: string,
  confirm: string,
  fill: (dialog: Locator) => Promise<void> = async () => {},
) {
  await button.click();
  const dialog = page.getByRole('dialog', { name });
  await dialog.waitFor();
  expect(await fitsWidth(page)).toBe(true);
  await fill(dialog);
  await dialog.getByRole('button', { name: confirm, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Shortens `url` through the page's form and returns the alert or the short link shown. */
async function shortenInPage(page: Page, url: string) {
  await page.getByLabel('URL', { exact: true }).fill(url);
  await page.getByRole('button', { name: 'Shorten', exact: true }).click();
}

for (const [size, viewport] of SIZES) {
  const options = { viewport, timezoneId: 'Europe/Berlin' };

  describe(`the admin section, accounts mode, ${size} (${viewport.width} px)`, () => {
    const start = ['--mode', 'accounts', '--admin-token', ADMIN_TOKEN];

    test(
      'hidden from a user, shown to an admin: figures; users searched, disabled (their session ends), enabled, promoted, removed with their links; closed once the admin is demoted',
      async () => {
        await withKurz(
          browser,
          start,
          async (kurz, page) => {
            const ann = await account(kurz.url, 'ann@example.com');
            const bob = await account(kurz.url, 'bob@example.com');
            const carol = await account(kurz.url, 'carol@example.com');
            await createLinks(
              kurz.url,
              [{ url: 'https://example.com/b', custom_code: 'b1' }],
              bob.token,
            );
            await createLinks(
              kurz.url,
              [{ url: 'https://example.com/c', custom_code: 'c1' }],
              carol.token,
            );

            // An ordinary user: no navigation, and #admin shows the links.
            await signIn(page, kurz.url, bob);
            await page.getByRole('heading', { name: 'Your links' }).waitFor();
            expect(await sections(page).isVisible()).toBe(false);
            await page.goto(`${kurz.url}/#admin`);
            await page.getByRole('heading', { name: 'Your links' }).waitFor();
            expect(await page.locator('#admin-view').isVisible()).toBe(false);

            // An admin: the navigation, and the figures first.
            await promote(kurz.url, ann);
            await signIn(page, kurz.url, ann);
            const adminLink = sections(page).getByRole('link', { name: 'Admin', exact: true });
            await adminLink.click();
            await page.getByRole('heading', { name: 'Administration' }).waitFor();
            expect(await adminLink.getAttribute('aria-current')).toBe('page');
            await waitForText(page.locator('#figure-users'), '3');
            await waitForText(page.locator('#figure-links'), '2');
            expect(await page.locator('#figure-reports-waiting').textContent()).toBe('0');
            expect(await page.getByRole('heading', { name: 'Your links' }).isVisible()).toBe(false);
            expect(await fitsWidth(page)).toBe(true);

            // Users, oldest first; searched by e-mail.
            await openView(page, 'Users', 'Users');
            const users = page.locator('#users');
            await waitForCells(users, ['ann@example.com', 'bob@example.com', 'carol@example.com']);
            // The admin's own row offers nothing to do to themselves.
            const annRow = users.locator('tbody tr').first();
            await waitForBadges(annRow, ['You', 'Admin']);
            expect(await annRow.getByRole('button').count()).toBe(0);
            expect(await fitsWidth(page)).toBe(true);
            await view(page, 'users').getByLabel('Search').fill('BOB');
            await waitForCells(users, ['bob@example.com']);
            await waitForText(page.locator('#users-range'), '1–1 of 1');

            // Disabled: bob's token is refused at once, his open page returns to the login
            // form at its next request; enabled: the token works again.
            const bobContext = await browser.newContext(options);
            try {
              const bobPage = await bobContext.newPage();
              await signIn(bobPage, kurz.url, bob);
              await bobPage.getByRole('heading', { name: 'Your links' }).waitFor();
              await page
                .getByRole('button', { name: 'Disable bob@example.com', exact: true })
                .click();
              await waitForText(page.locator('#users-status'), 'Disabled bob@example.com.');
              await waitForBadges(users.locator('tbody tr').first(), ['Disabled']);
              await bobPage.reload();
              await waitForText(
                bobPage.locator('#auth-notice'),
                'Your session has ended. Please log in again.',
              );
            } finally {
              await bobContext.close();
            }
            expect((await call(kurz.url, 'GET', '/api/links', { token: bob.token })).status).toBe(
              401,
            );
            expect(await follow(kurz.url, 'b1')).toBe(307); // their links keep working
            const enable = page.getByRole('button', {
              name: 'Enable bob@example.com',
              exact: true,
            });
            await enable.click();
            await waitForText(page.locator('#users-status'), 'Enabled bob@example.com.');
            await waitForBadges(users.locator('tbody tr').first(), []);
            expect((await call(kurz.url, 'GET', '/api/links', { token: bob.token })).status).toBe(
              200,
            );

            // Promoted: bob reaches the admin API.
            await page
              .getByRole('button', { name: 'Make admin bob@example.com', exact: true })
              .click();
            await waitForBadges(users.locator('tbody tr').first(), ['Admin']);
            const overview = await call(kurz.url, 'GET', '/api/admin/overview', {
              token: bob.token,
            });
            expect(overview.status).toBe(200);
            expect(
              await page.getByRole('button', { name: 'Remove admin bob@example.com' }).isVisible(),
            ).toBe(true);
            expect(await fitsWidth(page)).toBe(true);

            // Removed with their links, after the confirmation.
            await view(page, 'users').getByLabel('Search').fill('carol');
            await waitForCells(users, ['carol@example.com']);
            await confirmDialog(
              page,
              page.getByRole('button', { name: 'Remove carol@example.com', exact: true }),
              'Remove carol@example.com?',
              'Remove',
              (dialog) => dialog.getByLabel('Delete them too').check(),
            );
            await waitForText(
              page.locator('#users-status'),
              'Removed carol@example.com and their links.',
            );
            await waitForText(page.locator('#users-empty'), 'No user matches “carol”.');
            expect(await follow(kurz.url, 'c1')).toBe(404);
            expect((await call(kurz.url, 'GET', '/api/links', { token: carol.token })).status).toBe(
              401,
            );

            // Back to the links by the navigation.
            await sections(page).getByRole('link', { name: 'Your links' }).click();
            await page.getByRole('heading', { name: 'Your links' }).waitFor();
            expect(await page.locator('#admin-view').isVisible()).toBe(false);

            // Demoted meanwhile (by the operator): the next call closes the section.
            await sections(page).getByRole('link', { name: 'Admin', exact: true }).click();
            await page.getByRole('heading', { name: 'Figures' }).waitFor();
            const demoted = await call(kurz.url, 'PATCH', `/api/admin/users/${ann.id}`, {
              json: { admin: false },
              token: ADMIN_TOKEN,
            });
            expect(demoted.status).toBe(200);
            await adminTabs(page).getByRole('link', { name: 'Users', exact: true }).click();
            await waitForText(
              page.locator('#admin-status'),
              'You are no longer an admin here: the admin section is closed.',
            );
            await page.getByRole('heading', { name: 'Your links' }).waitFor();
            expect(await sections(page).isVisible()).toBe(false);
            expect(await page.locator('#admin-view').isVisible()).toBe(false);
          },
          options,
        );
      },
      TIMEOUT,
    );

    test(
      'every link: searched by code, target and owner; disabled with a reason (410, marked in its owner’s list), enabled, deleted',
      async () => {
        await withKurz(
          browser,
          start,
          async (kurz, page) => {
            const ann = await account(kurz.url, 'ann@example.com');
            const bob = await account(kurz.url, 'bob@example.com');
            await promote(kurz.url, ann);
            await createLinks(
              kurz.url,
              [
                { url: 'https://example.com/one', custom_code: 'bob-1' },
                { url: 'https://example.org/two', custom_code: 'bob-2' },
              ],
              bob.token,
            );
            await createLinks(
              kurz.url,
              [{ url: 'https://example.com/mine', custom_code: 'ann-1' }],
              ann.token,
            );

            await signIn(page, kurz.url, ann);
            await sections(page).getByRole('link', { name: 'Admin', exact: true }).click();
            await openView(page, 'Links', 'All links');
            const links = page.locator('#admin-links-table');
            const home = `localhost:${kurz.port}`;
            await waitForCells(links, [`${home}/ann-1`, `${home}/bob-2`, `${home}/bob-1`]);
            expect(
              await links.locator('tbody tr').first().locator('.cell-owner').textContent(),
            ).toBe('ann@example.com');
            expect(await fitsWidth(page)).toBe(true);

            const panel = view(page, 'links');
            await panel.getByLabel('Search').fill('example.org');
            await waitForCells(links, [`${home}/bob-2`]);
            await panel.getByLabel('Search').fill('');
            await panel.getByLabel('Owner').fill('ann@');
            await waitForCells(links, [`${home}/ann-1`]);
            await panel.getByLabel('Owner').fill('');
            await waitForCells(links, [`${home}/ann-1`, `${home}/bob-2`, `${home}/bob-1`]);

            // Disabled with a reason: 410 at once, the badge and the reason in the row.
            await confirmDialog(
              page,
              page.getByRole('button', { name: 'Disable bob-1', exact: true }),
              'Disable bob-1?',
              'Disable',
              (dialog) => dialog.getByLabel('Reason').fill('Phishing page'),
            );
            await waitForText(page.locator('#admin-links-status'), 'Disabled bob-1.');
            const bobRow = links.locator('tbody tr').filter({ hasText: `${home}/bob-1` });
            await waitForText(bobRow.locator('.disabled-reason'), 'Reason: Phishing page');
            expect(await bobRow.locator('.badge-disabled').isVisible()).toBe(true);
            expect(await follow(kurz.url, 'bob-1')).toBe(410);
            const owned = await call(kurz.url, 'GET', '/api/links/bob-1', { token: bob.token });
            expect(owned.json).toMatchObject({ disabled: true, disabled_reason: 'Phishing page' });
            expect(await fitsWidth(page)).toBe(true);

            // The state filter finds it; enabled again, it redirects.
            await panel.getByLabel('State').selectOption('true');
            await waitForCells(links, [`${home}/bob-1`]);
            await page.getByRole('button', { name: 'Enable bob-1', exact: true }).click();
            await waitForText(page.locator('#admin-links-status'), 'Enabled bob-1.');
            expect(await follow(kurz.url, 'bob-1')).toBe(307);
            await panel.getByLabel('State').selectOption('');

            // By keyboard: the confirmation starts on Cancel, Escape closes it and focus goes
            // back to the button; then deleted, after the confirmation: 404, and focus goes to
            // the next row's Delete.
            await waitForCells(links, [`${home}/ann-1`, `${home}/bob-2`, `${home}/bob-1`]);
            const deleteButton = page.getByRole('button', { name: 'Delete bob-2', exact: true });
            await deleteButton.focus();
            await page.keyboard.press('Enter');
            await page.getByRole('dialog', { name: 'Delete bob-2?' }).waitFor();
            expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
            await page.keyboard.press('Escape');
            await eventually(
              async () =>
                (await page.evaluate(() => document.activeElement?.textContent)) === 'Delete',
              'focus back on Delete',
            );
            await confirmDialog(
              page,
              page.getByRole('button', { name: 'Delete bob-2', exact: true }),
              'Delete bob-2?',
              'Delete',
            );
            await waitForCells(links, [`${home}/ann-1`, `${home}/bob-1`]);
            expect(await follow(kurz.url, 'bob-2')).toBe(404);
            await eventually(
              async () =>
                (await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) ===
                'Delete bob-1',
              'focus on the next row’s Delete',
            );

            // The admin's own link disabled: their list shows the badge, the reason read out.
            await confirmDialog(
              page,
              page.getByRole('button', { name: 'Disable ann-1', exact: true }),
              'Disable ann-1?',
              'Disable',
              (dialog) => dialog.getByLabel('Reason').fill('Spam'),
            );
            await waitForText(page.locator('#admin-links-status'), 'Disabled ann-1.');
            await sections(page).getByRole('link', { name: 'Your links' }).click();
            const badge = rowOf(page, 'ann-1').locator('.badge-disabled');
            await waitForText(badge, 'Disabled by the operator: Spam');
            expect(await badge.getAttribute('title')).toBe('Disabled by the operator: Spam');
            expect(await fitsWidth(page)).toBe(true);
          },
          options,
        );
      },
      TIMEOUT,
    );

    test(
      'a report appears and is resolved by disabling the link, its host blocked, another by disabling its owner; the blocklist refuses new links in the form until removed',
      async () => {
        await withKurz(
          browser,
          start,
          async (kurz, page) => {
            const ann = await account(kurz.url, 'ann@example.com');
            const bob = await account(kurz.url, 'bob@example.com');
            await promote(kurz.url, ann);
            await createLinks(
              kurz.url,
              [{ url: 'https://phish.example.net/login', custom_code: 'bait' }],
              bob.token,
            );
            const reported = await call(kurz.url, 'POST', '/api/reports', {
              json: { code: 'bait', reason: 'phishing', details: 'It asks for my bank password.' },
            });
            expect(reported.status).toBe(201);

            await signIn(page, kurz.url, ann);
            await sections(page).getByRole('link', { name: 'Admin', exact: true }).click();
            await waitForText(page.locator('#figure-reports-waiting'), '1');
            await openView(page, 'Reports', 'Reports');
            const report = page.locator('#reports-rows > li');
            const home = `localhost:${kurz.port}`;
            await waitForText(report.locator('h3'), `${home}/bait: Phishing`);
            expect(
              await report.getByRole('article', { name: `${home}/bait: Phishing` }).count(),
            ).toBe(1);
            expect(await report.locator('.report-details').textContent()).toBe(
              'It asks for my bank password.',
            );
            expect(await report.locator('.report-target').textContent()).toBe(
              'https://phish.example.net/login',
            );
            expect(await report.locator('.report-owner').textContent()).toBe('bob@example.com');
            expect(await report.locator('.report-link').textContent()).toBe('Working, 0 clicks');
            expect(await fitsWidth(page)).toBe(true);

            await confirmDialog(
              page,
              page.getByRole('button', { name: `Disable link ${home}/bait`, exact: true }),
              `Disable ${home}/bait?`,
              'Disable link',
              async (dialog) => {
                await dialog.getByLabel('Reason').fill('Phishing');
                await dialog.getByLabel('Also block phish.example.net for new links').check();
              },
            );
            await waitForText(page.locator('#reports-empty'), 'No reports waiting.');
            await waitForText(
              page.locator('#reports-status'),
              `Resolved report ${reported.json.id}: link disabled.`,
            );
            expect(await follow(kurz.url, 'bait')).toBe(410);

            // Another report, resolved by disabling the owner: their token is refused.
            await createLinks(
              kurz.url,
              [{ url: 'https://example.com/more', custom_code: 'more' }],
              bob.token,
            );
            const again = await call(kurz.url, 'POST', '/api/reports', {
              json: { short_url: `http://${home}/more`, reason: 'spam' },
            });
            expect(again.status).toBe(201);
            await view(page, 'reports').getByLabel('Show').selectOption('all');
            await waitForText(report.first().locator('h3'), `${home}/more: Spam`);
            await confirmDialog(
              page,
              page.getByRole('button', { name: `Disable user of ${home}/more`, exact: true }),
              `Disable the owner of ${home}/more?`,
              'Disable user',
            );
            await waitForText(
              page.locator('#reports-status'),
              `Resolved report ${again.json.id}: owner and link disabled.`,
            );
            expect((await call(kurz.url, 'GET', '/api/links', { token: bob.token })).status).toBe(
              401,
            );
            expect(await follow(kurz.url, 'more')).toBe(410);

            // Resolved reports, on demand: what was done, and nothing more to do.
            await view(page, 'reports').getByLabel('Show').selectOption('resolved');
            await waitForText(report.last().locator('.report-link'), 'Disabled, 0 clicks');
            expect(await report.locator('.report-resolution').allTextContents()).toEqual([
              expect.stringMatching(/^Owner and link disabled, /),
              expect.stringMatching(/^Link disabled, /),
            ]);
            expect(await report.getByRole('button').count()).toBe(0);

            // The blocklist holds the host; the form refuses a link to it (and its subdomains).
            await openView(page, 'Blocklist', 'Blocklist');
            const blocklist = page.locator('#blocklist');
            await waitForCells(blocklist, ['phish.example.net']);
            const panel = view(page, 'blocklist');
            await panel.getByLabel('Host', { exact: true }).fill('spam.example.org');
            await panel.getByLabel('Reason', { exact: true }).fill('Spam runs');
            await panel.getByRole('button', { name: 'Block host' }).click();
            await waitForText(
              page.locator('#blocklist-status'),
              'Blocked spam.example.org for new links.',
            );
            await waitForCells(blocklist, ['phish.example.net', 'spam.example.org']);
            expect(await fitsWidth(page)).toBe(true);

            await sections(page).getByRole('link', { name: 'Your links' }).click();
            await shortenInPage(page, 'https://www.spam.example.org/offer');
            await waitForText(page.locator('#shorten-error'), 'URL is blocked');

            // Removed: the same link is made.
            await sections(page).getByRole('link', { name: 'Admin', exact: true }).click();
            await openView(page, 'Blocklist', 'Blocklist');
            await waitForCells(blocklist, ['phish.example.net', 'spam.example.org']);
            await page
              .getByRole('button', { name: 'Remove spam.example.org', exact: true })
              .click();
            await waitForText(
              page.locator('#blocklist-status'),
              'Removed spam.example.org from the blocklist.',
            );
            await waitForCells(blocklist, ['phish.example.net']);
            await sections(page).getByRole('link', { name: 'Your links' }).click();
            await shortenInPage(page, 'https://www.spam.example.org/offer');
            await waitForText(page.locator('#result-target'), 'https://www.spam.example.org/offer');
            expect(await page.locator('#shorten-error').textContent()).toBe('');
          },
          options,
        );
      },
      TIMEOUT,
    );
  });

  describe(`the admin section, open mode, ${size} (${viewport.width} px)`, () => {
    test(
      'the admin token opens it: figures, links, reports and the blocklist, no users; forgetting the token closes it, the Edit dialog’s opens it again',
      async () => {
        await withKurz(
          browser,
          modeArgs('open'),
          async (kurz, page) => {
            await createLinks(kurz.url, [
              { url: 'https://phish.example.net/login', custom_code: 'bait' },
              { url: 'https://example.com/fine', custom_code: 'fine' },
            ]);
            const reported = await call(kurz.url, 'POST', '/api/reports', {
              json: { code: 'fine', reason: 'spam' },
            });
            expect(reported.status).toBe(201);
            await page.goto(kurz.url);
            await rowOf(page, 'bait').waitFor();
            expect(await sections(page).isVisible()).toBe(false);

            // A wrong token is refused in the dialog; the right one opens the section.
            await page.getByRole('button', { name: 'Admin', exact: true }).click();
            const dialog = page.getByRole('dialog', { name: 'Administration' });
            await dialog.waitFor();
            expect(await fitsWidth(page)).toBe(true);
            await dialog.getByLabel('Admin token').fill('not-the-admin-token');
            await dialog.getByRole('button', { name: 'Open administration' }).click();
            await waitForText(
              dialog.getByRole('alert'),
              'The admin token was not accepted (Unauthorized).',
            );
            await dialog.getByLabel('Admin token').fill(ADMIN_TOKEN);
            await dialog.getByRole('button', { name: 'Open administration' }).click();
            await dialog.waitFor({ state: 'hidden' });
            await page.getByRole('heading', { name: 'Administration' }).waitFor();
            await waitForText(page.locator('#figure-links'), '2');
            expect(await page.locator('#figure-users').isVisible()).toBe(false);
            expect(await adminTabs(page).getByRole('link', { name: 'Users' }).count()).toBe(0);
            expect(await page.getByRole('button', { name: 'Admin', exact: true }).isVisible()).toBe(
              false,
            );
            expect(await fitsWidth(page)).toBe(true);

            // Links: no owner column; disabled with its host blocked, then enabled.
            await openView(page, 'Links', 'All links');
            const links = page.locator('#admin-links-table');
            const home = `localhost:${kurz.port}`;
            await waitForCells(links, [`${home}/fine`, `${home}/bait`]);
            expect(await links.locator('.cell-owner').first().isVisible()).toBe(false);
            await confirmDialog(
              page,
              page.getByRole('button', { name: 'Disable bait', exact: true }),
              'Disable bait?',
              'Disable',
              async (d) => {
                await d.getByLabel('Reason').fill('Phishing');
                await d.getByLabel('Also block phish.example.net for new links').check();
              },
            );
            await waitForText(
              page.locator('#admin-links-status'),
              'Disabled bait, and phish.example.net is blocked for new links.',
            );
            expect(await follow(kurz.url, 'bait')).toBe(410);
            await page.getByRole('button', { name: 'Enable bait', exact: true }).click();
            await waitForText(page.locator('#admin-links-status'), 'Enabled bait.');
            expect(await follow(kurz.url, 'bait')).toBe(307);

            // Reports: no owner to disable in open mode; dismissed.
            await openView(page, 'Reports', 'Reports');
            const report = page.locator('#reports-rows > li');
            await waitForText(report.locator('h3'), `${home}/fine: Spam`);
            expect(await report.getByRole('button', { name: /^Disable user/ }).count()).toBe(0);
            await confirmDialog(
              page,
              page.getByRole('button', {
                name: `Dismiss report ${reported.json.id} on ${home}/fine`,
              }),
              `Dismiss report ${reported.json.id}?`,
              'Dismiss',
            );
            await waitForText(page.locator('#reports-empty'), 'No reports waiting.');
            expect(await follow(kurz.url, 'fine')).toBe(307);

            // The blocklist: the host blocked above, removed.
            await openView(page, 'Blocklist', 'Blocklist');
            const blocklist = page.locator('#blocklist');
            await waitForCells(blocklist, ['phish.example.net']);
            expect(await fitsWidth(page)).toBe(true);
            await page
              .getByRole('button', { name: 'Remove phish.example.net', exact: true })
              .click();
            await waitForText(page.locator('#blocklist-empty'), 'No host is blocked here.');

            // Forgetting the token closes the section.
            await page.getByRole('button', { name: 'Forget admin token' }).click();
            await page.getByRole('heading', { name: 'All links' }).waitFor();
            expect(await sections(page).isVisible()).toBe(false);
            expect(await page.locator('#admin-view').isVisible()).toBe(false);
            expect(await page.getByRole('button', { name: 'Admin', exact: true }).isVisible()).toBe(
              true,
            );

            // The token given to the Edit dialog opens it too.
            await page.getByRole('button', { name: 'Edit fine', exact: true }).click();
            const edit = page.getByRole('dialog', { name: 'Edit fine' });
            await edit.waitFor();
            await edit.getByLabel('Target URL').fill('https://example.com/fine-2');
            await edit.getByLabel('Admin token').fill(ADMIN_TOKEN);
            await edit.getByRole('button', { name: 'Save' }).click();
            await edit.waitFor({ state: 'hidden' });
            await sections(page).getByRole('link', { name: 'Admin', exact: true }).waitFor();
            expect(await page.getByRole('button', { name: 'Admin', exact: true }).isVisible()).toBe(
              false,
            );
          },
          options,
        );
      },
      TIMEOUT,
    );
  });
}

describe('the admin section, open mode without an admin token', () => {
  test(
    'the dialog shows why administration is not possible',
    async () => {
      await withKurz(browser, ['--mode', 'open'], async (kurz, page) => {
        await page.goto(kurz.url);
        await page.getByText('No links yet.', { exact: false }).waitFor();
        await page.getByRole('button', { name: 'Admin', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Administration' });
        await dialog.getByLabel('Admin token').fill(ADMIN_TOKEN);
        await dialog.getByRole('button', { name: 'Open administration' }).click();
        await waitForText(
          dialog.getByRole('alert'),
          'Administration needs an admin token (--admin-token)',
        );
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
        expect(await sections(page).isVisible()).toBe(false);
      });
    },
    TIMEOUT,
  );
});

/** Waits until the row's badges read `expected` (their visible words). */
async function waitForBadges(row: Locator, expected: string[]) {
  let seen: (string | undefined)[] = [];
  await eventually(
    async () => {
      seen = await row
        .locator('.badge')
        .evaluateAll((badges) => badges.map((badge) => badge.firstChild?.textContent ?? undefined));
      return JSON.stringify(seen) === JSON.stringify(expected);
    },
    () => `badges ${JSON.stringify(expected)}, seen ${JSON.stringify(seen)}`,
  );
}
