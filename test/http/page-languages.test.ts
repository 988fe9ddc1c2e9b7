// The pages kurz renders itself (the password form and its answers, the disabled link,
// the `+` page and the interstitial, the report form) in the reader's language: the
// kurz-lang cookie, else Accept-Language, else English; counts in the language's plural
// forms, numbers, dates and ages as the language writes them; the reader's and the
// link's own text still escaped; and the JSON of API clients exactly as in English.

import { describe, expect, setSystemTime, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS } from '../../src/config/config.ts';
import { messagesScript } from '../../src/i18n/page-messages.ts';
import { type Translator, translator } from '../../src/i18n/translate.ts';
import { htmlPage } from '../../src/web/page-shell.ts';
import {
  ADMIN_TOKEN,
  BASE_URL,
  moderatorOf,
  PEER_HEADER,
  type Reply,
  TestApp,
} from '../support/test-app.ts';

const MODES = ['accounts', 'open'] as const;
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const FORM = 'application/x-www-form-urlencoded';
const HOSTILE = '<script>alert("x")</script> & more';
const DAY = 86_400_000;
/** Narrow no-break space: French groups thousands with it. */
const NNBSP = '\u202f';

/** What a browser in each language sends, and what the pages say to it. */
const LANGUAGES = {
  de: {
    header: 'de-DE,de;q=0.9,en;q=0.8',
    passwordTitle: 'Passwort erforderlich',
    passwordHeading: 'Dieser Link ist geschützt',
    submit: 'Weiter',
    wrong: 'Falsches Passwort. Bitte erneut versuchen.',
    tooMany: 'Zu viele falsche Passwörter.',
    accepted: 'Passwort akzeptiert',
    disabled: 'Link deaktiviert',
    reason: 'Angegebener Grund: <strong>',
    about: 'Über diesen Link',
    report: 'Link melden',
    phishing: 'Phishing: Die Seite fragt nach Passwörtern oder Zahlungsdaten',
    expires: '1. Januar 2099 um 00:00 UTC',
    justNow: 'vor weniger als einer Minute',
    threeDays: 'vor 3 Tagen',
    oneClick: 'Funktioniert nach 1 Klick nicht mehr',
    twoClicks: 'Funktioniert nach 2 Klicks nicht mehr',
    millionClicks: 'Funktioniert nach 1.000.000 Klicks nicht mehr',
    elsewhere: 'Ja: 2 Regeln (nach Gerät',
    split: ' und eine Aufteilung auf 2 Ziele',
    newAccount: 'Dieser Link stammt von einem neuen Konto.',
  },
  fr: {
    header: 'fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5',
    passwordTitle: 'Mot de passe requis',
    passwordHeading: 'Ce lien est protégé',
    submit: 'Continuer',
    wrong: 'Mot de passe incorrect. Veuillez réessayer.',
    tooMany: 'Trop de mots de passe incorrects.',
    accepted: 'Mot de passe accepté',
    disabled: 'Lien désactivé',
    reason: 'Motif indiqué\u00a0: <strong>',
    about: 'À propos de ce lien',
    report: 'Signaler un lien',
    phishing: 'Hameçonnage\u00a0: il demande des mots de passe ou des données de paiement',
    expires: '1 janvier 2099 à 00:00 UTC',
    justNow: 'il y a moins d’une minute',
    threeDays: 'il y a 3 jours',
    oneClick: 'Cesse de fonctionner après 1 clic',
    twoClicks: 'Cesse de fonctionner après 2 clics',
    millionClicks: `Cesse de fonctionner après 1${NNBSP}000${NNBSP}000 de clics`,
    elsewhere: 'Oui\u00a0: 2 règles (selon l’appareil',
    split: ' et une répartition entre 2 destinations',
    newAccount: 'Ce lien a été créé par un nouveau compte.',
  },
  es: {
    header: 'es-419,es;q=0.9',
    passwordTitle: 'Contraseña necesaria',
    passwordHeading: 'Este enlace está protegido',
    submit: 'Continuar',
    wrong: 'Contraseña incorrecta. Puede volver a intentarlo.',
    tooMany: 'Demasiadas contraseñas incorrectas.',
    accepted: 'Contraseña aceptada',
    disabled: 'Enlace desactivado',
    reason: 'Motivo indicado: <strong>',
    about: 'Acerca de este enlace',
    report: 'Denunciar un enlace',
    phishing: 'Phishing: pide contraseñas o datos de pago',
    expires: '1 de enero de 2099 a las 0:00 UTC',
    justNow: 'hace menos de un minuto',
    threeDays: 'hace 3 días',
    oneClick: 'Deja de funcionar tras 1 clic',
    twoClicks: 'Deja de funcionar tras 2 clics',
    millionClicks: 'Deja de funcionar tras 1.000.000 de clics',
    elsewhere: 'Sí: 2 reglas (según dispositivo',
    split: ' y un reparto entre 2 destinos',
    newAccount: 'Este enlace lo ha creado una cuenta nueva.',
  },
} as const;

