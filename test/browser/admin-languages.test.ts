// The admin section, the API keys dialog, the sharing section and the report form in
// German, French and Spanish, in Chromium against dist/kurz (run `bun run build` first):
// the language comes from Accept-Language (the context's locale) or from the person's
// choice (the kurz-lang cookie, over an English browser). Two sources of text are checked:
// the HTML's own (headings, tabs, labels, dialog titles: marked data-i18n, translated by
// the server as it serves the page) and the scripts' (rows, statuses, confirmations,
// counts with the language's plural forms, dates in its format: t() and formatDateTime of
// i18n.js, over the messages the server puts in the page; the report form's page carries
// its own). What people typed (a reason, a report's details, a key's name) stays text.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { call, eventually, type Running } from '../support/binary.ts';
import { type Account, account, createLinks, launchBrowser } from '../support/browser.ts';
import { ADMIN_TOKEN, waitForText, withKurz } from '../support/web-page.ts';

declare const document: {
  documentElement: { lang: string };
  querySelectorAll(selector: string): { length: number };
};
declare const localStorage: { setItem(key: string, value: string): void };

const TIMEOUT = 120_000;
const TIME_ZONE = 'Europe/Berlin';
const MARKUP = '<b>not bold</b>';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

/** What each language shows: the texts the test looks for, in that language's words. */
interface Language {
  code: 'de' | 'fr' | 'es';
  /** The browser's locale (its Accept-Language); `cookie`: the person chose the language. */
  locale: string;
  cookie: boolean;
  text: {
    title: string;
    tabs: { users: string; links: string; reports: string; blocklist: string };
    headings: { users: string; links: string; reports: string; blocklist: string };
    clicksToday: string;
    usersRange: string;
    you: string;
    remove: (email: string) => string;
    removeTitle: (email: string) => string;
    hasLinks: (count: number) => string;
    cancel: string;
    disable: (name: string) => string;
    disableTitle: (name: string) => string;
    reason: string;
    disableConfirm: string;
    disabled: (name: string) => string;
    reasonShown: (reason: string) => string;
    illegal: string;
    working: (count: number) => string;
    received: (id: number, date: string) => string;
    removeHost: (host: string) => string;
    keysTitle: string;
    write: string;
    never: string;
    revoke: (name: string) => string;
    revokeTitle: (name: string) => string;
    revokeWhat: (prefix: string) => string;
    shareTitle: string;
    bookmarklet: string;
    bookmarkletStatus: string;
  };
}

const NBSP = '\u00a0';

