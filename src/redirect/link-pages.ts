// The pages of a short link besides its redirect: the disabled link's (410), the `+`
// page (what a link is before following it, also shown as the new-account interstitial)
// and the report form. Owner-neutral: no page ever names who made a link.

import { escapeHtml } from '../web/html.ts';
import { htmlPage } from './page-shell.ts';

/** The report form's script, served from the web UI's assets (web/assets/report.js). */
export const REPORT_SCRIPT = '/assets/report.js';

/** What the `+` page tells of a link. */
export interface LinkFacts {
  code: string;
  shortUrl: string;
  /** The target; undefined when the reader may not see it (a password link). */
  originalUrl: string | undefined;
  createdAt: number;
  disabled: { reason: string | null } | null;
  expired: boolean;
  expiresAt: number | null;
  maxClicks: number | null;
  password: boolean;
  rules: number;
  variants: number;
}

const reportHref = (code: string) => `/${escapeHtml(code)}+report`;
const reportLink = (code: string) =>
  `<p class="small"><a href="${reportHref(code)}">Report this link</a></p>`;

/** 410 for a browser: the link was disabled, with the operator's reason when given. */
export function disabledPage(
  code: string,
  reason: string | null,
  headers: Readonly<Record<string, string>>,
  bodyless: boolean,
): Response {
  const why =
    reason === null ? '' : `<p>Reason given: <strong>${escapeHtml(reason)}</strong></p>\n`;
  return htmlPage({
    status: 410,
    title: 'Link disabled',
    headers,
    bodyless,
    main: `<h1>Link disabled</h1>
<p>This link was disabled by the operator.</p>
${why}<p class="small"><a href="/${escapeHtml(code)}+">About this link</a> · <a href="${reportHref(code)}">Report this link</a></p>`,
  });
}

/** How long ago a moment was, in the largest whole unit. */
export function ageOf(createdAt: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - createdAt) / 60_000);
  const units: [number, string][] = [
    [525_600, 'year'],
    [43_200, 'month'],
    [1_440, 'day'],
    [60, 'hour'],
    [1, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(minutes / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'} ago`;
  }
  return 'less than a minute ago';
}

const day = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/**
 * The `+` page: 200. With `proceed` (the new-account interstitial), a Continue button to
 * the link's redirect that skips this page.
 */
export function infoPage(
  facts: LinkFacts,
  headers: Readonly<Record<string, string>>,
  options: { now: number; proceed: boolean; bodyless: boolean },
): Response {
  const { code } = facts;
  const rows: string[] = [];
  const target = facts.originalUrl;
  if (facts.password) {
    rows.push('<dt>Leads to</dt><dd>Not shown: the link is protected by a password.</dd>');
  } else if (target !== undefined && (facts.disabled !== null || facts.expired)) {
    rows.push(`<dt>Leads to</dt><dd class="target">${escapeHtml(target)}</dd>`);
  } else if (target !== undefined) {
    const href = escapeHtml(target);
    rows.push(
      `<dt>Leads to</dt><dd class="target"><a href="${href}" rel="noreferrer nofollow">${href}</a></dd>`,
    );
  }
  rows.push(
    `<dt>Made</dt><dd>${ageOf(facts.createdAt, options.now)} (${day(facts.createdAt)})</dd>`,
  );
  if (facts.disabled !== null) {
    const why = facts.disabled.reason === null ? '' : `: ${escapeHtml(facts.disabled.reason)}`;
    rows.push(`<dt>Status</dt><dd>Disabled by the operator${why}</dd>`);
  } else if (facts.expired) {
    rows.push('<dt>Status</dt><dd>Expired: it no longer leads anywhere</dd>');
  }
  if (facts.expiresAt !== null && !facts.expired) {
    rows.push(`<dt>Expires</dt><dd>${day(facts.expiresAt)}</dd>`);
  }
  if (facts.maxClicks !== null && !facts.expired) {
    rows.push(`<dt>Click limit</dt><dd>Stops working after ${facts.maxClicks} clicks</dd>`);
  }
  if (facts.rules > 0 || facts.variants > 0) {
    const parts = [];
    if (facts.rules > 0) {
      parts.push(
        `${facts.rules} rule${facts.rules === 1 ? '' : 's'} (by device, system, browser, language, country, time or query)`,
      );
    }
    if (facts.variants > 0) parts.push(`a split between ${facts.variants} targets`);
    rows.push(`<dt>May lead elsewhere</dt><dd>Yes: ${parts.join(' and ')}</dd>`);
  }
  const interstitial = options.proceed
    ? `<p class="notice">This link was made by a new account. Check where it leads before you continue.</p>\n`
    : '';
  const proceed = options.proceed
    ? `<a class="button" href="/${escapeHtml(code)}+go" rel="noreferrer">Continue</a>\n`
    : '';
  return htmlPage({
    status: 200,
    title: `About ${escapeHtml(facts.shortUrl)}`,
    headers,
    bodyless: options.bodyless,
    main: `<h1>About this link</h1>
${interstitial}<p class="target">${escapeHtml(facts.shortUrl)}</p>
<dl>
${rows.join('\n')}
</dl>
${proceed}${reportLink(code)}`,
  });
}

/** The report form: posted by kurz's own script (REPORT_SCRIPT) to POST /api/reports. */
export function reportPage(
  facts: Pick<LinkFacts, 'code' | 'shortUrl'>,
  headers: Readonly<Record<string, string>>,
  bodyless: boolean,
): Response {
  const { code, shortUrl } = facts;
  return htmlPage({
    status: 200,
    title: 'Report a link',
    headers,
    bodyless,
    script: REPORT_SCRIPT,
    main: `<h1>Report a link</h1>
<p>Tell the operator of this service what is wrong with <span class="target">${escapeHtml(shortUrl)}</span>.</p>
<form id="report" data-code="${escapeHtml(code)}" data-short-url="${escapeHtml(shortUrl)}">
<label for="reason">Reason</label>
<select id="reason" name="reason" required>
<option value="phishing">Phishing: it asks for passwords or payment details</option>
<option value="malware">Malware: it installs harmful software</option>
<option value="spam">Spam</option>
<option value="illegal">Illegal content</option>
<option value="other">Something else</option>
</select>
<label for="details">Details (optional)</label>
<textarea id="details" name="details" maxlength="1000"></textarea>
<p class="error" id="report-error" role="alert" hidden></p>
<button type="submit">Send report</button>
</form>
<p id="report-done" role="status" tabindex="-1" hidden>Thank you: the report was received.</p>
<p class="small"><a href="/${escapeHtml(code)}+">About this link</a></p>`,
  });
}
