// The list of links: newest first, 50 a page through the API's limit/offset, a filter,
// and a poll that keeps click counts current without re-rendering what has focus. Each
// row has its QR, Stats, Edit and Delete buttons and badges for expired and
// password-protected links (their settings come from link-details.js).
//
// Filtering searches the whole list, not just the page on screen: while a filter is
// typed, the page fetches every link once per refresh (no `limit`) and pages through the
// matches itself. A self-hosted list is small enough for that, and a filter that
// missed links on other pages would be a trap.

import { byId, formatCount, formatDate, isWebUrl, setText } from './dom.js';
import { createDetailsQueue, detailNeeded } from './link-details.js';

const PAGE_SIZE = 50;
const POLL_MS = 5000;
const FILTER_DELAY_MS = 200;

/**
 * onShowQr(link) puts a listed link in the result panel; onStats, onEdit and onDelete
 * (code, button) open the dialogs of those actions.
 */
export function createLinksList({ api, shortUrlOf, onShowQr, onStats, onEdit, onDelete }) {
  const table = byId('links');
  const rowsBody = byId('link-rows');
  const template = byId('link-row');
  const empty = byId('list-empty');
  const error = byId('list-error');
  const filterInput = byId('filter');
  const pager = byId('pager');
  const range = byId('range');
  const previous = byId('previous');
  const next = byId('next');

  const state = { offset: 0, total: 0, filter: '' };
  const rows = new Map(); // short_code → its <tr>, so refreshes update rows in place
  const links = new Map(); // short_code → the link as last listed or changed
  const details = new Map(); // short_code → its GET /api/links/{code}, for the badges
  const changedAt = new Map(); // short_code → when this page last changed it (Edit)
  const detailsQueue = createDetailsQueue({
    api,
    onDetail(detail, askedAt) {
      // Asked for before an edit answered: it shows the link as it was.
      if ((changedAt.get(detail.short_code) ?? -1) > askedAt) return;
      details.set(detail.short_code, detail);
      const row = rows.get(detail.short_code);
      if (row !== undefined) renderBadges(row, detail);
    },
  });
  let generation = 0; // bumps on every load and on stop; older answers are dropped
  let loading = false;
  let timer;
  let filterTimer;

  async function load() {
    const turn = ++generation;
    loading = true;
    try {
      const page = state.filter ? await filteredPage() : await serverPage();
      if (turn !== generation) return;
      error.textContent = '';
      state.total = page.total;
      render(page.links);
    } catch (e) {
      // A 401 has already ended the session; other failures keep the rows shown.
      if (turn === generation && e.status !== 401) error.textContent = e.message;
    } finally {
      if (turn === generation) loading = false;
    }
  }

  async function serverPage() {
    const query = `limit=${PAGE_SIZE}&offset=${state.offset}`;
    const { body, headers } = await api.get(`/api/links?${query}`);
    return { links: body, total: Number(headers.get('x-total-count') ?? body.length) };
  }

  async function filteredPage() {
    const { body } = await api.get('/api/links');
    const needle = state.filter.toLowerCase();
    // `source` is matched too once the API includes it in links (today it does not).
    const matches = body.filter((link) =>
      [link.short_code, link.original_url, link.source].some(
        (text) => typeof text === 'string' && text.toLowerCase().includes(needle),
      ),
    );
    return { links: matches.slice(state.offset, state.offset + PAGE_SIZE), total: matches.length };
  }

  function render(pageLinks) {
    const wanted = new Set(pageLinks.map((link) => link.short_code));
    // Remove rows that left the page first, so rows that stay are never moved (moving
    // an element in the DOM would take focus away from it).
    for (const code of [...rows.keys()]) {
      if (!wanted.has(code)) forget(code);
    }
    pageLinks.forEach((link, index) => {
      let row = rows.get(link.short_code);
      if (row === undefined) {
        row = createRow(link);
        rows.set(link.short_code, row);
      }
      links.set(link.short_code, link);
      renderTarget(row, link.original_url); // changed in another tab, say
      setText(row.querySelector('.cell-clicks'), formatCount(link.clicks));
      const here = rowsBody.children[index];
      if (here !== row) rowsBody.insertBefore(row, here ?? null);
    });
    renderSummary(pageLinks.length);
    for (const link of pageLinks) {
      if (detailNeeded(details.get(link.short_code), link.clicks)) {
        detailsQueue.request(link.short_code);
      }
    }
  }

  function forget(code) {
    rows.get(code)?.remove();
    rows.delete(code);
    links.delete(code);
    details.delete(code);
    changedAt.delete(code);
  }

  function createRow(link) {
    const row = template.content.firstElementChild.cloneNode(true);
    const shortUrl = shortUrlOf(link.short_code);
    const shortLink = row.querySelector('.short-link');
    shortLink.href = shortUrl;
    shortLink.textContent = shortUrl.replace(/^https?:\/\//, ''); // the scheme is noise here
    renderTarget(row, link.original_url);
    const time = row.querySelector('time');
    time.dateTime = link.created_at;
    time.textContent = formatDate(link.created_at);
    const qrButton = row.querySelector('.qr-button');
    qrButton.setAttribute('aria-label', `QR code for ${shortUrl}`);
    qrButton.addEventListener('click', () => onShowQr(links.get(link.short_code) ?? link));
    // The visible word comes first in each name, so speech input ("click Edit") finds it.
    const code = link.short_code;
    const actions = [
      ['.stats-button', `Stats for ${code}`, onStats],
      ['.edit-button', `Edit ${code}`, onEdit],
      ['.delete-button', `Delete ${code}`, onDelete],
    ];
    for (const [selector, label, action] of actions) {
      const button = row.querySelector(selector);
      button.setAttribute('aria-label', label);
      button.addEventListener('click', () => action(code, button));
    }
    return row;
  }

  function renderTarget(row, url) {
    // The target is cut with an ellipsis by CSS; the full URL is the link's text (what
    // screen readers read), its title (on hover) and shown whole on keyboard focus.
    const target = row.querySelector('.target');
    setText(target, url);
    target.title = url;
    if (isWebUrl(url)) {
      target.href = url;
      target.removeAttribute('tabindex');
    } else {
      target.removeAttribute('href');
      target.tabIndex = 0; // still focusable, so focus can reveal it
    }
  }

  /** The Expired and Password badges: a word each, with the reason on hover. */
  function renderBadges(row, detail) {
    const wantedBadges = [];
    if (detail.status === 'expired') {
      const byTime = detail.expires_at !== null && Date.parse(detail.expires_at) <= Date.now();
      const reason = byTime
        ? `Expired on ${formatDate(detail.expires_at)}`
        : `Reached its limit of ${formatCount(detail.max_clicks ?? 0)} clicks`;
      wantedBadges.push(['Expired', 'badge-expired', reason]);
    }
    if (detail.password_protected) {
      wantedBadges.push(['Password', 'badge-protected', 'Visitors must enter a password']);
    }
    const holder = row.querySelector('.badges');
    const key = wantedBadges.map((badge) => badge.join('|')).join('/');
    if (holder.dataset.key === key) return; // unchanged: leave screen readers in peace
    holder.dataset.key = key;
    holder.replaceChildren(
      ...wantedBadges.map(([text, kind, reason]) => {
        const badge = document.createElement('span');
        badge.className = `badge ${kind}`;
        badge.textContent = text;
        badge.title = reason;
        return badge;
      }),
    );
  }

  function renderSummary(count) {
    const { offset, total, filter } = state;
    table.hidden = count === 0;
    pager.hidden = total === 0; // the empty message says it all
    empty.hidden = count !== 0;
    setText(
      empty,
      filter ? `No links match “${filter}”.` : 'No links yet. Shorten one above and it shows here.',
    );
    const shown = `${formatCount(offset + 1)}–${formatCount(offset + count)}`;
    setText(range, `${shown} of ${formatCount(total)}${filter ? ' matching' : ''}`);
    // aria-disabled rather than disabled: a disabled button drops keyboard focus.
    previous.setAttribute('aria-disabled', String(offset === 0));
    next.setAttribute('aria-disabled', String(offset + PAGE_SIZE >= total));
  }

  function go(offset) {
    state.offset = offset;
    load();
  }

  previous.addEventListener('click', () => {
    if (state.offset > 0) go(Math.max(0, state.offset - PAGE_SIZE));
  });
  next.addEventListener('click', () => {
    if (state.offset + PAGE_SIZE < state.total) go(state.offset + PAGE_SIZE);
  });
  filterInput.addEventListener('input', () => {
    // Wait for a pause in typing rather than fetching the whole list per keystroke.
    clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      state.filter = filterInput.value.trim();
      go(0);
    }, FILTER_DELAY_MS);
  });

  /** A link changed through the Edit dialog: its row shows the answer at once. */
  function update(detail) {
    const code = detail.short_code;
    // A poll already under way may bring the link as it was: drop it, the next one is new.
    generation++;
    loading = false;
    details.set(code, detail);
    changedAt.set(code, performance.now());
    const link = links.get(code);
    if (link !== undefined) links.set(code, { ...link, original_url: detail.original_url });
    const row = rows.get(code);
    if (row === undefined) return;
    renderTarget(row, detail.original_url);
    setText(row.querySelector('.cell-clicks'), formatCount(detail.clicks));
    renderBadges(row, detail);
  }

  /** A link deleted through the Delete dialog: its row goes now, the page refills after. */
  function remove(code) {
    if (rows.has(code)) {
      forget(code);
      state.total = Math.max(0, state.total - 1);
      renderSummary(rows.size);
    }
    load();
  }

  /** The row of `code`, its neighbours after and before, for where focus goes on delete. */
  function neighbours(code) {
    const row = rows.get(code);
    return [row?.nextElementSibling, row?.previousElementSibling].filter(Boolean);
  }

  // Poll only while the tab is visible; coming back refreshes at once.
  function poll() {
    if (timer !== undefined && document.visibilityState === 'visible' && !loading) load();
  }
  document.addEventListener('visibilitychange', poll);

  return {
    /** Shows the first page and starts polling. */
    start() {
      clearInterval(timer);
      timer = setInterval(poll, POLL_MS);
      load();
    },
    refresh: load,
    update,
    remove,
    neighbours,
    /** The link of a listed code, as last listed or changed. */
    linkOf: (code) => links.get(code),
    /** Stops polling and forgets every row (on logout). */
    stop() {
      clearInterval(timer);
      clearTimeout(filterTimer);
      timer = undefined;
      generation++;
      loading = false;
      Object.assign(state, { offset: 0, total: 0, filter: '' });
      filterInput.value = '';
      rowsBody.replaceChildren();
      table.hidden = true;
      pager.hidden = true;
      empty.hidden = false;
      empty.textContent = 'Loading links…';
      rows.clear();
      links.clear();
      details.clear();
      changedAt.clear();
      detailsQueue.clear();
      error.textContent = '';
    },
  };
}