const LANGUAGES: Language[] = [
  {
    code: 'de',
    locale: 'de-DE',
    cookie: false,
    text: {
      title: 'Verwaltung',
      tabs: { users: 'Benutzer', links: 'Links', reports: 'Meldungen', blocklist: 'Sperrliste' },
      headings: {
        users: 'Benutzer',
        links: 'Alle Links',
        reports: 'Meldungen',
        blocklist: 'Sperrliste',
      },
      clicksToday: 'Klicks heute',
      usersRange: '1–3 von 3',
      you: 'Eigenes Konto',
      remove: (email) => `Entfernen: ${email}`,
      removeTitle: (email) => `${email} entfernen?`,
      hasLinks: (count) => `es hat ${count} ${count === 1 ? 'Link' : 'Links'}.`,
      cancel: 'Abbrechen',
      disable: (name) => `Deaktivieren: ${name}`,
      disableTitle: (name) => `${name} deaktivieren?`,
      reason: 'Grund',
      disableConfirm: 'Deaktivieren',
      disabled: (name) => `${name} deaktiviert.`,
      reasonShown: (reason) => `Grund: ${reason}`,
      illegal: 'Illegale Inhalte',
      working: (count) => `Aktiv, ${count} ${count === 1 ? 'Klick' : 'Klicks'}`,
      received: (id, date) => `Meldung ${id}, eingegangen ${date}`,
      removeHost: (host) => `Entfernen: ${host}`,
      keysTitle: 'API-Schlüssel',
      write: 'Schreiben',
      never: 'Nie',
      revoke: (name) => `Widerrufen: ${name}`,
      revokeTitle: (name) => `„${name}“ widerrufen?`,
      revokeWhat: (prefix) =>
        `Alles, was den Schlüssel ${prefix} verwendet, wird ab sofort abgewiesen. Das lässt sich nicht rückgängig machen.`,
      shareTitle: 'Von jeder Seite aus kürzen',
      bookmarklet: 'Mit kurz kürzen',
      bookmarkletStatus:
        'Diese Schaltfläche in die Lesezeichenleiste ziehen und dann auf der zu kürzenden Seite verwenden.',
    },
  },
  {
    code: 'fr',
    locale: 'fr-FR',
    cookie: false,
    text: {
      title: 'Administration',
      tabs: {
        users: 'Utilisateurs',
        links: 'Liens',
        reports: 'Signalements',
        blocklist: 'Liste de blocage',
      },
      headings: {
        users: 'Utilisateurs',
        links: 'Tous les liens',
        reports: 'Signalements',
        blocklist: 'Liste de blocage',
      },
      clicksToday: "Clics aujourd'hui",
      usersRange: '1–3 sur 3',
      you: 'Vous',
      remove: (email) => `Supprimer ${email}`,
      removeTitle: (email) => `Supprimer ${email}${NBSP}?`,
      hasLinks: (count) => `il a ${count} ${count === 1 ? 'lien' : 'liens'}.`,
      cancel: 'Annuler',
      disable: (name) => `Désactiver ${name}`,
      disableTitle: (name) => `Désactiver ${name}${NBSP}?`,
      reason: 'Motif',
      disableConfirm: 'Désactiver',
      disabled: (name) => `${name} a été désactivé.`,
      reasonShown: (reason) => `Motif${NBSP}: ${reason}`,
      illegal: 'Contenu illégal',
      working: (count) => `Actif, ${count} ${count === 1 ? 'clic' : 'clics'}`,
      received: (id, date) => `Signalement ${id}, reçu le ${date}`,
      removeHost: (host) => `Retirer ${host}`,
      keysTitle: "Clés d'API",
      write: 'Écriture',
      never: 'Jamais',
      revoke: (name) => `Révoquer ${name}`,
      revokeTitle: (name) => `Révoquer «${NBSP}${name}${NBSP}»${NBSP}?`,
      revokeWhat: (prefix) =>
        `Tout ce qui utilise la clé ${prefix} sera désormais refusé. Cette action est irréversible.`,
      shareTitle: "Raccourcir depuis n'importe quelle page",
      bookmarklet: 'Raccourcir avec kurz',
      bookmarkletStatus:
        'Faites glisser ce bouton dans votre barre de favoris, puis utilisez-le sur la page à raccourcir.',
    },
  },
  {
    // Chosen in the page (the kurz-lang cookie) over an English browser: the dates follow
    // the page's language, not the browser's.
    code: 'es',
    locale: 'en-US',
    cookie: true,
    text: {
      title: 'Administración',
      tabs: {
        users: 'Usuarios',
        links: 'Enlaces',
        reports: 'Denuncias',
        blocklist: 'Lista de bloqueo',
      },
      headings: {
        users: 'Usuarios',
        links: 'Todos los enlaces',
        reports: 'Denuncias',
        blocklist: 'Lista de bloqueo',
      },
      clicksToday: 'Clics de hoy',
      usersRange: '1–3 de 3',
      you: 'Cuenta propia',
      remove: (email) => `Eliminar ${email}`,
      removeTitle: (email) => `¿Eliminar ${email}?`,
      hasLinks: (count) => `tiene ${count} ${count === 1 ? 'enlace' : 'enlaces'}.`,
      cancel: 'Cancelar',
      disable: (name) => `Desactivar ${name}`,
      disableTitle: (name) => `¿Desactivar ${name}?`,
      reason: 'Motivo',
      disableConfirm: 'Desactivar',
      disabled: (name) => `${name} se desactivó.`,
      reasonShown: (reason) => `Motivo: ${reason}`,
      illegal: 'Contenido ilegal',
      working: (count) => `Activo, ${count} ${count === 1 ? 'clic' : 'clics'}`,
      received: (id, date) => `Denuncia ${id}, recibida el ${date}`,
      removeHost: (host) => `Quitar ${host}`,
      keysTitle: 'Claves de API',
      write: 'Escritura',
      never: 'Nunca',
      revoke: (name) => `Revocar ${name}`,
      revokeTitle: (name) => `¿Revocar «${name}»?`,
      revokeWhat: (prefix) =>
        `Todo lo que use la clave ${prefix} se rechazará a partir de ahora. Esta acción no se puede deshacer.`,
      shareTitle: 'Acortar desde cualquier página',
      bookmarklet: 'Acortar con kurz',
      bookmarkletStatus:
        'Arrastrar este botón a la barra de marcadores y usarlo en la página que se quiera acortar.',
    },
  },
];

/** An instant as the page writes it in `code` (i18n.js's formatDateTime, in the test's zone). */
const dateIn = (code: string, iso: string) =>
  new Intl.DateTimeFormat(code, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: TIME_ZONE,
  }).format(new Date(iso));

