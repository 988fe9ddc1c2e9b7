// The small pages kurz answers browsers with outside the web UI (the password form, the
// disabled link, the `+` page, the report form, the end of a sign-in through the
// identity provider): one stylesheet, hashed into a strict Content-Security-Policy,
// readable on a phone, in light and dark. A page may add one module script of kurz's own
// (the report form's, the sign-in's); nothing else loads. Each is in the
// language of its request (languageOf: the kurz-lang cookie, then Accept-Language), so
// its answers say Vary: Cookie, Accept-Language; a page with a script carries the
// messages that script needs as a JSON block (not run, so the policy still allows no
// inline script).

import type { Catalogue } from '../i18n/catalogues.ts';
import { languageOf } from '../i18n/negotiate.ts';
import { messagesScript } from '../i18n/page-messages.ts';
import { type Translator, translator } from '../i18n/translate.ts';
import { escapeHtml } from './html.ts';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(32rem, 100% - 2rem); padding: 1.5rem; box-sizing: border-box; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input, select, textarea, button, .button { font: inherit; width: 100%; box-sizing: border-box; padding: .65rem .75rem; border-radius: .4rem; }
input, select, textarea { border: 1px solid GrayText; background: Field; color: FieldText; }
textarea { min-height: 6rem; resize: vertical; }
button, .button { display: block; margin-top: 1rem; border: 0; background: #2454d6; color: #fff; cursor: pointer; text-align: center; text-decoration: none; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, a:focus-visible { outline: 3px solid #7aa2ff; outline-offset: 2px; }
.error { color: #c62828; font-weight: 600; margin: .75rem 0 0; }
.target { overflow-wrap: anywhere; font-family: ui-monospace, monospace; unicode-bidi: plaintext; }
.notice { border-inline-start: 4px solid #e0a100; padding: .25rem .75rem; }
dl { margin: 1rem 0; } dt { font-weight: 600; } dd { margin: 0 0 .5rem; overflow-wrap: anywhere; }
.small { font-size: .9rem; }
@media (prefers-color-scheme: dark) { .error { color: #ff8a80; } button, .button { background: #4f7cff; } }
`;

const STYLE_HASH = new Bun.CryptoHasher('sha256').update(STYLE).digest('base64');

/**
 * Nothing but the page's own stylesheet (and, with `script`, kurz's own scripts and
 * requests). A form may post only to kurz itself.
 */
function policy(script: boolean): string {
  const scripts = script ? " script-src 'self'; connect-src 'self';" : '';
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}';${scripts} form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

const POLICY = policy(false);
const POLICY_WITH_SCRIPT = policy(true);

export interface Page {
  /** The page's language: its `lang`, `dir` and Content-Language. */
  language: Translator;
  status: number;
  title: string;
  /** The inside of <main>, escaped by the caller. */
  main: string;
  /** Headers every answer carries (nosniff, HSTS), and any of the page's own (Retry-After). */
  headers: Readonly<Record<string, string>>;
  /** The path of a module script of kurz's own (/assets/…). */
  script?: string;
  /** The messages the script reads (web/assets/i18n.js), inlined as JSON. */
  messages?: Catalogue;
  /** More of <head> (a refresh, meta elements), escaped by the caller. */
  head?: string;
  /** A HEAD request: the same headers, no body. */
  bodyless?: boolean;
}

/**
 * The start of a small page, to its `<title>` (`title` escaped by the caller): in the
 * language's `lang` and `dir`, sized for phones, and kept out of search engines.
 */
export function pageStart(language: Translator, title: string): string {
  return `<!doctype html>
<html lang="${language.language}" dir="${language.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>`;
}

/** The page: never cached, never framed, and never sends a Referer on to anything. */
export function htmlPage(page: Page): Response {
  const { language } = page;
  const messages = page.messages === undefined ? '' : `\n${messagesScript(page.messages)}`;
  const script =
    page.script === undefined ? '' : `\n<script type="module" src="${page.script}"></script>`;
  const body = `${pageStart(language, page.title)}
<style>${STYLE}</style>${messages}${script}${page.head === undefined ? '' : `\n${page.head}`}
</head>
<body>
<main>
${page.main}
</main>
</body>
</html>
`;
  return new Response(page.bodyless === true ? null : body, {
    status: page.status,
    headers: {
      ...page.headers,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.script === undefined ? POLICY : POLICY_WITH_SCRIPT,
      'cache-control': 'private, no-store',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-language': language.language,
      vary: 'Cookie, Accept-Language',
    },
  });
}

/** The translator of the language a request is answered in (only pages pay for this). */
export function pageLanguage(request: Request): Translator {
  return translator(languageOf(request.headers));
}

/**
 * A translated text, escaped, with markup in some of its placeholders: `text` is t()'s
 * answer with those placeholders left unfilled, `html` their markup (escaped by the caller).
 */
export function withMarkup(text: string, html: Readonly<Record<string, string>>): string {
  return escapeHtml(text).replace(/\{(\w+)\}/g, (whole, name: string) => html[name] ?? whole);
}

/** Whether a request is a browser's: its Accept names text/html (API clients get JSON). */
export function wantsHtml(request: Request): boolean {
  return (request.headers.get('accept') ?? '').includes('text/html');
}
