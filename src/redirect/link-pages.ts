// The pages of a short link besides its redirect: the disabled link's (410), the `+`
// page (what a link is before following it, also shown as the new-account interstitial)
// and the report form, each in the request's language, its dates and ages written by
// Intl in that language (in UTC: the server does not know the reader's time zone).
// Owner-neutral: no page ever names who made a link.

import { messagesOf } from '../i18n/page-messages.ts';
import type { Translator } from '../i18n/translate.ts';
import { escapeHtml } from '../web/html.ts';
import { htmlPage, pageLanguage, withMarkup } from '../web/page-shell.ts';

/** The report form's script, served from the web UI's assets (web/assets/report.js). */
export const REPORT_SCRIPT = '/assets/report.js';

/** The messages the report form's script reads (its own, and the pages'). */
const REPORT_MESSAGES = ['report.', 'page.'] as const;

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
const reportLink = (language: Translator, code: string) =>
  `<p class="small"><a href="${reportHref(code)}">${escapeHtml(language.t('page.reportLink'))}</a></p>`;

/** 410 for a browser: the link was disabled, with the operator's reason when given. */
export function disabledPage(
  code: string,
  reason: string | null,
  headers: Readonly<Record<string, string>>,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const why =
    reason === null
      ? ''
      : `<p>${withMarkup(t('page.disabled.reason'), { reason: `<strong>${escapeHtml(reason)}</strong>` })}</p>\n`;
  const title = escapeHtml(t('page.disabled.title'));
  return htmlPage({
    language,
    status: 410,
    title,
    headers,
    bodyless: request.method === 'HEAD',
    main: `<h1>${title}</h1>
<p>${escapeHtml(t('page.disabled.body'))}</p>
${why}<p class="small"><a href="/${escapeHtml(code)}+">${escapeHtml(t('page.aboutLink'))}</a> · <a href="${reportHref(code)}">${escapeHtml(t('page.reportLink'))}</a></p>`,
  });
}

const UNITS: readonly [number, Intl.RelativeTimeFormatUnit][] = [
  [525_600, 'year'],
  [43_200, 'month'],
  [1_440, 'day'],
  [60, 'hour'],
  [1, 'minute'],
];

interface Formats {
  ago: Intl.RelativeTimeFormat;
  moment: Intl.DateTimeFormat;
  list: Intl.ListFormat;
}

const formats = new Map<string, Formats>();

function formatsOf(language: string): Formats {
  let made = formats.get(language);
  if (made === undefined) {
    made = {
      ago: new Intl.RelativeTimeFormat(language, { numeric: 'always' }),
      moment: new Intl.DateTimeFormat(language, {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }),
      list: new Intl.ListFormat(language, { type: 'conjunction' }),
    };
    formats.set(language, made);
  }
  return made;
}

/** How long ago a moment was, in the largest whole unit ("3 days ago", "vor 3 Tagen"). */
export function ageOf(language: Translator, createdAt: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - createdAt) / 60_000);
  for (const [size, unit] of UNITS) {
    const n = Math.floor(minutes / size);
    if (n >= 1) return formatsOf(language.language).ago.format(-n, unit);
  }
  return language.t('page.info.justNow');
}

/** A moment as the language writes a date and time, in UTC (which it says). */
export const momentOf = (language: Translator, ms: number): string =>
  formatsOf(language.language).moment.format(ms);