/**
 * The scene: ann (an admin), bob (two links, one clicked once, reported with details in
 * markup) and carol (one link, clicked twice, reported); a host blocked for a reason in
 * markup. Returns the accounts and the reports as the API made them.
 */
async function scene(kurz: Running) {
  const ann = await account(kurz.url, 'ann@example.com');
  const bob = await account(kurz.url, 'bob@example.com');
  const carol = await account(kurz.url, 'carol@example.com');
  const promoted = await call(kurz.url, 'PATCH', `/api/admin/users/${ann.id}`, {
    json: { admin: true },
    token: ADMIN_TOKEN,
  });
  expect(promoted.status).toBe(200);
  await createLinks(
    kurz.url,
    [
      { url: 'https://example.com/one', custom_code: 'bob-1' },
      { url: 'https://example.com/two', custom_code: 'bob-2' },
    ],
    bob.token,
  );
  await createLinks(
    kurz.url,
    [{ url: 'https://example.org/c', custom_code: 'carol-1' }],
    carol.token,
  );
  for (const code of ['bob-2', 'carol-1', 'carol-1']) {
    expect((await call(kurz.url, 'GET', `/${code}`)).status).toBe(307);
  }
  const reports = [];
  for (const [code, details] of [
    ['bob-2', MARKUP],
    ['carol-1', undefined],
  ] as const) {
    const reply = await call(kurz.url, 'POST', '/api/reports', {
      json: { code, reason: 'illegal', ...(details ? { details } : {}) },
    });
    expect(reply.status).toBe(201);
    reports.push(reply.json.id as number);
  }
  // The queue says when each came in (the answer to the report says only that it did).
  const queue = await call(kurz.url, 'GET', '/api/admin/reports', { token: ADMIN_TOKEN });
  const received = (id: number) =>
    (queue.json as { id: number; created_at: string }[]).find((report) => report.id === id);
  const blocked = await call(kurz.url, 'POST', '/api/admin/blocklist', {
    json: { host: 'spam.example', reason: MARKUP },
    token: ADMIN_TOKEN,
  });
  expect(blocked.status).toBe(201);
  return {
    ann,
    bob,
    carol,
    reports: reports.map((id) => ({ id, created_at: received(id)?.created_at ?? '' })),
  };
}

/** Opens the page as `user`, in the language the context asks for. */
async function signIn(page: Page, kurz: Running, user: Account, language: Language) {
  if (language.cookie) {
    await page.context().addCookies([{ name: 'kurz-lang', value: language.code, url: kurz.url }]);
  }
  await page.goto(kurz.url);
  await page.evaluate(
    ([token, email]) => {
      localStorage.setItem('kurz.token', token ?? '');
      localStorage.setItem('kurz.email', email ?? '');
    },
    [user.token, user.email],
  );
  await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/overview'),
    page.reload(),
  ]);
}

/** No element of `tag` inside `holder`: text from people stays text. */
const noElement = (holder: Locator, tag: string) =>
  holder.evaluate((element, name) => element.querySelectorAll(name).length === 0, tag);

const exact = (page: Page, role: 'button' | 'heading' | 'link' | 'dialog', name: string) =>
  page.getByRole(role, { name, exact: true });

