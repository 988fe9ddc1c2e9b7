// The web UI's page in the person's language, in-process: chosen by the kurz-lang cookie,
// then Accept-Language, then English; its static text translated on the server, the
// messages inlined as JSON that cannot end its script element, one ETag per language, and
// Vary so that no cache hands one person's language to another.

import { describe, expect, test } from 'bun:test';
import en from '../../src/i18n/catalogues/en.json' with { type: 'json' };
import { translator } from '../../src/i18n/translate.ts';
import { messagesJson, translatePage } from '../../src/web/page.ts';
import { SECURITY_HEADERS } from '../../src/web/routes.ts';
import { TestApp } from '../support/test-app.ts';

const SHORTEN_TITLE: Record<string, string> = {
  en: 'Shorten a link',
  de: 'Link kürzen',
  fr: 'Raccourcir un lien',
  es: 'Acortar un enlace',
};

/** The text of the element with `id`, as the page was sent (entities decoded). */
function textOf(page: string, id: string): string {
  const match = page.match(new RegExp(`id="${id}"[^>]*>([^<]*)<`));
  if (match === null) throw new Error(`#${id} is not in the page`);
  return decode(match[1] as string);
}

function decode(html: string): string {
  return html
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The messages the page carries for its scripts. */
function inlined(page: string): Record<string, unknown> {
  const match = page.match(/<script type="application\/json" id="kurz-messages">([^<]*)<\/script>/);
  if (match === null) throw new Error('the page carries no messages');
  return JSON.parse(match[1] as string);
}

describe.each(['accounts', 'open'] as const)('the page in a language (%s mode)', (mode) => {
  test.each(['de', 'fr', 'es'])(
    'Accept-Language %s gets the page in that language',
    async (lang) => {
      const app = await TestApp.init(mode);
      const reply = await app.get('/', { headers: { 'accept-language': `${lang}-XX, en;q=0.5` } });
      expect(reply.status).toBe(200);
      expect(reply.text).toContain(`<html lang="${lang}" dir="ltr">`);
      expect(textOf(reply.text, 'shorten-title')).toBe(SHORTEN_TITLE[lang] as string);
      const t = translator(lang).t;
      expect(textOf(reply.text, 'auth-title')).toBe(t('ui.auth.title'));
      // Attributes too: the label of the list's pager.
      expect(reply.text).toContain(`aria-label="${t('ui.list.pages')}"`);
      expect(reply.text).not.toContain('aria-label="Pages of links"');
      const messages = inlined(reply.text);
      expect(messages['ui.shorten.title']).toBe(SHORTEN_TITLE[lang]);
      expect(messages.$languages).toEqual({
        en: 'English',
        de: 'Deutsch',
        fr: 'Français',
        es: 'Español',
      });
    },
  );

  test('no Accept-Language, or only languages kurz does not speak: English', async () => {
    const app = await TestApp.init(mode);
    const cases: Record<string, string>[] = [
      {},
      { 'accept-language': 'ja-JP, zh;q=0.8' },
      { cookie: 'kurz-lang=xx' },
    ];
    for (const headers of cases) {
      const reply = await app.get('/', { headers });
      expect(reply.text).toContain('<html lang="en" dir="ltr">');
      expect(textOf(reply.text, 'shorten-title')).toBe('Shorten a link');
      expect(inlined(reply.text)['ui.shorten.title']).toBe('Shorten a link');
    }
  });

  test('the chooser’s cookie beats Accept-Language', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/', {
      headers: { 'accept-language': 'de', cookie: 'other=1; kurz-lang=es' },
    });
    expect(reply.text).toContain('<html lang="es" dir="ltr">');
    expect(textOf(reply.text, 'shorten-title')).toBe('Acortar un enlace');
  });

  test('one ETag per language, Vary on cookie and Accept-Language, the same strict CSP', async () => {
    const app = await TestApp.init(mode);
    const german = await app.get('/', { headers: { 'accept-language': 'de' } });
    const english = await app.get('/');
    const etag = german.headers.get('etag') as string;
    expect(etag).not.toBe(english.headers.get('etag'));
    expect(german.headers.get('vary')).toBe('cookie, accept-language, accept-encoding');
    for (const reply of [german, english]) {
      expect(reply.headers.get('content-security-policy')).toBe(
        SECURITY_HEADERS['content-security-policy'],
      );
    }
    // The German page's ETag does not validate an English copy, and does a German one.
    expect((await app.get('/', { headers: { 'if-none-match': etag } })).status).toBe(200);
    const again = await app.get('/', {
      headers: { 'if-none-match': etag, 'accept-language': 'de' },
    });
    expect(again.status).toBe(304);
  });

  test('the English page’s marked texts are the catalogue’s, so no key is missing or misspelt', async () => {
    const app = await TestApp.init(mode);
    const page = (await app.get('/')).text;
    const catalogue: Record<string, unknown> = en;
    const messageOf = (key: string | undefined) => catalogue[key ?? ''];
    const marked = [...page.matchAll(/data-i18n="([^"]+)"[^>]*>([^<]*)</g)];
    expect(marked.length).toBeGreaterThan(100);
    for (const [, key, text] of marked) {
      expect([key, decode(text ?? '')]).toEqual([key, String(messageOf(key))]);
    }
    for (const [, pairs] of page.matchAll(/data-i18n-attr="([^"]+)"/g)) {
      for (const pair of (pairs as string).split(';')) {
        expect(messageOf(pair.split('=')[1])).toBeString();
      }
    }
  });
});

describe('escaping', () => {
  const hostile = {
    ...translator('en'),
    language: 'en',
    t: (key: string) => (key === 'title' ? '</p><script>alert(1)</script>' : '"><img src=x>&amp;'),
    messages: { 'ui.x': '</script><!--<script>', 'ui.y': 'line\u2028break' },
  };

  test('the inlined JSON holds no `<`, and reads back as the messages', () => {
    const json = messagesJson(hostile);
    expect(json).not.toContain('<');
    expect(json).not.toContain('\u2028');
    const back = JSON.parse(json);
    expect(back['ui.x']).toBe('</script><!--<script>');
    expect(back['ui.y']).toBe('line\u2028break');
  });

  test('translated text and attributes are escaped', () => {
    const page = translatePage(
      '<html><body><p data-i18n="title">x</p><input data-i18n-attr="placeholder=attr"><script type="application/json" id="kurz-messages">{}</script></body></html>',
      hostile,
    );
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('placeholder="&#34;&#62;&#60;img src=x&#62;&#38;amp;"');
    const json = page.match(/id="kurz-messages">([^<]*)<\/script>/)?.[1] as string;
    expect(JSON.parse(json)['ui.x']).toBe('</script><!--<script>');
  });
});
