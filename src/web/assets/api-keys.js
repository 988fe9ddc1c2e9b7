// The API keys dialog (accounts mode): a form that makes a key (POST /api/keys: a name,
// the read or write scope, an optional last day), the new key shown once with its Copy
// button (and, for a write key, its ShareX profile: share.js), and the list of keys
// (GET /api/keys) with Revoke on each (revoke-key.js).
// The key itself is in the page only until the dialog closes; the server keeps a hash.

import { openModal } from './dialog.js';
import { byId, setText } from './dom.js';
import { formatDateTime, t } from './i18n.js';
import { createRevoker } from './revoke-key.js';
import { downloadSharexProfile } from './share.js';

const SCOPES = { read: () => t('keys.scope.read'), write: () => t('keys.scope.write') };

export function createKeysView({ api, baseUrl }) {
  const dialog = byId('keys-dialog');
  const opener = byId('keys-open');
  const form = byId('key-form');
  const name = byId('key-name');
  const expires = byId('key-expires');
  const error = byId('key-error');
  const newKey = byId('new-key');
  const newKeyValue = byId('new-key-value');
  const copyButton = byId('new-key-copy');
  const copyStatus = byId('new-key-status');
  const sharexButton = byId('new-key-sharex');
  const table = byId('keys');
  const rowsBody = byId('key-rows');
  const template = byId('key-row');
  const empty = byId('keys-empty');
  const listError = byId('keys-error');
  const listStatus = byId('keys-status');
  const listTitle = byId('keys-list-title');
  const rows = new Map(); // id → its <tr>, so a reload updates rows in place
  const keys = new Map(); // id → the key as last listed
  let generation = 0; // bumps on every load and on close; older answers are dropped
  let busy = false;

  const revoker = createRevoker({
    api,
    focusAfter(key) {
      // The same button of the next row (or the one before), else the list's heading.
      const row = rows.get(key.id);
      const neighbour = row?.nextElementSibling ?? row?.previousElementSibling;
      return neighbour?.querySelector('.revoke-button') ?? listTitle;
    },
    onRevoked(key) {
      forget(key.id);
      renderSummary();
      listStatus.textContent = t('keys.revoked', { name: key.name });
    },
  });

  function open() {
    form.reset();
    error.textContent = '';
    listError.textContent = '';
    listStatus.textContent = '';
    expires.min = dayOf(new Date()); // the picker offers no day already over
    openModal(dialog, { opener, focus: name });
    load();
  }

  async function load() {
    const turn = ++generation;
    try {
      const { body } = await api.get('/api/keys');
      if (turn !== generation) return;
      listError.textContent = '';
      render(body);
    } catch (e) {
      // A 401 has already ended the session (and closed this dialog).
      if (turn !== generation || e.status === 401) return;
      listError.textContent = e.message;
      if (rows.size === 0) empty.hidden = true; // not "Loading…" for ever
    }
  }

  function render(listed) {
    const wanted = new Set(listed.map((key) => key.id));
    for (const id of [...rows.keys()]) {
      if (!wanted.has(id)) forget(id);
    }
    listed.forEach((key, index) => {
      let row = rows.get(key.id);
      if (row === undefined) {
        row = createRow(key.id);
        rows.set(key.id, row);
      }
      keys.set(key.id, key);
      fillRow(row, key);
      // Rows that stay are never moved (moving an element would take its focus away).
      const here = rowsBody.children[index];
      if (here !== row) rowsBody.insertBefore(row, here ?? null);
    });
    renderSummary();
  }

  function createRow(id) {
    const row = template.content.firstElementChild.cloneNode(true);
    const revoke = row.querySelector('.revoke-button');
    revoke.addEventListener('click', () => {
      listStatus.textContent = '';
      const key = keys.get(id);
      if (key !== undefined) revoker.open(key, revoke);
    });
    return row;
  }

  // Names come from the server and from whoever made the key: text only, never HTML.
  function fillRow(row, key) {
    setText(row.querySelector('.cell-key-name'), key.name);
    setText(row.querySelector('.cell-key-prefix code'), `${key.prefix}…`);
    setText(row.querySelector('.cell-key-scope'), SCOPES[key.scope]?.() ?? key.scope);
    const created = row.querySelector('.cell-key-created time');
    created.dateTime = key.created_at;
    setText(created, formatDateTime(key.created_at));
    renderMoment(row.querySelector('.cell-key-expires'), key.expires_at, { expiry: true });
    renderMoment(row.querySelector('.cell-key-used'), key.last_used_at);
    // The visible word first, so speech input ("click Revoke") finds it.
    row
      .querySelector('.revoke-button')
      .setAttribute('aria-label', t('keys.revokeLabel', { name: key.name }));
  }

  /** A date in the viewer's locale, or "Never"; an expiry that has passed gets a badge. */
  function renderMoment(cell, iso, { expiry = false } = {}) {
    if (iso === null) {
      cell.replaceChildren(t('keys.never'));
      return;
    }
    const time = document.createElement('time');
    time.dateTime = iso;
    time.textContent = formatDateTime(iso);
    cell.replaceChildren(time);
    if (expiry && Date.parse(iso) <= Date.now()) {
      const badge = document.createElement('span');
      badge.className = 'badge badge-expired';
      badge.textContent = t('keys.expired');
      cell.append(' ', badge);
    }
  }

  function forget(id) {
    rows.get(id)?.remove();
    rows.delete(id);
    keys.delete(id);
  }

  function renderSummary() {
    table.hidden = rows.size === 0;
    empty.hidden = rows.size !== 0;
    setText(empty, t('keys.empty'));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy) return;
    error.textContent = '';
    listStatus.textContent = '';
    const scope = form.querySelector('input[name="scope"]:checked')?.value ?? 'read';
    const body = { name: name.value, scope };
    // A date field holding only part of a date reads as empty: say so, not "never".
    if (expires.validity.badInput) {
      error.textContent = t('keys.expiresPartial');
      return;
    }
    if (expires.value) {
      const end = endOfDay(expires.value);
      if (end.getTime() <= Date.now()) {
        error.textContent = t('keys.expiresPast');
        return;
      }
      body.expires_at = end.toISOString();
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      const { body: created } = await api.post('/api/keys', body);
      form.reset();
      showNewKey(created.key, scope);
      load();
    } catch (e) {
      // A 401 has ended the session; anything else is the server's own message, shown
      // next to the form and announced (role="alert").
      if (e.status !== 401) error.textContent = e.message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  function showNewKey(key, scope) {
    newKeyValue.textContent = key;
    sharexButton.hidden = scope !== 'write'; // a read key cannot shorten
    copyStatus.textContent = '';
    newKey.hidden = false;
    // Its warning is the button's description, so it is read out with it.
    copyButton.focus();
  }

  /** The key leaves the page with the dialog: it is shown once, while it is open. */
  function forgetNewKey() {
    newKeyValue.textContent = '';
    copyStatus.textContent = '';
    newKey.hidden = true;
    sharexButton.hidden = true;
  }

  sharexButton.addEventListener('click', () => {
    downloadSharexProfile(baseUrl, newKeyValue.textContent);
    copyStatus.textContent = t('keys.sharexWarning');
  });

  copyButton.addEventListener('click', async () => {
    const key = newKeyValue.textContent;
    try {
      // Missing outside secure contexts (plain http on a non-localhost address).
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(key);
      copyStatus.textContent = t('keys.copied');
    } catch {
      // Select the key instead, so one keystroke copies it.
      getSelection()?.selectAllChildren(newKeyValue);
      copyStatus.textContent = t('keys.copyUnavailable');
    }
  });

  opener.addEventListener('click', open);
  dialog.addEventListener('close', () => {
    // Nothing of the keys stays in the page behind (the next person may see it).
    generation++;
    revoker.close();
    forgetNewKey();
    for (const id of [...rows.keys()]) forget(id);
    table.hidden = true;
    empty.hidden = false;
    empty.textContent = t('keys.loading');
  });

  return {
    close() {
      revoker.close();
      if (dialog.open) dialog.close();
    },
  };
}

/** A date input's day, ending at its last millisecond in the viewer's time zone. */
function endOfDay(value) {
  const [year, month, day] = value.split('-').map(Number);
  return new Date(year, month - 1, day, 23, 59, 59, 999);
}

/** A Date's day in the viewer's time zone, as a date input's value (YYYY-MM-DD). */
function dayOf(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
