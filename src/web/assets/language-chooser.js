// The language chooser at the foot of the page: every language kurz has a catalogue for,
// each by its own name. A choice is kept in the kurz-lang cookie (i18n.js), which the
// server reads before Accept-Language, for this page and kurz's other pages alike.

import { chooseLanguage, language, languages } from './i18n.js';

export function createLanguageChooser(select) {
  const names = languages();
  for (const [code, name] of Object.entries(names)) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = language in names ? language : 'en';
  select.addEventListener('change', () => {
    if (select.value !== language) chooseLanguage(select.value);
  });
}
