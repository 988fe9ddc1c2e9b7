// The page a password-protected link answers with: a form that posts the password back
// to the same address, labelled for screen readers, with no script (web/page-shell.ts's
// policy refuses everything else, and lets the form post to kurz only). After the right
// password a browser gets a page that sends it on (passwordAccepted): a redirect would
// carry the form's navigation to the target, which `form-action 'self'` forbids.

import type { Translator } from '../i18n/translate.ts';
import { escapeHtml } from '../web/html.ts';
import { htmlPage, pageLanguage } from '../web/page-shell.ts';

/** What the visitor is told beside the form: a wrong password, or too many of them. */
export type PasswordNotice = 'wrong' | 'tooMany';

function noticeText(language: Translator, notice: PasswordNotice): string {
  return notice === 'wrong'
    ? language.t('page.password.wrong')
    : language.t('page.password.tooMany');
}

/**
 * The page, in the request's language: 200 when first shown, 401 after a wrong password,
 * 429 while the client may not try again (with Retry-After in `headers`).
 */
export function passwordPage(
  status: 200 | 401 | 429,
  notice: PasswordNotice | undefined,
  headers: Readonly<Record<string, string>>,
  code: string,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const error =
    notice === undefined
      ? ''
      : `<p class="error" id="notice" role="alert">${escapeHtml(noticeText(language, notice))}</p>`;
  const described = notice === undefined ? '' : ' aria-describedby="notice" aria-invalid="true"';
  return htmlPage({
    language,
    status,
    title: escapeHtml(t('page.password.title')),
    headers,
    bodyless: request.method === 'HEAD',
    main: `<h1>${escapeHtml(t('page.password.heading'))}</h1>
<p>${escapeHtml(t('page.password.intro'))}</p>
<form method="post">
<label for="password">${escapeHtml(t('page.password.label'))}</label>
<input id="password" name="password" type="password" required autocomplete="current-password" autofocus${described}>
${error}
<button type="submit">${escapeHtml(t('page.password.submit'))}</button>
</form>
<p class="small"><a href="/${escapeHtml(code)}+report">${escapeHtml(t('page.reportLink'))}</a></p>`,
  });
}

/**
 * The answer to a browser's right password: a page that refreshes to the target at once
 * (a new navigation, not the form's), with a link for a browser that does not.
 */
export function passwordAccepted(
  location: string,
  headers: Readonly<Record<string, string>>,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const target = escapeHtml(location);
  return htmlPage({
    language,
    status: 200,
    title: escapeHtml(t('page.passwordAccepted.title')),
    headers,
    head: `<meta http-equiv="refresh" content="0; url=${target}">`,
    main: `<h1>${escapeHtml(t('page.passwordAccepted.heading'))}</h1>
<p><a class="button" href="${target}" rel="noreferrer">${escapeHtml(t('page.passwordAccepted.continue'))}</a></p>`,
  });
}
