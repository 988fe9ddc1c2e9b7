// The pages a sign-in through the OpenID Provider ends on. Signed in: a page that hands
// kurz's token to the web UI (stored as a password login stores it, by the module script
// signed-in.js) and goes on to `/` — the token is in the page, never in a URL, where
// history, logs and Referer headers would keep it. Refused: the reason, in words, and a
// way back. Strict CSP: the page's own style and the UI's scripts, nothing else.

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
};

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
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

/** The page that stores the session in the browser and opens the UI. */
export function signedInPage(
  session: { token: string; user: { email: string } },
  headers: Record<string, string>,
): Response {
  const body = page(
    'Signed in',
    `<meta name="kurz-token" content="${escapeHtml(session.token)}">
<meta name="kurz-email" content="${escapeHtml(session.user.email)}">
<script type="module" src="/assets/signed-in.js"></script>`,
    `<h1>Signed in</h1>
<p id="signed-in-status" role="status">Opening kurz…</p>
<noscript><p>kurz needs JavaScript to keep your session. <a href="/">Back to kurz</a></p></noscript>`,
  );
  return new Response(body, { status: 200, headers: { ...headers, ...HEADERS } });
}

/** The page of a sign-in that did not succeed: what went wrong and a way back. */
export function signInFailedPage(
  status: number,
  message: string,
  headers: Record<string, string>,
): Response {
  const body = page(
    'Sign-in failed',
    '',
    `<h1>Sign-in failed</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="/">Back to the sign-in page</a></p>`,
  );
  return new Response(body, { status, headers: { ...headers, ...HEADERS } });
}
