// Texts in a language: a key's message with its placeholders filled, numbers written as
// the language writes them and the plural form its rules pick. A key missing from a
// catalogue falls back to English; a key missing from English is a bug, and shows as
// itself so that a test finds it.

import { CATALOGUES, type Catalogue, FALLBACK, type Language } from './catalogues.ts';

export type Params = Readonly<Record<string, string | number>>;

export interface Translator {
  language: Language;
  /** `ltr` or `rtl`, for the page's `dir`. */
  dir: 'ltr' | 'rtl';
  /** The text of `key`; a numeric `count` picks the plural form. The result is plain text: escape it for HTML. */
  t(key: string, params?: Params): string;
  /** The catalogue the web UI gets: this language's messages over English's. */
  messages: Catalogue;
}

const translators = new Map<Language, Translator>();

/** The translator of `language` (made once per language). */
export function translator(language: Language): Translator {
  let made = translators.get(language);
  if (made === undefined) {
    made = makeTranslator(language);
    translators.set(language, made);
  }
  return made;
}

function makeTranslator(language: Language): Translator {
  const messages: Catalogue = { ...CATALOGUES[FALLBACK], ...CATALOGUES[language] };
  const plurals = new Intl.PluralRules(language);
  const numbers = new Intl.NumberFormat(language);
  const fill = (text: string, params: Params | undefined) =>
    params === undefined
      ? text
      : text.replace(/\{(\w+)\}/g, (whole, name: string) => {
          const value = params[name];
          if (value === undefined) return whole;
          return typeof value === 'number' ? numbers.format(value) : value;
        });
  return {
    language,
    dir: messages.$dir === 'rtl' ? 'rtl' : 'ltr',
    messages,
    t(key, params) {
      const message = messages[key];
      if (message === undefined) return key;
      if (typeof message === 'string') return fill(message, params);
      const count = params?.count;
      const form = typeof count === 'number' ? plurals.select(count) : 'other';
      return fill(message[form] ?? message.other ?? key, params);
    },
  };
}