describe('the admin section, API keys and sharing in other languages (accounts mode)', () => {
  for (const language of LANGUAGES) {
    const { code, text } = language;
    const how = language.cookie ? `chosen over an English browser` : `from ${language.locale}`;

    test(
      `${code} (${how}): texts, plurals, dates, and people's text kept as text`,
      async () => {
        await withKurz(
          browser,
          ['--mode', 'accounts', '--admin-token', ADMIN_TOKEN],
          async (kurz, page) => {
            const { ann, reports } = await scene(kurz);
            await signIn(page, kurz, ann, language);
            // The server chose the language.
            expect(await page.evaluate(() => document.documentElement.lang)).toBe(code);

            // Figures: HTML text (the server's translation).
            await page.goto(`${kurz.url}/#admin`);
            await exact(page, 'heading', text.title).waitFor();
            const tabs = page.getByRole('navigation', { name: text.title });
            await waitForText(page.locator('#figure-users'), '3');
            expect(await page.locator('#figures dt').nth(1).textContent()).toBe(text.clicksToday);

            // Users (the scripts' text): the range, a badge, a date, the plural of a user's
            // links in the confirmation (1 and 2).
            await tabs.getByRole('link', { name: text.tabs.users, exact: true }).click();
            await exact(page, 'heading', text.headings.users).waitFor();
            await waitForText(page.locator('#users-range'), text.usersRange);
            const annRow = page.locator('#users-rows tr').first();
            expect(await annRow.locator('.badge').first().textContent()).toBe(text.you);
            const created = await annRow.locator('time').getAttribute('datetime');
            expect(await annRow.locator('time').textContent()).toBe(dateIn(code, created ?? ''));
            for (const [email, count] of [
              ['bob@example.com', 2],
              ['carol@example.com', 1],
            ] as const) {
              await exact(page, 'button', text.remove(email)).click();
              const dialog = exact(page, 'dialog', text.removeTitle(email));
              await dialog.waitFor();
              expect(await dialog.locator('#admin-dialog-what').textContent()).toContain(
                text.hasLinks(count),
              );
              await dialog.getByRole('button', { name: text.cancel, exact: true }).click();
              await dialog.waitFor({ state: 'hidden' });
            }

            // All links: a link disabled for a reason in markup, which shows as text.
            await tabs.getByRole('link', { name: text.tabs.links, exact: true }).click();
            await exact(page, 'heading', text.headings.links).waitFor();
            await exact(page, 'button', text.disable('bob-1')).click();
            const disable = exact(page, 'dialog', text.disableTitle('bob-1'));
            await disable.waitFor();
            await disable.getByLabel(text.reason, { exact: true }).fill(MARKUP);
            await disable.getByRole('button', { name: text.disableConfirm, exact: true }).click();
            await disable.waitFor({ state: 'hidden' });
            await waitForText(page.locator('#admin-links-status'), text.disabled('bob-1'));
            const reason = page
              .locator('#admin-links-rows tr')
              .filter({ has: page.locator('a.short-link[href$="/bob-1"]') })
              .locator('.disabled-reason');
            await waitForText(reason, text.reasonShown(MARKUP));
            expect(await noElement(reason, 'b')).toBe(true);

            // Reports: the reason's name, the clicks' plural (1 and 2), the date, details as text.
            await tabs.getByRole('link', { name: text.tabs.reports, exact: true }).click();
            await exact(page, 'heading', text.headings.reports).waitFor();
            const item = (linkCode: string) =>
              page.locator('#reports-rows .report').filter({ hasText: `/${linkCode}` });
            await waitForText(item('bob-2').locator('.report-link'), text.working(1));
            await waitForText(item('carol-1').locator('.report-link'), text.working(2));
            expect(await item('bob-2').locator('.report-title').textContent()).toEndWith(
              text.illegal,
            );
            const [bobReport] = reports;
            expect(await item('bob-2').locator('.report-meta').textContent()).toBe(
              text.received(bobReport?.id ?? 0, dateIn(code, bobReport?.created_at ?? '')),
            );
            const details = item('bob-2').locator('.report-details');
            expect(await details.textContent()).toBe(MARKUP);
            expect(await noElement(details, 'b')).toBe(true);

            // Blocklist: the reason in markup as text, the row's button named in the language.
            await tabs.getByRole('link', { name: text.tabs.blocklist, exact: true }).click();
            await exact(page, 'heading', text.headings.blocklist).waitFor();
            const blockedRow = page.locator('#blocklist-rows tr').first();
            await waitForText(blockedRow.locator('.cell-reason'), MARKUP);
            expect(await noElement(blockedRow, 'b')).toBe(true);
            await exact(page, 'button', text.removeHost('spam.example')).waitFor();

            // The API keys dialog: a key named in markup, its scope, dates and revocation.
            await page.locator('#keys-open').click();
            const keys = exact(page, 'dialog', text.keysTitle);
            await keys.waitFor();
            const keyName = '<i>ci</i>';
            await keys.locator('#key-name').fill(keyName);
            await keys.locator('#key-scope-write').check();
            await keys.locator('#key-form button[type="submit"]').click();
            const keyRow = keys.locator('#key-rows tr').first();
            await waitForText(keyRow.locator('.cell-key-scope'), text.write);
            expect(await keyRow.locator('.cell-key-name').textContent()).toBe(keyName);
            expect(await noElement(keyRow, 'i')).toBe(true);
            expect(await keyRow.locator('.cell-key-expires').textContent()).toBe(text.never);
            const keyCreated = await keyRow
              .locator('.cell-key-created time')
              .getAttribute('datetime');
            expect(await keyRow.locator('.cell-key-created time').textContent()).toBe(
              dateIn(code, keyCreated ?? ''),
            );
            const prefix = (await keyRow.locator('.cell-key-prefix code').textContent()) ?? '';
            await exact(page, 'button', text.revoke(keyName)).click();
            const revoke = exact(page, 'dialog', text.revokeTitle(keyName));
            await revoke.waitFor();
            expect(await revoke.locator('#revoke-what').textContent()).toBe(
              text.revokeWhat(prefix),
            );
            expect(await revoke.locator('#revoke-what code').textContent()).toBe(prefix);
            await revoke.getByRole('button', { name: text.cancel, exact: true }).click();
            await revoke.waitFor({ state: 'hidden' });
            await keys.locator('[data-close]').first().click();
            await keys.waitFor({ state: 'hidden' });

            // Sharing: the section's HTML text, and the script's hint when the bookmarklet is clicked.
            await page.goto(kurz.url);
            const share = page.locator('#share');
            expect(await share.locator('#share-title').textContent()).toBe(text.shareTitle);
            await share.locator('summary').click();
            await exact(page, 'link', text.bookmarklet).click();
            await waitForText(page.locator('#bookmarklet-status'), text.bookmarkletStatus);
          },
          { locale: language.locale, timezoneId: TIME_ZONE },
        );
      },
      TIMEOUT,
    );
  }
});

