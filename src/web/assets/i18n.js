// The web UI's texts in the person's language. The server picks the language (the
// `kurz-lang` cookie this module sets, else Accept-Language, else English), translates
// the page's static text, and puts the language's messages (over English's) in the page
// as JSON; this module gives the views the same messages: t() fills `{name}`
// placeholders and picks plural forms with Intl.PluralRules, and numbers and dates are
// written with Intl in the page's language. src/i18n/translate.ts does the same on the
// server.

const source = document.getElementById('kurz-messages');
const messages = source === null ? {} : JSON.parse(source.textContent ?? '{}');

/** The page's language (`<html lang>`), as the server chose it. */
export const language = document.documentElement.lang || 'en';

const plurals = new Intl.PluralRules(language);
const numbers = new Intl.NumberFormat(language);
const dates = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });

/** The cookie the server reads; a year, for every path of kurz. */
const COOKIE = 'kurz-lang';

function fill(text, params) {
  if (params === undefined) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === 'number' ? numbers.format(value) : String(value);
  });
}

/**
 * The text of `key` with `params` filled in; a numeric `count` picks the plural form.
 * Plain text: put it in the page with textContent, never as HTML.
 */
export function t(key, params) {
  const message = messages[key];
  if (message === undefined) return key;
  if (typeof message === 'string') return fill(message, params);
  const count = params?.count;
  const form = typeof count === 'number' ? plurals.select(count) : 'other';
  return fill(message[form] ?? message.other ?? key, params);
}

/** A number as the page's language writes it. */
export function formatNumber(n) {
  return numbers.format(n);
}

/** An ISO instant as the page's language writes a date and time (the viewer's time zone). */
export function formatDateTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dates.format(date);
}

/**
 * Translates what a view adds from a template: `data-i18n="key"` sets an element's
 * text, `data-i18n-attr="placeholder=key;aria-label=key"` its attributes.
 */
export function translate(root) {
  const all = [root, ...root.querySelectorAll('[data-i18n], [data-i18n-attr]')];
  for (const element of all) {
    if (!(element instanceof Element)) continue;
    const key = element.getAttribute('data-i18n');
    if (key) element.textContent = t(key);
    const attrs = element.getAttribute('data-i18n-attr');
    if (!attrs) continue;
    for (const pair of attrs.split(';')) {
      const [name, attrKey] = pair.split('=');
      if (name && attrKey) element.setAttribute(name.trim(), t(attrKey.trim()));
    }
  }
}

/** The languages the chooser offers: code → the language's own name (from the page). */
export function languages() {
  return messages.$languages ?? { [language]: messages.$name ?? language };
}

/** Keeps the person's choice (for every page of kurz) and shows the page in it. */
export function chooseLanguage(code) {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from older Safari and Firefox still in use; the value is a language code, encoded
  document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  try {
    localStorage.setItem(COOKIE, code);
  } catch {
    // Storage may be off; the cookie is what the server reads.
  }
  location.reload();
}
