// The messages a page's script reads (web/assets/i18n.js), put in the page by the server
// as a JSON block: data, never run, so a strict Content-Security-Policy (no inline
// script) still holds.

import type { Catalogue } from './catalogues.ts';
import type { Translator } from './translate.ts';

/**
 * Messages as JSON safe inside a script element: `<` is written `\u003c` (so no
 * `</script>` or `<!--` can end or bend the block), as are the line separators.
 */
export function catalogueJson(messages: Catalogue): string {
  return JSON.stringify(messages)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

/** `<script type="application/json" id="kurz-messages">`: data, never run. */
export function messagesScript(messages: Catalogue): string {
  return `<script type="application/json" id="kurz-messages">${catalogueJson(messages)}</script>`;
}

const subsets = new Map<string, Catalogue>();

/** The messages whose keys start with one of `prefixes`, and the catalogue's own (`$name`, `$dir`). */
export function messagesOf(language: Translator, prefixes: readonly string[]): Catalogue {
  const id = `${language.language} ${prefixes.join(' ')}`;
  let subset = subsets.get(id);
  if (subset === undefined) {
    subset = Object.fromEntries(
      Object.entries(language.messages).filter(
        ([key]) => key.startsWith('$') || prefixes.some((prefix) => key.startsWith(prefix)),
      ),
    );
    subsets.set(id, subset);
  }
  return subset;
}
