// Signing in through an OpenID Provider in Chromium, against dist/kurz (run `bun run build`
// first) and oidc-provider (test/support/oidc-provider.ts): the button on the sign-in view,
// the provider's form, and back in kurz signed in; a refusal told on its page; and with
// --password-login off, the button alone.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { call, type Running } from '../support/binary.ts';
import { launchBrowser } from '../support/browser.ts';
import { CLIENT_ID, CLIENT_SECRET, TestProvider } from '../support/oidc-provider.ts';
import { waitForText, withKurz } from '../support/web-page.ts';

// Page globals of the functions given to evaluate() (no DOM library in the tsconfig).
declare const localStorage: { getItem(key: string): string | null };

const TIMEOUT = 60_000;
const NAME = 'Sign in with the test provider';

let browser: Browser;
let op: TestProvider;
beforeAll(async () => {
  browser = await launchBrowser();
  op = await TestProvider.start();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await op?.close();
}, 30_000);

const oidcArgs = (...more: string[]) => [
  '--mode',
  'accounts',
  '--oidc-issuer',
  op.issuer,
  '--oidc-client-id',
  CLIENT_ID,
  '--oidc-client-secret',
  CLIENT_SECRET,
  '--oidc-name',
  NAME,
  ...more,
];

/**
 * kurz's own address, which is its base URL (http://localhost:PORT without --base-url):
 * the attempt cookie belongs to the host the sign-in starts on, and the provider sends
 * the browser back to the base URL.
 */
function home(kurz: Running): string {
  const url = `http://localhost:${kurz.port}`;
  op.allowRedirect(`${url}/api/auth/oidc/callback`);
  return url;
}

/** From kurz's sign-in view, through the provider's form as `login`. */
async function signInThrough(page: Page, kurz: Running, login: string) {
  await page.goto(home(kurz));
  const button = page.getByRole('link', { name: NAME });
  await button.click();
  await page.locator('#login').fill(login);
  await page.locator('#sign-in').click();
}

describe('sign-in through the identity provider', () => {
  test(
    'the button leads to the provider and back, signed in to the web UI',
    async () => {
      await withKurz(browser, oidcArgs(), async (kurz, page) => {
        await signInThrough(page, kurz, 'ann');
        await page.locator('#app-view').waitFor();
        await waitForText(page.locator('#session-email'), 'ann@example.com');
        expect(new URL(page.url()).pathname).toBe('/');
        // No token in any address the browser went through.
        const token = await page.evaluate(() => localStorage.getItem('kurz.token'));
        expect(token).toBeString();
        expect(page.url()).not.toContain(token as string);
        // The token is kurz's own: the API takes it.
        const links = await call(kurz.url, 'GET', '/api/links', { token: token as string });
        expect(links.status).toBe(200);
        // The UI works as after a password login.
        await page.locator('#url').fill('https://example.com/after-sign-in');
        await page.locator('#shorten-form button[type="submit"]').click();
        await page.locator('#link-rows tr').first().waitFor();
      });
    },
    TIMEOUT,
  );

  test(
    'a refused sign-in says why, with a way back',
    async () => {
      await withKurz(browser, oidcArgs(), async (kurz, page) => {
        await signInThrough(page, kurz, 'bob');
        await waitForText(
          page.getByRole('alert'),
          'Your identity provider did not give a verified e-mail address, which kurz needs to find or make your account.',
        );
        await page.getByRole('link', { name: 'Back to the sign-in page' }).click();
        await page.getByRole('link', { name: NAME }).waitFor();
        expect(kurz.output()).toContain('kurz: OIDC sign-in failed:');
      });
    },
    TIMEOUT,
  );

  test(
    'with --password-login off, the sign-in view offers the button alone',
    async () => {
      await withKurz(browser, oidcArgs('--password-login', 'off'), async (kurz, page) => {
        await page.goto(home(kurz));
        const button = page.getByRole('link', { name: NAME });
        await button.waitFor();
        expect(await page.locator('#auth-form').isHidden()).toBe(true);
        await waitForText(
          page.locator('#auth-lead'),
          'Sign in with your account at the identity provider.',
        );
        const login = await call(kurz.url, 'POST', '/api/auth/login', {
          json: { email: 'ann@example.com', password: 'correct horse 42' },
        });
        expect(login.status).toBe(403);
        await signInThrough(page, kurz, 'ann');
        await waitForText(page.locator('#session-email'), 'ann@example.com');
      });
    },
    TIMEOUT,
  );

  test(
    'without a provider, the sign-in view is the password form alone',
    async () => {
      await withKurz(browser, ['--mode', 'accounts'], async (kurz, page) => {
        await page.goto(kurz.url);
        await page.locator('#auth-form').waitFor();
        expect(await page.locator('.auth-oidc').count()).toBe(0);
      });
    },
    TIMEOUT,
  );
});
