// The pages of moderation in Chromium against dist/kurz (run `bun run build` first;
// scripts/ensure-chromium.sh installs the browser): the report form sends its report
// under its strict policy, the new-account interstitial's Continue reaches the target,
// and a password form (whose policy has form-action 'self') still lands on the target;
// in a German browser the pages are German, and the kurz-lang cookie overrides that.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { call } from '../support/binary.ts';
import { launchBrowser, registerUser } from '../support/browser.ts';
import { ADMIN_TOKEN, modeArgs, withKurz } from '../support/web-page.ts';

const TIMEOUT = 60_000;

let browser: Browser;
let target: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  browser = await launchBrowser();
  // Where the links lead: a page of its own, on another origin than kurz's.
  target = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) =>
      new Response(
        `<!doctype html><title>Landed</title><h1>Landed on ${new URL(request.url).pathname}</h1>`,
        {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        },
      ),
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await target?.stop(true);
}, 30_000);

const landing = (path: string) => `http://127.0.0.1:${target.port}${path}`;

/** Fails the test on any policy violation the page reports. */
function watchPolicy(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') violations.push(message.text());
  });
  return violations;
}

describe('moderation pages in Chromium', () => {
  test(
    'the report form sends a report and says thank you',
    async () => {
      await withKurz(browser, modeArgs('open'), async (kurz, page) => {
        const violations = watchPolicy(page);
        const made = await call(kurz.url, 'POST', '/api/shorten', {
          json: { url: landing('/offer'), custom_code: 'offer' },
        });
        expect(made.status).toBe(201);
        await page.goto(`${kurz.url}/offer+report`);
        await page.getByLabel('Reason').selectOption('phishing');
        await page.getByLabel('Details (optional)').fill('It asks for my <bank> password');
        await page.getByRole('button', { name: 'Send report' }).click();
        await page.getByText('Thank you: the report was received.').waitFor();
        expect(await page.locator('#report').isVisible()).toBe(false);
        const reports = await call(kurz.url, 'GET', '/api/admin/reports', { token: ADMIN_TOKEN });
        expect(reports.json).toMatchObject([
          { code: 'offer', reason: 'phishing', details: 'It asks for my <bank> password' },
        ]);
        // The `+` page links to the form, and says where the link leads.
        await page.goto(`${kurz.url}/offer+`);
        expect(await page.locator('dd.target a').getAttribute('href')).toBe(landing('/offer'));
        await page.getByRole('link', { name: 'Report this link' }).click();
        await page.getByRole('button', { name: 'Send report' }).waitFor();
        expect(violations).toEqual([]);
      });
    },
    TIMEOUT,
  );

  test(
    "a new account's link shows the interstitial; Continue reaches the target, counted",
    async () => {
      const args = ['--mode', 'accounts', '--new-account-interstitial', '7'];
      await withKurz(browser, args, async (kurz, page) => {
        const violations = watchPolicy(page);
        const token = await registerUser(kurz.url, 'fresh@example.com');
        const made = await call(kurz.url, 'POST', '/api/shorten', {
          json: { url: landing('/fresh'), custom_code: 'fresh' },
          token,
        });
        expect(made.status).toBe(201);
        await page.goto(`${kurz.url}/fresh`);
        await page.getByText('This link was made by a new account.').waitFor();
        expect(page.url()).toBe(`${kurz.url}/fresh`);
        await page.getByRole('link', { name: 'Continue' }).click();
        await page.waitForURL(landing('/fresh'));
        expect(await page.locator('h1').textContent()).toBe('Landed on /fresh');
        const list = await call(kurz.url, 'GET', '/api/links', { token });
        expect(list.json[0].clicks).toBe(1);
        expect(violations).toEqual([]);
      });
    },
    TIMEOUT,
  );

  test(
    'a password form lands on the target under form-action self',
    async () => {
      await withKurz(browser, modeArgs('open'), async (kurz, page) => {
        const violations = watchPolicy(page);
        const made = await call(kurz.url, 'POST', '/api/shorten', {
          json: { url: landing('/locked'), custom_code: 'locked', password: 'open sesame' },
        });
        expect(made.status).toBe(201);
        await page.goto(`${kurz.url}/locked`);
        await page.getByLabel('Password').fill('open sesame');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL(landing('/locked'));
        expect(await page.locator('h1').textContent()).toBe('Landed on /locked');
        expect(violations).toEqual([]);
      });
    },
    TIMEOUT,
  );

  test(
    "in the browser's language: a German password form lands on the target; the kurz-lang cookie makes the report form French",
    async () => {
      await withKurz(
        browser,
        modeArgs('open'),
        async (kurz, page) => {
          const violations = watchPolicy(page);
          for (const json of [
            { url: landing('/geheim'), custom_code: 'geheim', password: 'Sesam' },
            { url: landing('/offre'), custom_code: 'offre' },
          ]) {
            expect((await call(kurz.url, 'POST', '/api/shorten', { json })).status).toBe(201);
          }
          await page.goto(`${kurz.url}/geheim`);
          expect(await page.title()).toBe('Passwort erforderlich');
          expect(await page.locator('html').getAttribute('lang')).toBe('de');
          await page.getByLabel('Passwort').fill('Sesam');
          await page.getByRole('button', { name: 'Weiter' }).click();
          await page.waitForURL(landing('/geheim'));

          await page.context().addCookies([{ name: 'kurz-lang', value: 'fr', url: kurz.url }]);
          await page.goto(`${kurz.url}/offre+report`);
          await page.getByLabel('Motif', { exact: true }).waitFor();
          expect(await page.title()).toBe('Signaler un lien');
          // The messages its script reads are data in the page, as JSON.
          const messages = JSON.parse(
            (await page.locator('#kurz-messages').textContent()) ?? '{}',
          ) as Record<string, string>;
          expect(messages['page.report.done']).toBe('Merci\u00a0: le signalement a bien été reçu.');
          expect(violations).toEqual([]);
        },
        { locale: 'de-DE' },
      );
    },
    TIMEOUT,
  );
});
