// The message catalogues, one JSON file per language in catalogues/, built into the
// executable. A catalogue maps a key (`area.what`, such as `page.password.title`) to a
// text with `{name}` placeholders, or, for a text that depends on a count, to one text
// per plural category of Intl.PluralRules (`one`, `other`, …; `other` always). Keys
// starting with `$` describe the catalogue itself: `$name` (the language's own name, for
// the chooser) and `$dir` (`ltr` or `rtl`). English is complete by definition; every
// other catalogue has every key of English (test/units/catalogues.test.ts).

import de from './catalogues/de.json' with { type: 'json' };
import en from './catalogues/en.json' with { type: 'json' };
import es from './catalogues/es.json' with { type: 'json' };
import fr from './catalogues/fr.json' with { type: 'json' };

/** A message: a text, or one text per plural category. */
export type Message = string | Readonly<Record<string, string>>;
export type Catalogue = Readonly<Record<string, Message>>;

/** The languages kurz speaks, English (the fallback) first. */
export const CATALOGUES: Readonly<Record<string, Catalogue>> = { en, de, fr, es };

export type Language = keyof typeof CATALOGUES & string;

export const FALLBACK: Language = 'en';

/** The language codes kurz has a catalogue for. */
export const LANGUAGES: readonly Language[] = Object.keys(CATALOGUES);