/** The facts of the `+` page, as rows of its list (escaped). */
function factRows(language: Translator, facts: LinkFacts, now: number): string[] {
  const { t } = language;
  const row = (term: string, value: string, target = false) =>
    `<dt>${escapeHtml(term)}</dt><dd${target ? ' class="target"' : ''}>${value}</dd>`;
  const rows: string[] = [];
  const target = facts.originalUrl;
  const leadsTo = t('page.info.leadsTo');
  if (facts.password) {
    rows.push(row(leadsTo, escapeHtml(t('page.info.hiddenTarget'))));
  } else if (target !== undefined && (facts.disabled !== null || facts.expired)) {
    rows.push(row(leadsTo, escapeHtml(target), true));
  } else if (target !== undefined) {
    const href = escapeHtml(target);
    rows.push(row(leadsTo, `<a href="${href}" rel="noreferrer nofollow">${href}</a>`, true));
  }
  const made = t('page.info.madeWhen', {
    age: ageOf(language, facts.createdAt, now),
    date: momentOf(language, facts.createdAt),
  });
  rows.push(row(t('page.info.made'), escapeHtml(made)));
  if (facts.disabled !== null) {
    const reason = facts.disabled.reason;
    const status =
      reason === null ? t('page.info.disabled') : t('page.info.disabledReason', { reason });
    rows.push(row(t('page.info.status'), escapeHtml(status)));
  } else if (facts.expired) {
    rows.push(row(t('page.info.status'), escapeHtml(t('page.info.expired'))));
  }
  if (facts.expiresAt !== null && !facts.expired) {
    rows.push(row(t('page.info.expires'), escapeHtml(momentOf(language, facts.expiresAt))));
  }
  if (facts.maxClicks !== null && !facts.expired) {
    const limit = t('page.info.clickLimitValue', { count: facts.maxClicks });
    rows.push(row(t('page.info.clickLimit'), escapeHtml(limit)));
  }
  if (facts.rules > 0 || facts.variants > 0) {
    const parts = [];
    if (facts.rules > 0) parts.push(t('page.info.rules', { count: facts.rules }));
    if (facts.variants > 0) parts.push(t('page.info.split', { count: facts.variants }));
    const list = formatsOf(language.language).list.format(parts);
    rows.push(row(t('page.info.elsewhere'), escapeHtml(t('page.info.elsewhereYes', { list }))));
  }
  return rows;
}

/**
 * The `+` page: 200. With `proceed` (the new-account interstitial), a Continue button to
 * the link's redirect that skips this page.
 */
export function infoPage(
  facts: LinkFacts,
  headers: Readonly<Record<string, string>>,
  request: Request,
  options: { now: number; proceed: boolean },
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const { code } = facts;
  const interstitial = options.proceed
    ? `<p class="notice">${escapeHtml(t('page.info.newAccount'))}</p>\n`
    : '';
  const proceed = options.proceed
    ? `<a class="button" href="/${escapeHtml(code)}+go" rel="noreferrer">${escapeHtml(t('page.info.continue'))}</a>\n`
    : '';
  return htmlPage({
    language,
    status: 200,
    title: escapeHtml(t('page.info.title', { url: facts.shortUrl })),
    headers,
    bodyless: request.method === 'HEAD',
    main: `<h1>${escapeHtml(t('page.info.heading'))}</h1>
${interstitial}<p class="target">${escapeHtml(facts.shortUrl)}</p>
<dl>
${factRows(language, facts, options.now).join('\n')}
</dl>
${proceed}${reportLink(language, code)}`,
  });
}

/** The report form: posted by kurz's own script (REPORT_SCRIPT) to POST /api/reports. */
export function reportPage(
  facts: Pick<LinkFacts, 'code' | 'shortUrl'>,
  headers: Readonly<Record<string, string>>,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const { code, shortUrl } = facts;
  const title = escapeHtml(t('page.report.title'));
  const target = `<span class="target">${escapeHtml(shortUrl)}</span>`;
  const option = (value: string, text: string) =>
    `<option value="${value}">${escapeHtml(text)}</option>`;
  return htmlPage({
    language,
    status: 200,
    title,
    headers,
    bodyless: request.method === 'HEAD',
    script: REPORT_SCRIPT,
    messages: messagesOf(language, REPORT_MESSAGES),
    main: `<h1>${title}</h1>
<p>${withMarkup(t('page.report.intro'), { url: target })}</p>
<form id="report" data-code="${escapeHtml(code)}" data-short-url="${escapeHtml(shortUrl)}">
<label for="reason">${escapeHtml(t('page.report.reason'))}</label>
<select id="reason" name="reason" required>
${option('phishing', t('page.report.phishing'))}
${option('malware', t('page.report.malware'))}
${option('spam', t('page.report.spam'))}
${option('illegal', t('page.report.illegal'))}
${option('other', t('page.report.other'))}
</select>
<label for="details">${escapeHtml(t('page.report.details'))}</label>
<textarea id="details" name="details" maxlength="1000"></textarea>
<p class="error" id="report-error" role="alert" hidden></p>
<button type="submit">${escapeHtml(t('page.report.submit'))}</button>
</form>
<p id="report-done" role="status" tabindex="-1" hidden>${escapeHtml(t('page.report.done'))}</p>
<p class="small"><a href="/${escapeHtml(code)}+">${escapeHtml(t('page.aboutLink'))}</a></p>`,
  });
}