type Language = keyof typeof LANGUAGES;
const CODES = Object.keys(LANGUAGES) as Language[];

/** A browser's request headers in `language` (and its cookie, when given). */
const browserIn = (language: string, cookie?: string): Record<string, string> => ({
  ...BROWSER,
  'accept-language': language,
  ...(cookie === undefined ? {} : { cookie }),
});

/** The page's language as it says it: `<html lang dir>` and Content-Language. */
function expectLanguage(reply: Reply, language: string) {
  expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(reply.headers.get('content-language')).toBe(language);
  expect(reply.headers.get('vary')).toBe('Cookie, Accept-Language');
  expect(reply.headers.get('cache-control')).toBe('private, no-store');
  if (reply.text !== '') expect(reply.text).toContain(`<html lang="${language}" dir="ltr">`);
}

const title = (reply: Reply) => /<title>([^<]*)<\/title>/.exec(reply.text)?.[1];

function submit(app: TestApp, path: string, password: string, headers: Record<string, string>) {
  return app.request('POST', path, {
    raw: new URLSearchParams({ password }).toString(),
    headers: { ...headers, 'content-type': FORM },
  });
}

async function setup(mode: (typeof MODES)[number], options: { days?: number } = {}) {
  const app = await TestApp.init(mode, {
    adminToken: ADMIN_TOKEN,
    newAccountInterstitialDays: options.days,
    rateLimits: {
      ...DEFAULT_RATE_LIMITS,
      linkPassword: { count: 2, windowMs: 3_600_000 },
    },
  });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const { disable } = await moderatorOf(app);
  return { app, client, disable };
}

