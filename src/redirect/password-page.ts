// The page a password-protected link answers with: a form that posts the password back
// to the same address, labelled for screen readers, with no script (page-shell.ts's
// policy refuses everything else, and lets the form post to kurz only). After the right
// password a browser gets a page that sends it on (passwordAccepted): a redirect would
// carry the form's navigation to the target, which `form-action 'self'` forbids.

import { escapeHtml } from '../web/html.ts';
import { htmlPage } from './page-shell.ts';

/** What the visitor is told beside the form. */
export const PasswordNotices = {
  wrong: 'Wrong password. Please try again.',
  tooMany: 'Too many wrong passwords. Please wait a while and try again.',
} as const;

/**
 * The page: 200 when first shown, 401 after a wrong password, 429 while the client may
 * not try again (with Retry-After in `headers`).
 */
export function passwordPage(
  status: 200 | 401 | 429,
  notice: (typeof PasswordNotices)[keyof typeof PasswordNotices] | undefined,
  headers: Readonly<Record<string, string>>,
  code: string,
): Response {
  const error =
    notice === undefined
      ? ''
      : `<p class="error" id="notice" role="alert">${escapeHtml(notice)}</p>`;
  const described = notice === undefined ? '' : ' aria-describedby="notice" aria-invalid="true"';
  return htmlPage({
    status,
    title: 'Password required',
    headers,
    main: `<h1>This link is protected</h1>
<p>Enter its password to continue.</p>
<form method="post">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password" autofocus${described}>
${error}
<button type="submit">Continue</button>
</form>
<p class="small"><a href="/${escapeHtml(code)}+report">Report this link</a></p>`,
  });
}

/**
 * The answer to a browser's right password: a page that refreshes to the target at once
 * (a new navigation, not the form's), with a link for a browser that does not.
 */
export function passwordAccepted(
  location: string,
  headers: Readonly<Record<string, string>>,
): Response {
  const target = escapeHtml(location);
  return htmlPage({
    status: 200,
    title: 'Continue',
    headers,
    head: `<meta http-equiv="refresh" content="0; url=${target}">`,
    main: `<h1>Password accepted</h1>
<p><a class="button" href="${target}" rel="noreferrer">Continue</a></p>`,
  });
}
