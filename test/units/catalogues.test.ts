// The message catalogues (src/i18n/catalogues/): every language has exactly English's
// keys, with the same placeholders, the plural forms its rules need, no empty text, and
// its file sorted by key; every key the code uses is in English, and every key of
// English is used. A key counts as used only where it is written out in full (see
// docs/translations.md): t('area.key') in src/**/*.ts and the web UI's scripts, and
// data-i18n="area.key" or data-i18n-attr="name=area.key" in their HTML.

import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CATALOGUES, type Catalogue, FALLBACK, type Message } from '../../src/i18n/catalogues.ts';
import { translator } from '../../src/i18n/translate.ts';

const ROOT = join(import.meta.dir, '..', '..');
const FOLDER = join(ROOT, 'src', 'i18n', 'catalogues');
const english = CATALOGUES[FALLBACK] as Catalogue;
const others = Object.entries(CATALOGUES).filter(([language]) => language !== FALLBACK);

/** Keys of the messages proper (not `$name`, `$dir`). */
const messageKeys = (catalogue: Catalogue) =>
  Object.keys(catalogue).filter((k) => !k.startsWith('$'));

const texts = (message: Message): string[] =>
  typeof message === 'string' ? [message] : Object.values(message);

/** `{name}` placeholders of a message, all its plural forms together. */
const placeholders = (message: Message): string[] =>
  [...new Set(texts(message).flatMap((text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))]
    .filter((name): name is string => name !== undefined)
    .sort();

describe('every catalogue', () => {
  test('is named in src/i18n/catalogues.ts, and English is the fallback', () => {
    const files = readdirSync(FOLDER)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
    expect(files).toEqual(Object.keys(CATALOGUES).sort());
    expect(FALLBACK).toBe('en');
  });

  test.each(Object.keys(CATALOGUES))('%s has $name and $dir', (language) => {
    const catalogue = CATALOGUES[language] as Catalogue;
    expect(typeof catalogue.$name).toBe('string');
    expect((catalogue.$name as string).trim()).not.toBe('');
    expect(['ltr', 'rtl']).toContain(catalogue.$dir as string);
    expect(translator(language).dir).toBe(catalogue.$dir as 'ltr' | 'rtl');
  });

  test.each(others)('%s has exactly the keys of English', (_, catalogue) => {
    expect(messageKeys(catalogue).sort()).toEqual(messageKeys(english).sort());
  });

  test.each(others)('%s has the placeholders of English, key by key', (_, catalogue) => {
    const mismatched = messageKeys(english).filter((key) => {
      const message = catalogue[key];
      return (
        message !== undefined &&
        placeholders(message).join() !== placeholders(english[key] as Message).join()
      );
    });
    expect(mismatched).toEqual([]);
  });

  test.each(Object.entries(CATALOGUES))('%s has no empty text', (_, catalogue) => {
    const empty = Object.entries(catalogue).filter(([, message]) =>
      texts(message).some((text) => text.trim() === ''),
    );
    expect(empty.map(([key]) => key)).toEqual([]);
  });

  test.each(Object.entries(CATALOGUES))(
    "%s's plural messages have `other` and exactly the categories of its plural rules",
    (language, catalogue) => {
      const categories = [
        ...new Intl.PluralRules(language).resolvedOptions().pluralCategories,
      ].sort();
      expect(categories).toContain('other');
      const wrong = Object.entries(catalogue)
        .filter(([, message]) => typeof message !== 'string')
        .filter(([, message]) => Object.keys(message).sort().join() !== categories.join())
        .map(([key, message]) => `${key}: ${Object.keys(message).join()}`);
      expect(wrong).toEqual([]);
    },
  );

  test.each(others)(
    '%s has a plural message where English has one, and only there',
    (_, catalogue) => {
      const mismatched = messageKeys(english).filter((key) => {
        const message = catalogue[key];
        return message !== undefined && typeof message !== typeof english[key];
      });
      expect(mismatched).toEqual([]);
    },
  );

  test.each(Object.keys(CATALOGUES))(
    '%s.json is sorted by key, $name and $dir first',
    (language) => {
      const text = readFileSync(join(FOLDER, `${language}.json`), 'utf8');
      const keys = Object.keys(JSON.parse(text) as object);
      expect(keys.slice(0, 2)).toEqual(['$name', '$dir']);
      const rest = keys.slice(2);
      expect(rest).toEqual([...rest].sort());
      expect(text.endsWith('}\n')).toBe(true);
    },
  );
});

/** Every file of src/ the keys may be written in. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|html)$/.test(entry.name) ? [path] : [];
  });
}

/** What a key looks like: `area.name`, dotted (a sentence in a comment is not one). */
const KEY = /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_-]+)+$/;

/** The keys a source text uses, written out in full. */
function keysIn(source: string): string[] {
  const found: string[] = [];
  // t('key'), t("key"), t(`key`), also as a method (translator.t('key')), before any params.
  for (const m of source.matchAll(/\bt\(\s*(['"`])([^'"`$\\{}]+)\1/g)) found.push(m[2] as string);
  for (const m of source.matchAll(/data-i18n=["']([^"']+)["']/g)) found.push(m[1] as string);
  for (const m of source.matchAll(/data-i18n-attr=["']([^"']+)["']/g)) {
    for (const pair of (m[1] as string).split(';')) {
      const key = pair.split('=')[1]?.trim();
      if (key !== undefined) found.push(key);
    }
  }
  return found.filter((key) => KEY.test(key));
}

/**
 * Every quoted string of a source text shaped like a key: a key chosen by the code
 * (`t(n > MAX ? 'ui.bulk.tooMany' : 'ui.bulk.count')`, a table of labels) is still
 * written out in full, and so in use.
 */
function literalKeysIn(source: string): string[] {
  return [...source.matchAll(/(['"`])([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_-]+)+)\1/g)].map(
    (m) => m[2] as string,
  );
}

describe('the keys of the code', () => {
  const uses = new Map<string, string[]>();
  const literals = new Set<string>();
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const source = readFileSync(path, 'utf8');
    for (const key of keysIn(source)) {
      uses.set(key, [...(uses.get(key) ?? []), relative(ROOT, path)]);
    }
    for (const key of literalKeysIn(source)) literals.add(key);
  }

  test('the scan finds keys in the forms the code writes them', () => {
    expect(
      keysIn(`t('a.b'); language.t("c.d", { count }); t(\`e.f\`); t(\`g.\${x}\`); t(name);
<p data-i18n="h.i"></p><input data-i18n-attr="placeholder=j.k; aria-label=l.m">
// data-i18n="key" sets an element's text`),
    ).toEqual(['a.b', 'c.d', 'e.f', 'h.i', 'j.k', 'l.m']);
    expect(uses.size).toBeGreaterThan(0);
  });

  test('every key used in the code is in English', () => {
    const missing = [...uses].filter(([key]) => english[key] === undefined);
    expect(missing.map(([key, files]) => `${key} (${[...new Set(files)].join(', ')})`)).toEqual([]);
  });

  test('every key of English is used in the code, written out in full', () => {
    expect(messageKeys(english).filter((key) => !uses.has(key) && !literals.has(key))).toEqual([]);
  });
});
