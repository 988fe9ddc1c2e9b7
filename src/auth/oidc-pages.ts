// The pages a sign-in through the OpenID Provider ends on, in the request's language.
// Signed in: a page that hands kurz's token to the web UI (stored as a password login
// stores it, by the module script signed-in.js, whose texts the page carries as JSON) and
// goes on to `/` — the token is in the page, never in a URL, where history, logs and
// Referer headers would keep it. Refused: the reason, in words, and a way back. Strict
// CSP: the page's own style and the UI's scripts, nothing else.

import { type Message, Messages } from '../domain/errors.ts';
import { languageOf } from '../i18n/negotiate.ts';
import { messagesOf, messagesScript } from '../i18n/page-messages.ts';
import { type Translator, translator } from '../i18n/translate.ts';
import { escapeHtml } from '../web/html.ts';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(28rem, 100% - 2rem); padding: 1.5rem; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
a { color: LinkText; font-weight: 600; }
`;

const STYLE_HASH = new Bun.CryptoHasher('sha256').update(STYLE).digest('base64');

const CSP = `default-src 'none'; script-src 'self'; style-src 'sha256-${STYLE_HASH}'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  // It carries a token, or says why none was given: no cache keeps either.
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  vary: 'Cookie, Accept-Language',
};

function page(language: Translator, title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="${language.language}" dir="${language.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
${head}
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const answer = (status: number, language: Translator, body: string, headers: object) =>
  new Response(body, {
    status,
    headers: { ...headers, ...HEADERS, 'content-language': language.language },
  });

/** The page that stores the session in the browser and opens the UI. */
export function signedInPage(
  session: { token: string; user: { email: string } },
  headers: Record<string, string>,
  request: Request,
): Response {
  const language = translator(languageOf(request.headers));
  const { t } = language;
  const title = t('oidc.signedIn.title');
  const body = page(
    language,
    title,
    `<meta name="kurz-token" content="${escapeHtml(session.token)}">
<meta name="kurz-email" content="${escapeHtml(session.user.email)}">
${messagesScript(messagesOf(language, ['oidc.signedIn.']))}
<script type="module" src="/assets/signed-in.js"></script>`,
    `<h1>${escapeHtml(title)}</h1>
<p id="signed-in-status" role="status">${escapeHtml(t('oidc.signedIn.opening'))}</p>
<noscript><p>${escapeHtml(t('oidc.signedIn.noScript'))} <a href="/">${escapeHtml(t('oidc.signedIn.back'))}</a></p></noscript>`,
  );
  return answer(200, language, body, headers);
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
  const language = translator(languageOf(request.headers));
  const { t } = language;
  const title = t('oidc.failed.title');
  const body = page(
    language,
    title,
    '',
    `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(reasonOf(language, message))}</p>
<p><a href="/">${escapeHtml(t('oidc.failed.back'))}</a></p>`,
  );
  return answer(status, language, body, headers);
}
