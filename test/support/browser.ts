// Drives Debian's Chromium (installed by scripts/ensure-chromium.sh, never downloaded by
// Playwright) against a running dist/kurz, plus the few API calls the browser tests and
// the screenshot script use to set the scene quickly.

import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import { call, tempDir } from './binary.ts';

export const CHROMIUM = '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const PASSWORD = 'correct horse 42';

export interface Account {
  id: number;
  token: string;
  email: string;
}

/** Registers an account through the API: its id, token and e-mail. */
export async function account(base: string, email: string): Promise<Account> {
  const reply = await call(base, 'POST', '/api/auth/register', {
    json: { email, password: PASSWORD },
  });
  if (reply.status !== 200) throw new Error(`register failed: ${reply.status} ${reply.text}`);
  return { id: reply.json.user.id, token: reply.json.token, email };
}

/** Registers an account through the API and returns its token. */
export async function registerUser(base: string, email: string): Promise<string> {
  return (await account(base, email)).token;
}

export interface NewLink {
  url: string;
  custom_code?: string;
  source?: string;
  /** The short domain's host or base URL (absent: the default one). */
  domain?: string;
  tags?: string[];
}

/** Creates links through the API, one after another (so their order is the given one). */
export async function createLinks(base: string, links: NewLink[], token?: string) {
  const made = [];
  for (const link of links) {
    const reply = await call(base, 'POST', '/api/shorten', { json: link, token });
    if (reply.status !== 201) throw new Error(`shorten failed: ${reply.status} ${reply.text}`);
    made.push(reply.json as { short_code: string; original_url: string });
  }
  return made;
}

/**
 * A fresh SQLite database with short domains besides the default one (base URLs such
 * as https://go.example.com), for `--db`: added through the store before kurz starts.
 */
export async function databaseWithDomains(baseUrls: string[]): Promise<string> {
  const path = join(tempDir(), 'kurz.db');
  const store = openSqlite({ path, durability: 'normal' });
  try {
    for (const baseUrl of baseUrls) {
      const url = new URL(baseUrl);
      const made = await store.createDomain({
        baseUrl: `${url.protocol}//${url.host}`,
        host: url.host,
        rootRedirect: null,
        notFoundRedirect: null,
        createdAt: Date.now(),
      });
      if (made === undefined) throw new Error(`domain ${baseUrl} exists`);
    }
  } finally {
    await store.close();
  }
  return path;
}

/** A desktop Chrome's User-Agent: clicks sent with it count as a person's, not a bot's. */
export const HUMAN_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

export interface ClickOptions {
  /** The User-Agent sent; Bun's own (which is a bot's to kurz) when absent. */
  userAgent?: string;
  /** The redirect's `?source=` (kept in accounts mode only). */
  source?: string;
  /** The Host sent, which chooses the short domain (absent: the default one's address). */
  host?: string;
}

/** Follows a short link `times` times without a browser, counting as many clicks. */
export async function click(base: string, code: string, times = 1, options: ClickOptions = {}) {
  const query = options.source === undefined ? '' : `?source=${encodeURIComponent(options.source)}`;
  const headers: Record<string, string> = {};
  if (options.userAgent !== undefined) headers['user-agent'] = options.userAgent;
  if (options.host !== undefined) headers.host = options.host;
  for (let i = 0; i < times; i++) {
    const reply = await fetch(`${base}/${code}${query}`, { redirect: 'manual', headers });
    if (reply.status !== 307) throw new Error(`redirect of ${code} gave ${reply.status}`);
  }
}

export interface OtherOrigin {
  /** Its origin, e.g. http://127.0.0.1:41234: another port is another origin. */
  url: string;
  stop(): Promise<void>;
}

/** Serves one HTML page from its own origin on 127.0.0.1, as another site would. */
export function serveOtherOrigin(html: string): OtherOrigin {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
