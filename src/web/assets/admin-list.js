// What the admin section's lists share (users, all links, reports, the blocklist): a page
// of rows from the server (limit/offset and X-Total-Count, as GET /api/links), rows kept
// by key and updated in place (so a row with focus is never rebuilt), the loading and
// empty messages, the error and status lines, and the pager. Each view says how to fetch
// a page and how to fill a row.

import { byId, setText } from './dom.js';
import { t } from './i18n.js';

export const PAGE_SIZE = 50;
const TEXT_DELAY_MS = 200;

/**
 * prefix: the ids of the view's elements (`${prefix}-rows`, -empty, -error, -status,
 * -pager, -range, -previous, -next); holder: the table or list shown when there are rows.
 * fetchPage(offset, limit) → {body, headers}; keyOf(item); createRow(key) → element;
 * fillRow(row, item); emptyText() says why there are no rows.
 */
export function createPagedList({
  prefix,
  holder,
  paged = true,
  fetchPage,
  keyOf,
  createRow,
  fillRow,
  emptyText,
  loadingText,
}) {
  const rowsBody = byId(`${prefix}-rows`);
  const table = byId(holder);
  const empty = byId(`${prefix}-empty`);
  const error = byId(`${prefix}-error`);
  const status = byId(`${prefix}-status`);
  const pager = paged ? byId(`${prefix}-pager`) : null;
  const range = paged ? byId(`${prefix}-range`) : null;
  const previous = paged ? byId(`${prefix}-previous`) : null;
  const next = paged ? byId(`${prefix}-next`) : null;
  const state = { offset: 0, total: 0 };
  const rows = new Map(); // key → its row
  const items = new Map(); // key → the item as last listed or changed
  let generation = 0;

  async function load() {
    const turn = ++generation;
    table.setAttribute('aria-busy', 'true');
    try {
      const { body, headers } = await fetchPage(state.offset, PAGE_SIZE);
      if (turn !== generation) return;
      error.textContent = '';
      state.total = Number(headers.get('x-total-count') ?? body.length);
      render(body);
    } catch (e) {
      if (turn !== generation) return;
      // A 401 in accounts mode has ended the session; else the server's own message.
      if (e.status !== 401) error.textContent = e.message;
      if (rows.size === 0) empty.hidden = true; // not "Loading…" for ever
    } finally {
      if (turn === generation) table.removeAttribute('aria-busy');
    }
  }

  function render(listed) {
    const wanted = new Set(listed.map(keyOf));
    for (const key of [...rows.keys()]) {
      if (!wanted.has(key)) forget(key);
    }
    listed.forEach((item, index) => {
      const key = keyOf(item);
      let row = rows.get(key);
      if (row === undefined) {
        row = createRow(key);
        rows.set(key, row);
      }
      items.set(key, item);
      fillRow(row, item);
      // Rows that stay are never moved (moving an element would take its focus away).
      const here = rowsBody.children[index];
      if (here !== row) rowsBody.insertBefore(row, here ?? null);
    });
    summary();
  }

  function forget(key) {
    rows.get(key)?.remove();
    rows.delete(key);
    items.delete(key);
  }

  function summary() {
    const count = rows.size;
    table.hidden = count === 0;
    empty.hidden = count !== 0;
    setText(empty, emptyText());
    if (!paged) return;
    pager.hidden = state.total === 0; // the empty message says it all
    const [first, last, total] = [state.offset + 1, state.offset + count, state.total];
    setText(range, t('admin.list.range', { first, last, total }));
    // aria-disabled rather than disabled: a disabled button drops keyboard focus.
    previous.setAttribute('aria-disabled', String(state.offset === 0));
    next.setAttribute('aria-disabled', String(state.offset + PAGE_SIZE >= state.total));
  }

  function go(offset) {
    state.offset = offset;
    load();
  }

  previous?.addEventListener('click', () => {
    if (state.offset > 0) go(Math.max(0, state.offset - PAGE_SIZE));
  });
  next?.addEventListener('click', () => {
    if (state.offset + PAGE_SIZE < state.total) go(state.offset + PAGE_SIZE);
  });

  return {
    load,
    /** From the first page again (a search changed). */
    first: () => go(0),
    /** The item of `key` as last listed or changed. */
    item: (key) => items.get(key),
    /** An item changed here: its row shows the server's answer at once. */
    update(item) {
      generation++; // a load under way may bring it as it was
      table.removeAttribute('aria-busy');
      const key = keyOf(item);
      items.set(key, item);
      const row = rows.get(key);
      if (row !== undefined) fillRow(row, item);
    },
    /** An item gone: its row goes now, the page refills after. */
    remove(key) {
      if (rows.has(key)) {
        forget(key);
        state.total = Math.max(0, state.total - 1);
        summary();
      }
      load();
    },
    /** The rows after and before the row of `key`, for where focus goes when it goes. */
    neighbours(key) {
      const row = rows.get(key);
      return [row?.nextElementSibling, row?.previousElementSibling].filter(Boolean);
    },
    say(text) {
      status.textContent = text;
    },
    fail(text) {
      error.textContent = text;
    },
    /** Clears the messages (before an action). */
    quiet() {
      status.textContent = '';
      error.textContent = '';
    },
    /** Forgets every row (the section was left, or the person logged out). */
    reset() {
      generation++;
      Object.assign(state, { offset: 0, total: 0 });
      rowsBody.replaceChildren();
      rows.clear();
      items.clear();
      table.hidden = true;
      table.removeAttribute('aria-busy');
      if (pager) pager.hidden = true;
      empty.hidden = false;
      empty.textContent = loadingText;
      status.textContent = '';
      error.textContent = '';
    },
  };
}

/** Calls `onChange()` once typing in `input` pauses (the server searches, not per keystroke). */
export function whenTyped(input, onChange) {
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, TEXT_DELAY_MS);
  });
  input.form?.addEventListener('submit', (event) => event.preventDefault());
}

/** Hides what only accounts mode has (owners, users) inside `root`, in open mode. */
export function forMode(root, mode) {
  if (mode !== 'open') return;
  for (const element of root.querySelectorAll('[data-accounts]')) element.hidden = true;
}

/** A badge: a word in a pill, with `more` read out after it and shown on hover. */
export function badge(text, kind, more) {
  const element = document.createElement('span');
  element.className = `badge ${kind}`;
  element.textContent = text;
  if (more) {
    element.title = more;
    const hidden = document.createElement('span');
    hidden.className = 'visually-hidden';
    hidden.textContent = `: ${more}`;
    element.append(hidden);
  }
  return element;
}

/** Replaces the badges in `holder` unless they are the same (screen readers stay quiet). */
export function setBadges(holder, badges) {
  const key = badges.map((b) => b.textContent).join('/');
  if (holder.dataset.key === key) return;
  holder.dataset.key = key;
  holder.replaceChildren(...badges);
}
