// The page a password-protected link answers with: a form that posts the password back
// to the same address. Plain HTML with one hashed stylesheet and no script, so its
// Content-Security-Policy can refuse everything else; readable on a phone, in light
// and dark, and labelled for screen readers.

import { escapeHtml } from '../web/html.ts';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(24rem, 100% - 2rem); padding: 1.5rem; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input, button { font: inherit; width: 100%; box-sizing: border-box; padding: .65rem .75rem; border-radius: .4rem; }
input { border: 1px solid GrayText; background: Field; color: FieldText; }
button { margin-top: 1rem; border: 0; background: #2454d6; color: #fff; cursor: pointer; }
button:focus-visible, input:focus-visible { outline: 3px solid #7aa2ff; outline-offset: 2px; }
.error { color: #c62828; font-weight: 600; margin: .75rem 0 0; }
@media (prefers-color-scheme: dark) { .error { color: #ff8a80; } button { background: #4f7cff; } }
`;

const STYLE_HASH = new Bun.CryptoHasher('sha256').update(STYLE).digest('base64');

/**
 * Nothing but the page's own stylesheet. No form-action: browsers apply it to the
 * redirect that follows a form, and the target may redirect anywhere after that.
 */
const CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; frame-ancestors 'none'`;

/** What the visitor is told beside the form. */
export const PasswordNotices = {
  wrong: 'Wrong password. Please try again.',
  tooMany: 'Too many wrong passwords. Please wait a while and try again.',
} as const;

/**
 * The page: 200 when first shown, 401 after a wrong password, 429 while the client may
 * not try again (with Retry-After in `headers`). Never cached, and never sends a
 * Referer on to anything.
 */
export function passwordPage(
  status: 200 | 401 | 429,
  notice: (typeof PasswordNotices)[keyof typeof PasswordNotices] | undefined,
  headers: Readonly<Record<string, string>>,
): Response {
  const error =
    notice === undefined
      ? ''
      : `<p class="error" id="notice" role="alert">${escapeHtml(notice)}</p>`;
  const described = notice === undefined ? '' : ' aria-describedby="notice" aria-invalid="true"';
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Password required</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>This link is protected</h1>
<p>Enter its password to continue.</p>
<form method="post">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autocomplete="current-password" autofocus${described}>
${error}
<button type="submit">Continue</button>
</form>
</main>
</body>
</html>
`;
  return new Response(body, {
    status,
    headers: {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'cache-control': 'private, no-store',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
  });
}