describe('the admin section in Spanish, open mode', () => {
  test(
    "the admin token's dialog and its messages; a report dismissed, said in the language",
    async () => {
      await withKurz(
        browser,
        ['--mode', 'open', '--admin-token', ADMIN_TOKEN],
        async (kurz, page) => {
          await createLinks(kurz.url, [{ url: 'https://example.com/s', custom_code: 'sp' }]);
          const reported = await call(kurz.url, 'POST', '/api/reports', {
            json: { code: 'sp', reason: 'spam' },
          });
          expect(reported.status).toBe(201);
          await page.goto(kurz.url);
          await page.locator('#admin-enter').click();
          const dialog = exact(page, 'dialog', 'Administración');
          await dialog.waitFor();
          const submit = dialog.getByRole('button', { name: 'Abrir la administración' });
          await submit.click();
          await waitForText(
            dialog.locator('#admin-token-error'),
            'Introducir el token de administración.',
          );
          await dialog.getByLabel('Token de administración').fill('not-the-admin-token');
          await submit.click();
          await waitForText(
            dialog.locator('#admin-token-error'),
            'El token de administración no fue aceptado (Unauthorized).',
          );
          await dialog.getByLabel('Token de administración').fill(ADMIN_TOKEN);
          await submit.click();
          await exact(page, 'heading', 'Cifras').waitFor();

          await page
            .getByRole('navigation', { name: 'Administración' })
            .getByRole('link', { name: 'Denuncias', exact: true })
            .click();
          const id = String(reported.json.id);
          const dismiss = page.locator('#reports-rows .report .dismiss-button');
          await dismiss.waitFor();
          expect(await dismiss.getAttribute('aria-label')).toMatch(
            new RegExp(`^Descartar la denuncia ${id} sobre \\S+/sp$`),
          );
          await dismiss.click();
          const confirm = exact(page, 'dialog', `¿Descartar la denuncia ${id}?`);
          await confirm.waitFor();
          await confirm.getByRole('button', { name: 'Descartar', exact: true }).click();
          await waitForText(
            page.locator('#reports-status'),
            `Denuncia ${id} resuelta: descartada.`,
          );
          await waitForText(page.locator('#reports-empty'), 'No hay denuncias pendientes.');
        },
        { locale: 'es-ES' },
      );
    },
    TIMEOUT,
  );
});

describe('the report form in German', () => {
  test(
    "the script's own messages (a refused report, no connection) are in the page's language",
    async () => {
      await withKurz(
        browser,
        ['--mode', 'open', '--admin-token', ADMIN_TOKEN],
        async (kurz, page) => {
          await createLinks(kurz.url, [{ url: 'https://example.com/r', custom_code: 'rep' }]);
          let answer: 'busy' | 'offline' = 'busy';
          await page.route('**/api/reports', (route) =>
            answer === 'busy'
              ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy' })
              : route.abort('internetdisconnected'),
          );
          await page.goto(`${kurz.url}/rep+report`);
          const form = page.locator('#report');
          const error = page.locator('#report-error');
          await form.locator('select[name="reason"]').selectOption('spam');
          await form.locator('button[type="submit"]').click();
          await waitForText(error, 'Die Meldung konnte nicht gesendet werden (503).');
          answer = 'offline';
          await form.locator('button[type="submit"]').click();
          await waitForText(
            error,
            'Der Dienst ist nicht erreichbar. Verbindung prüfen und erneut versuchen.',
          );
          await eventually(
            async () => await form.locator('button[type="submit"]').isEnabled(),
            'the button is enabled again',
          );
        },
        { locale: 'de-DE' },
      );
    },
    TIMEOUT,
  );
});
