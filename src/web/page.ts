// The page (index.html) in a language: its static text, marked `data-i18n="key"` (the
// element's text) or `data-i18n-attr="attr=key;…"` (attributes), translated here with
// Bun's HTMLRewriter, `<html lang dir>` set from the catalogue, and the language's
// messages inlined as JSON for the views' t() (src/web/assets/i18n.js). A JSON block is
// data, never run, so the page's Content Security Policy stays as strict as it was.

import { CATALOGUES, LANGUAGES } from '../i18n/catalogues.ts';
import { catalogueJson } from '../i18n/page-messages.ts';
import type { Translator } from '../i18n/translate.ts';
import { escapeHtml } from './html.ts';

/** Code → the language's own name, for the chooser. */
const OWN_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  LANGUAGES.map((code) => [code, String(CATALOGUES[code]?.$name ?? code)]),
);

/** The page's messages block: the language's messages and the chooser's names, as safe JSON. */
export function messagesJson(translation: Translator): string {
  return catalogueJson({ ...translation.messages, $languages: OWN_NAMES });
}

/** `html` (the whole page, parts filled in) in the translator's language. */
export function translatePage(html: string, translation: Translator): string {
  const { t } = translation;
  const json = messagesJson(translation);
  return new HTMLRewriter()
    .on('html', {
      element(element) {
        element.setAttribute('lang', translation.language);
        element.setAttribute('dir', translation.dir);
      },
    })
    .on('[data-i18n]', {
      element(element) {
        const key = element.getAttribute('data-i18n');
        if (key) element.setInnerContent(t(key), { html: false });
      },
    })
    .on('[data-i18n-attr]', {
      element(element) {
        for (const pair of (element.getAttribute('data-i18n-attr') ?? '').split(';')) {
          const [name, key] = pair.split('=').map((part) => part.trim());
          // The rewriter quotes the value but leaves `&` and `<` as they are: escape them all.
          if (name && key) element.setAttribute(name, escapeHtml(t(key)));
        }
      },
    })
    .on('script#kurz-messages', {
      element(element) {
        // Written as it is: catalogueJson leaves no `<` in it to end the element.
        element.setInnerContent(json, { html: true });
      },
    })
    .transform(html);
}
