// The page a link-preview crawler is answered with: the link's Open Graph and Twitter card
// tags, and for anyone else who gets it a refresh to the target and a link there, in the
// request's language. No script.

import type { Translator } from '../i18n/translate.ts';
import { escapeHtml } from '../web/html.ts';
import { pageStart } from '../web/page-shell.ts';

/** What a link's preview card shows; null: left out. */
export interface Preview {
  title: string | null;
  description: string | null;
  /** An absolute https URL. */
  image: string | null;
}

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(32rem, 100% - 2rem); padding: 1.5rem; overflow-wrap: anywhere; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
`;

/**
 * No script of any kind; images from https only (the card's own, should a client show
 * the page); nothing sent anywhere by a form or framed.
 */
export const PREVIEW_CSP =
  "default-src 'none'; img-src https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `<meta {attribute}="{key}" content="{value}">`, or nothing when there is no value. */
function meta(attribute: 'property' | 'name', key: string, value: string | null): string {
  return value === null ? '' : `<meta ${attribute}="${key}" content="${escapeHtml(value)}">\n`;
}

/**
 * The page, 200, never cached, in `language`. `target` must be an http(s) URL: it is the
 * refresh's and the link's destination. `extraHeaders` are added to the page's own, never
 * in their place.
 */
export function previewPage(
  preview: Preview,
  target: string,
  language: Translator,
  extraHeaders: Readonly<Record<string, string>> = {},
): Response {
  const parsed = URL.parse(target);
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    // A javascript: or data: URL in a refresh or a link would run in the short domain's origin.
    throw new TypeError('A preview page leads only to an http(s) URL');
  }
  // Cards want a title: without one, the target stands for itself.
  const title = preview.title ?? target;
  const { description, image } = preview;
  const card = image === null ? 'summary' : 'summary_large_image';
  const tags = [
    meta('property', 'og:type', 'website'),
    meta('property', 'og:url', target),
    meta('property', 'og:title', title),
    meta('property', 'og:description', description),
    meta('property', 'og:image', image),
    meta('name', 'twitter:card', card),
    meta('name', 'twitter:title', title),
    meta('name', 'twitter:description', description),
    meta('name', 'twitter:image', image),
  ].join('');
  const text = description === null ? '' : `<p>${escapeHtml(description)}</p>\n`;
  const body = `${pageStart(language, escapeHtml(title))}
${tags}<meta http-equiv="refresh" content="0; url=${escapeHtml(target)}">
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${text}<p><a href="${escapeHtml(target)}">${escapeHtml(language.t('page.preview.continue', { host: parsed.host }))}</a></p>
</main>
</body>
</html>
`;
  // Set over the extra ones, whatever the case of their names, so that none weakens them.
  const headers = new Headers(extraHeaders);
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('content-security-policy', PREVIEW_CSP);
  headers.set('x-content-type-options', 'nosniff');
  headers.set('referrer-policy', 'no-referrer');
  headers.set('cache-control', 'private, no-store');
  headers.set('content-language', language.language);
  headers.append('vary', 'Cookie, Accept-Language');
  return new Response(body, { status: 200, headers });
}