for (const mode of MODES) {
  describe(`the pages in the reader's language (${mode} mode)`, () => {
    test.each(CODES)('the password form and its answers, by Accept-Language: %s', async (code) => {
      const words = LANGUAGES[code];
      const { app, client } = await setup(mode);
      await client.link('https://example.com/secret', { custom_code: 'locked', password: 'pw' });
      const headers = browserIn(words.header);

      const form = await app.get('/locked', { headers });
      expect(form.status).toBe(200);
      expectLanguage(form, code);
      expect(title(form)).toBe(words.passwordTitle);
      expect(form.text).toContain(`<h1>${words.passwordHeading}</h1>`);
      expect(form.text).toContain(`<button type="submit">${words.submit}</button>`);
      expect(form.text).not.toContain('Password required');

      const head = await app.request('HEAD', '/locked', { headers });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expectLanguage(head, code);

      const wrong = await submit(app, '/locked', 'nope', headers);
      expect(wrong.status).toBe(401);
      expectLanguage(wrong, code);
      expect(wrong.text).toContain(`role="alert">${words.wrong}</p>`);

      expect((await submit(app, '/locked', 'nope again', headers)).status).toBe(401);
      const refused = await submit(app, '/locked', 'still not', headers);
      expect(refused.status).toBe(429);
      expectLanguage(refused, code);
      expect(refused.text).toContain(words.tooMany);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

      // Another client (its own tries) gives the right password: a page that sends it on.
      const accepted = await submit(app, '/locked', 'pw', {
        ...headers,
        [PEER_HEADER]: '192.0.2.9',
      });
      expect(accepted.status).toBe(200);
      expectLanguage(accepted, code);
      expect(accepted.text).toContain(`<h1>${words.accepted}</h1>`);
      expect(accepted.text).toContain(`rel="noreferrer">${words.submit}</a>`);
      expect(accepted.text).toContain('content="0; url=https://example.com/secret"');
    });

    test('the kurz-lang cookie beats Accept-Language; a language kurz lacks falls back', async () => {
      const { app, client } = await setup(mode);
      await client.link('https://example.com/secret', { custom_code: 'locked', password: 'pw' });
      const cases: [Record<string, string>, Language | 'en'][] = [
        [browserIn('de', 'kurz-lang=fr'), 'fr'],
        [browserIn('fr;q=0.5, es;q=0.8', 'theme=dark; kurz-lang=es'), 'es'],
        [browserIn('es', 'kurz-lang=xx'), 'es'],
        [browserIn('ja, zh;q=0.9'), 'en'],
        [browserIn('ja', 'kurz-lang=tlh'), 'en'],
        [browserIn('de;q=0'), 'en'],
        [BROWSER, 'en'],
      ];
      for (const [headers, language] of cases) {
        const page = await app.get('/locked', { headers });
        expect([headers, page.headers.get('content-language')]).toEqual([headers, language]);
        expectLanguage(page, language);
        expect(title(page)).toBe(
          language === 'en' ? 'Password required' : LANGUAGES[language].passwordTitle,
        );
      }
    });

    test.each(CODES)("the disabled link's page in %s, its reason escaped", async (code) => {
      const words = LANGUAGES[code];
      const { app, client, disable } = await setup(mode);
      await client.link('https://example.com/bad', { custom_code: 'bad' });
      await disable('bad', HOSTILE);
      const headers = browserIn(words.header);
      const page = await app.get('/bad', { headers });
      expect(page.status).toBe(410);
      expectLanguage(page, code);
      expect(title(page)).toBe(words.disabled);
      expect(page.text).toContain(
        `${words.reason}&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more</strong>`,
      );
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).toContain(`<a href="/bad+">${LANGUAGES[code].about}</a>`);

      const head = await app.request('HEAD', '/bad', { headers });
      expect([head.status, head.text]).toEqual([410, '']);
      expectLanguage(head, code);

      // An API client gets the interface's JSON, whatever its language.
      const json = await app.get('/bad', { headers: { 'accept-language': words.header } });
      expect([json.status, json.json]).toEqual([410, { error: 'Link disabled' }]);
      expect(json.headers.get('content-language')).toBeNull();
    });

    test.each(CODES)('the `+` page in %s: counts, numbers, dates and ages', async (code) => {
      const words = LANGUAGES[code];
      const { app, client } = await setup(mode);
      const rules = [
        { url: 'https://example.com/m', conditions: [{ type: 'device', value: 'mobile' }] },
        { url: 'https://example.com/d', conditions: [{ type: 'device', value: 'desktop' }] },
      ];
      const variants = [
        { url: 'https://example.com/v1', weight: 50 },
        { url: 'https://example.com/v2', weight: 50 },
      ];
      await client.link('https://example.com/one', {
        custom_code: 'one',
        max_clicks: 1,
        expires_at: '2099-01-01T00:00:00Z',
      });
      await client.link('https://example.com/two', { custom_code: 'two', max_clicks: 2 });
      await client.link('https://example.com/many', {
        custom_code: 'many',
        max_clicks: 1_000_000,
        rules,
        variants,
      });
      const headers = browserIn(words.header);
      const one = await app.get('/one+', { headers });
      expect(one.status).toBe(200);
      expectLanguage(one, code);
      expect(title(one)).toBe(
        `${code === 'de' ? 'Über' : code === 'fr' ? 'À propos de' : 'Acerca de'} ${BASE_URL}/one`,
      );
      expect(one.text).toContain(`<h1>${words.about}</h1>`);
      expect(one.text).toContain(words.oneClick);
      expect(one.text).toContain(`<dd>${words.expires}</dd>`);
      expect(one.text).toContain(`<dd>${words.justNow} (`);
      expect((await app.get('/two+', { headers })).text).toContain(words.twoClicks);
      const many = (await app.get('/many+', { headers })).text;
      expect(many).toContain(words.millionClicks);
      expect(many).toContain(`${words.elsewhere}`);
      expect(many).toContain(`${words.split}</dd>`);

      // Three days on, the age is said in the language.
      setSystemTime(new Date(Date.now() + 3 * DAY + 60_000));
      try {
        expect((await app.get('/one+', { headers })).text).toContain(`<dd>${words.threeDays} (`);
      } finally {
        setSystemTime();
      }

      // Its JSON is the same in every language.
      const json = async (language: string) =>
        (
          await app.get('/many+', {
            headers: { accept: 'application/json', 'accept-language': language },
          })
        ).json;
      expect(await json(words.header)).toEqual(await json('en'));
      expect((await json(words.header)).max_clicks).toBe(1_000_000);
    });

    test.each(CODES)(
      'the report form in %s carries its script’s messages as data',
      async (code) => {
        const words = LANGUAGES[code];
        const { app, client } = await setup(mode);
        await client.link('https://example.com/x', { custom_code: 'rep' });
        const page = await app.get('/rep+report', { headers: browserIn(words.header) });
        expect(page.status).toBe(200);
        expectLanguage(page, code);
        expect(title(page)).toBe(words.report);
        expect(page.text).toContain(`<option value="phishing">${words.phishing}</option>`);
        expect(page.text).toContain(`<span class="target">${BASE_URL}/rep</span>`);
        // The messages, before the script that reads them, as JSON no browser runs.
        const block = /<script type="application\/json" id="kurz-messages">([^<]*)<\/script>/.exec(
          page.text,
        );
        expect(block).not.toBeNull();
        expect(page.text.indexOf('id="kurz-messages"')).toBeLessThan(
          page.text.indexOf('src="/assets/report.js"'),
        );
        const messages = JSON.parse(block?.[1] as string) as Record<string, unknown>;
        expect(messages['page.report.title']).toBe(words.report);
        expect(messages.$dir).toBe('ltr');
        expect(Object.keys(messages).filter((key) => key.startsWith('oidc.'))).toEqual([]);
        // The policy still runs no inline script: only kurz's own files.
        const policy = page.headers.get('content-security-policy') ?? '';
        expect(policy).toContain("script-src 'self'");
        expect(policy).not.toContain('unsafe-inline');
      },
    );
  });
}

