// The pages a sign-in through the OpenID Provider ends on, in the request's language.
// Signed in: a page that hands kurz's token to the web UI (stored as a password login
// stores it, by the module script signed-in.js, whose texts the page carries as JSON) and
// goes on to `/` — the token is in the page, never in a URL, where history, logs and
// Referer headers would keep it. Refused: the reason, in words, and a way back. Both are
// small pages of web/page-shell.ts: never cached, never framed, under its strict CSP.

import { type Message, Messages } from '../domain/errors.ts';
import { messagesOf } from '../i18n/page-messages.ts';
import type { Translator } from '../i18n/translate.ts';
import { escapeHtml } from '../web/html.ts';
import { htmlPage, pageLanguage } from '../web/page-shell.ts';

/** The page that stores the session in the browser and opens the UI. */
export function signedInPage(
  session: { token: string; user: { email: string } },
  headers: Record<string, string>,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const title = escapeHtml(t('oidc.signedIn.title'));
  return htmlPage({
    language,
    status: 200,
    title,
    headers,
    head: `<meta name="kurz-token" content="${escapeHtml(session.token)}">
<meta name="kurz-email" content="${escapeHtml(session.user.email)}">`,
    messages: messagesOf(language, ['oidc.signedIn.']),
    script: '/assets/signed-in.js',
    main: `<h1>${title}</h1>
<p id="signed-in-status" role="status">${escapeHtml(t('oidc.signedIn.opening'))}</p>
<noscript><p>${escapeHtml(t('oidc.signedIn.noScript'))} <a href="/">${escapeHtml(t('oidc.signedIn.back'))}</a></p></noscript>`,
  });
}

/** Why a sign-in failed, in the page's language (English: the message itself). */
function reasonOf(language: Translator, message: Message): string {
  const { t } = language;
  switch (message) {
    case Messages.oidcUnavailable:
      return t('oidc.failed.unavailable');
    case Messages.oidcAttemptLost:
      return t('oidc.failed.attemptLost');
    case Messages.oidcRefused:
      return t('oidc.failed.refused');
    case Messages.oidcUnverified:
      return t('oidc.failed.unverified');
    case Messages.oidcEmailUnverified:
      return t('oidc.failed.emailUnverified');
    case Messages.oidcDomain:
      return t('oidc.failed.domain');
    case Messages.oidcRegistrationClosed:
      return t('oidc.failed.registrationClosed');
    case Messages.oidcLinkedElsewhere:
      return t('oidc.failed.linkedElsewhere');
    case Messages.accountDisabled:
      return t('oidc.failed.accountDisabled');
    default:
      return message;
  }
}

/** The page of a sign-in that did not succeed: what went wrong and a way back. */
export function signInFailedPage(
  status: number,
  message: Message,
  headers: Record<string, string>,
  request: Request,
): Response {
  const language = pageLanguage(request);
  const { t } = language;
  const title = escapeHtml(t('oidc.failed.title'));
  return htmlPage({
    language,
    status,
    title,
    headers,
    main: `<h1>${title}</h1>
<p role="alert">${escapeHtml(reasonOf(language, message))}</p>
<p><a href="/">${escapeHtml(t('oidc.failed.back'))}</a></p>`,
  });
}
