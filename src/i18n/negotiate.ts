// Which language a request is answered in: the person's own choice, kept by the web UI in
// the `kurz-lang` cookie, then the browser's Accept-Language, then English.

import { FALLBACK, LANGUAGES, type Language } from './catalogues.ts';

/** The cookie the web UI's language chooser sets (a year, path /, SameSite=Lax). */
export const LANGUAGE_COOKIE = 'kurz-lang';

const KNOWN = new Set<string>(LANGUAGES);

/** `de-AT` → `de` when kurz speaks German; undefined when it speaks no such language. */
function known(tag: string): Language | undefined {
  const lower = tag.trim().toLowerCase();
  if (KNOWN.has(lower)) return lower;
  const primary = lower.split('-')[0] ?? '';
  return KNOWN.has(primary) ? primary : undefined;
}

/** The language of the `kurz-lang` cookie, when it names one kurz speaks. */
function chosen(cookieHeader: string | null): Language | undefined {
  if (cookieHeader === null) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === LANGUAGE_COOKIE) {
      return known(part.slice(eq + 1));
    }
  }
  return undefined;
}

/** The best of Accept-Language's ranges kurz speaks (q-values honoured, q=0 never). */
function accepted(header: string | null): Language | undefined {
  if (header === null) return undefined;
  let best: { language: Language; q: number } | undefined;
  for (const range of header.split(',').slice(0, 32)) {
    const [tag = '', ...params] = range.split(';');
    const qParam = params.find((p) => p.trim().startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.trim().slice(2));
    if (!(q > 0)) continue;
    const language = known(tag);
    if (language !== undefined && (best === undefined || q > best.q)) best = { language, q };
  }
  return best?.language;
}

/** The language to answer `headers` in. */
export function languageOf(headers: Headers): Language {
  return chosen(headers.get('cookie')) ?? accepted(headers.get('accept-language')) ?? FALLBACK;
}
