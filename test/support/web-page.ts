// What the browser tests do with the page, shared by their files: run a test with a fresh
// kurz and page, wait for a text, find a link's row, register or arrive logged in, and
// check that nothing scrolls sideways. The page-side functions given to evaluate() run
// in Chromium; the few page globals they use are declared here (the project's tsconfig
// has no DOM library, which would break the server's Bun types).

import { expect } from 'bun:test';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { type Running, startKurz } from './binary.ts';
import { PASSWORD } from './browser.ts';

interface PageElement {
  scrollWidth: number;
  clientWidth: number;
}
declare const document: {
  documentElement: PageElement;
  querySelector(selector: string): PageElement | null;
};
declare const window: { innerWidth: number };
declare const localStorage: { setItem(key: string, value: string): void };

/** The sizes the UI is tested at: a desktop and a phone. */
export const SIZES = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;

export const MODES = ['accounts', 'open'] as const;
export type Mode = (typeof MODES)[number];

/** The operator's token an open-mode kurz of the browser tests is started with. */
export const ADMIN_TOKEN = 'the-admin-token-of-this-test-kurz-0123';

/** The flags of a kurz in `mode`: open mode with ADMIN_TOKEN, so its links can be managed. */
export const modeArgs = (mode: Mode) =>
  mode === 'open' ? ['--mode', 'open', '--admin-token', ADMIN_TOKEN] : ['--mode', 'accounts'];

/**
 * Runs `body` with a fresh kurz (started with `args`) and a page of a fresh browser
 * context; fails on any script error in the page.
 */
export async function withKurz(
  browser: Browser,
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

export const rows = (page: Page) => page.locator('#link-rows tr');

/** The row of a link, found by the end of its short URL (`go.example.com/promo` or `promo`). */
export const rowOf = (page: Page, code: string) =>
  rows(page).filter({ has: page.locator(`a.short-link[href$="/${code}"]`) });

/** The codes of the rows shown, in order. */
export const shortCodes = (page: Page) =>
  page
    .locator('#link-rows a.short-link')
    .evaluateAll((links) => links.map((a) => a.getAttribute('href')?.split('/').pop()));

/** Waits until the locator's text is exactly `text` (polled by Playwright). */
export async function waitForText(locator: Locator, text: string, timeout = 10_000) {
  await locator.filter({ hasText: new RegExp(`^${escapeRegExp(text)}$`) }).waitFor({ timeout });
}

export function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Registers through the page's form and waits for the main view. */
export async function register(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/** Makes the page start logged in with `token`, as after a login. */
export async function arriveLoggedIn(page: Page, token: string, email: string) {
  await page.addInitScript(
    ([value, address]) => {
      localStorage.setItem('kurz.token', value ?? '');
      localStorage.setItem('kurz.email', address ?? '');
    },
    [token, email],
  );
}

/** Neither the page nor an open dialog scrolls sideways. */
export const fitsWidth = (page: Page) =>
  page.evaluate(() => {
    const open = document.querySelector('dialog[open]');
    return (
      document.documentElement.scrollWidth <= window.innerWidth &&
      (open === null || open.scrollWidth <= open.clientWidth)
    );
  });