describe('the new-account interstitial in the reader’s language', () => {
  test.each(CODES)('%s: the notice and the Continue button', async (code) => {
    const words = LANGUAGES[code];
    const { app, client } = await setup('accounts', { days: 7 });
    await client.link('https://example.com/fresh', { custom_code: 'fresh' });
    const page = await app.get('/fresh', { headers: browserIn(words.header) });
    expect(page.status).toBe(200);
    expectLanguage(page, code);
    expect(page.text).toContain(`<p class="notice">${words.newAccount}`);
    expect(page.text).toContain(
      `<a class="button" href="/fresh+go" rel="noreferrer">${words.submit}</a>`,
    );
  });
});

describe('the page shell', () => {
  test('a right-to-left catalogue sets dir="rtl"; the styles mirror with it', async () => {
    const rtl: Translator = { ...translator('en'), language: 'ar', dir: 'rtl' };
    const page = htmlPage({ language: rtl, status: 200, title: 't', main: '', headers: {} });
    const text = await page.text();
    expect(text).toContain('<html lang="ar" dir="rtl">');
    expect(page.headers.get('content-language')).toBe('ar');
    // Logical properties only: nothing pinned to the left or the right.
    expect(text).not.toMatch(/(margin|padding|border)-(left|right)|text-align: (left|right)/);
    expect(text).toContain('border-inline-start');
  });

  test('the messages block: no text in it can end the element: `<` is written \\u003c', () => {
    const hostile = '</script><script>alert(1)</script><!--';
    const block = messagesScript({ 'page.x': hostile });
    expect(block.match(/<\/script>/g)?.length).toBe(1);
    expect(block).not.toContain('<!--');
    const json = /^<script type="application\/json" id="kurz-messages">(.*)<\/script>$/.exec(
      block,
    )?.[1];
    expect(JSON.parse(json as string)).toEqual({ 'page.x': hostile });
  });
});
