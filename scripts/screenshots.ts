// Screenshots of the web UI for the docs: `bun run build && bun scripts/screenshots.ts`.
// Starts dist/kurz (accounts mode, a temporary database with a second short domain),
// makes a user with a few tagged links and clicks, and saves the main view at desktop and
// phone sizes, light and dark, to docs/screenshots/{desktop,mobile}-{light,dark}.png.

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startKurz } from '../test/support/binary.ts';
import {
  click,
  createLinks,
  databaseWithDomains,
  launchBrowser,
  registerUser,
} from '../test/support/browser.ts';

const OUT = resolve(import.meta.dir, '..', 'docs', 'screenshots');
const BASE_URL = 'https://go.example.org';
const OTHER_DOMAIN = 'https://events.example.org';
const EMAIL = 'ann@example.org';

const LINKS = [
  {
    url: 'https://www.openstreetmap.org/#map=16/52.52001/13.40495',
    custom_code: 'meetup-map',
    domain: 'events.example.org',
    tags: ['meetup'],
  },
  {
    url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/Reference/Headers/Content-Security-Policy',
    source: 'team-chat',
  },
  {
    url: 'https://github.com/oven-sh/bun/releases/tag/bun-v1.2.0',
    custom_code: 'bun-release',
    source: 'changelog',
    tags: ['docs', 'release'],
  },
  {
    url: 'https://shop.example.com/collections/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale-2026',
    custom_code: 'spring-sale',
    source: 'newsletter',
    tags: ['newsletter', 'spring'],
  },
];
const CLICKS = [12, 3, 41, 7];

const SIZES = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 375, height: 812 },
} as const;

mkdirSync(OUT, { recursive: true });
const db = await databaseWithDomains([OTHER_DOMAIN]);
const kurz = await startKurz(['--mode', 'accounts', '--base-url', BASE_URL, '--db', db]);
const browser = await launchBrowser();
try {
  const token = await registerUser(kurz.url, EMAIL);
  const made = await createLinks(kurz.url, LINKS, token);
  for (const [i, link] of made.entries()) {
    const host = LINKS[i]?.domain;
    await click(kurz.url, link.short_code, CLICKS[i], host ? { host } : {});
  }
  const newest = made.at(-1)?.short_code ?? '';

  for (const [size, viewport] of Object.entries(SIZES)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({
        viewport,
        colorScheme,
        deviceScaleFactor: 1,
        isMobile: size === 'mobile',
      });
      // Logged in already, as after a login: the page reads the token on load.
      await context.addInitScript(
        ([token, email]) => {
          localStorage.setItem('kurz.token', token ?? '');
          localStorage.setItem('kurz.email', email ?? '');
        },
        [token, EMAIL],
      );
      const page = await context.newPage();
      await page.goto(kurz.url);
      await page.locator(`#link-rows a.short-link[href$="/${newest}"]`).waitFor();
      // Show the newest link in the result panel, with its QR code.
      await page.getByRole('button', { name: `QR code for ${BASE_URL}/${newest}` }).click();
      await page.waitForFunction(() => {
        const qr = document.getElementById('qr') as HTMLImageElement;
        return qr.src.startsWith('blob:') && qr.complete && qr.naturalWidth > 0;
      });
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.mouse.move(0, 0);
      await page.evaluate(() => window.scrollTo(0, 0));
      const path = join(OUT, `${size}-${colorScheme}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`wrote ${path}`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await kurz.stop();
}
