// The list of links: 50 a page through the API's limit/offset, filtered and ordered by
// the server (list-filters.js), and a poll that keeps click counts current without
// re-rendering what has focus. Each row has its short URL (on the link's own domain), its
// tags as chips (pressing one shows that tag's links), its QR, Stats, Edit and Delete
// buttons, and badges for expired, password-protected and disabled links (an admin
// disabled it: it answers 410 until an admin enables it again).
//
// GET /api/links?view=full gives every setting of each link in the page, so no row needs
// a request of its own. A code is unique per domain only, so rows are kept by link id.

import { byId, formatCount, formatDate, isWebUrl, setText } from './dom.js';
import { t } from './i18n.js';
import { createListFilters } from './list-filters.js';

const PAGE_SIZE = 50;
const POLL_MS = 5000;

/**
 * onShowQr(link) puts a listed link in the result panel; onStats, onEdit and onDelete
 * (link, button) open the dialogs of those actions; onTagStats(tag, button) a tag's stats.
 */
export function createLinksList({ api, domains, onShowQr, onStats, onEdit, onDelete, onTagStats }) {
  const table = byId('links');
  const rowsBody = byId('link-rows');
  const template = byId('link-row');
  const empty = byId('list-empty');
  const error = byId('list-error');
  const pager = byId('pager');
  const range = byId('range');
  const previous = byId('previous');
  const next = byId('next');
  const filters = createListFilters({ api, domains, onChange: () => go(0), onTagStats });

  // bounded: more links match than the total counted (a text search counts up to a bound).
  const state = { offset: 0, total: 0, bounded: false };
  const rows = new Map(); // link id → its <tr>, so refreshes update rows in place
  const links = new Map(); // link id → the link as last listed or changed
  let generation = 0; // bumps on every load and on stop; older answers are dropped
  let loading = false;
  let timer;

  async function load() {
    const turn = ++generation;
    loading = true;
    try {
      const query = new URLSearchParams({
        view: 'full',
        limit: String(PAGE_SIZE),
        offset: String(state.offset),
        ...filters.params(),
      });
      const { body, headers } = await api.get(`/api/links?${query}`);
      if (turn !== generation) return;
      error.textContent = '';
      state.total = Number(headers.get('x-total-count') ?? body.length);
      state.bounded = headers.get('x-total-count-exact') === 'false';
      render(body);
    } catch (e) {
      // A 401 has already ended the session; other failures keep the rows shown.
      if (turn === generation && e.status !== 401) error.textContent = e.message;
    } finally {
      if (turn === generation) loading = false;
    }
  }

  function render(pageLinks) {
    const wanted = new Set(pageLinks.map((link) => link.id));
    // Remove rows that left the page first, so rows that stay are never moved (moving
    // an element in the DOM would take focus away from it).
    for (const id of [...rows.keys()]) {
      if (!wanted.has(id)) forget(id);
    }
    pageLinks.forEach((link, index) => {
      let row = rows.get(link.id);
      if (row === undefined) {
        row = createRow(link);
        rows.set(link.id, row);
      }
      links.set(link.id, link);
      renderLink(row, link);
      const here = rowsBody.children[index];
      if (here !== row) rowsBody.insertBefore(row, here ?? null);
    });
    renderSummary(pageLinks.length);
  }

  function forget(id) {
    rows.get(id)?.remove();
    rows.delete(id);
    links.delete(id);
  }

  function createRow(link) {
    const row = template.content.firstElementChild.cloneNode(true);
    const shortUrl = domains.shortUrlOf(link);
    const shortLink = row.querySelector('.short-link');
    shortLink.href = shortUrl;
    shortLink.textContent = shortUrl.replace(/^https?:\/\//, ''); // the scheme is noise here
    const time = row.querySelector('time');
    time.dateTime = link.created_at;
    time.textContent = formatDate(link.created_at);
    const current = () => links.get(link.id) ?? link;
    const qrButton = row.querySelector('.qr-button');
    qrButton.setAttribute('aria-label', t('ui.row.qrFor', { url: shortUrl }));
    qrButton.addEventListener('click', () => onShowQr(current()));
    // The visible word comes first in each name, so speech input ("click Edit") finds it.
    const name = domains.nameOf(link);
    const actions = [
      ['.stats-button', t('ui.row.statsFor', { name }), onStats],
      ['.edit-button', t('ui.row.editFor', { name }), onEdit],
      ['.delete-button', t('ui.row.deleteFor', { name }), onDelete],
    ];
    for (const [selector, label, action] of actions) {
      const button = row.querySelector(selector);
      button.setAttribute('aria-label', label);
      button.addEventListener('click', () => action(current(), button));
    }
    return row;
  }

  /** What may change while a row is shown: target, clicks, badges and tags. */
  function renderLink(row, link) {
    renderTarget(row, link.original_url);
    setText(row.querySelector('.cell-clicks'), formatCount(link.clicks));
    renderBadges(row, link);
    renderTags(row, link.tags ?? []);
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

  /**
   * The Disabled, Expired and Password badges: a word each, with the reason on hover; the
   * operator's reason for disabling is read out too.
   */
  function renderBadges(row, link) {
    const wantedBadges = [];
    if (link.disabled) {
      const reason = link.disabled_reason
        ? t('ui.badge.disabledReason', { reason: link.disabled_reason })
        : t('ui.badge.disabledBy');
      wantedBadges.push([t('ui.badge.disabled'), 'badge-disabled', reason]);
    }
    if (link.status === 'expired') {
      const byTime = link.expires_at != null && Date.parse(link.expires_at) <= Date.now();
      const reason = byTime
        ? t('ui.badge.expiredOn', { date: formatDate(link.expires_at) })
        : t('ui.badge.limitReached', { count: link.max_clicks ?? 0 });
      wantedBadges.push([t('ui.badge.expired'), 'badge-expired', reason]);
    }
    if (link.password_protected) {
      wantedBadges.push([t('ui.badge.password'), 'badge-protected', t('ui.badge.passwordWhy')]);
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
        if (kind === 'badge-disabled') {
          const more = document.createElement('span');
          more.className = 'visually-hidden';
          // Read out after the word: the rest of the reason, which starts with it.
          more.textContent = reason.startsWith(text) ? reason.slice(text.length) : `: ${reason}`;
          badge.append(more);
        }
        return badge;
      }),
    );
  }

  /** The link's tags as chips; pressing one filters the list by it. */
  function renderTags(row, tags) {
    const holder = row.querySelector('.row-tags');
    const key = tags.join(',');
    if (holder.dataset.key === key) return;
    holder.dataset.key = key;
    holder.replaceChildren(
      ...tags.map((tag) => {
        const item = document.createElement('li');
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'chip chip-button';
        button.textContent = tag;
        button.title = t('ui.row.tagOnly', { tag });
        button.addEventListener('click', () => filters.showTag(tag));
        item.append(button);
        return item;
      }),
    );
  }

  function renderSummary(count) {
    const { offset, total } = state;
    const narrowed = filters.narrowed;
    table.hidden = count === 0;
    pager.hidden = total === 0; // the empty message says it all
    empty.hidden = count !== 0;
    setText(
      empty,
      narrowed ? t('ui.list.noMatch', { filters: filters.describe() }) : t('ui.list.none'),
    );
    const shown = {
      from: offset + 1,
      to: offset + count,
      total: `${formatCount(total)}${state.bounded ? '+' : ''}`,
    };
    setText(range, t(narrowed ? 'ui.list.rangeMatching' : 'ui.list.range', shown));
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

  /** A link changed through the Edit dialog: its row shows the answer at once. */
  function update(detail) {
    // A poll already under way may bring the link as it was: drop it, the next one is new.
    generation++;
    loading = false;
    links.set(detail.id, detail);
    const row = rows.get(detail.id);
    if (row !== undefined) renderLink(row, detail);
    filters.loadTags(); // its tags may be new, or gone
  }

  /** A link deleted through the Delete dialog: its row goes now, the page refills after. */
  function remove(id) {
    if (rows.has(id)) {
      forget(id);
      state.total = Math.max(0, state.total - 1);
      renderSummary(rows.size);
    }
    load();
    filters.loadTags();
  }

  /** The row of the link `id`, its neighbours after and before, for where focus goes on delete. */
  function neighbours(id) {
    const row = rows.get(id);
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
      filters.loadTags();
    },
    /** Reads the page again, and the tags (links were made). */
    refresh() {
      load();
      filters.loadTags();
    },
    update,
    remove,
    neighbours,
    /** Stops polling and forgets every row (on logout). */
    stop() {
      clearInterval(timer);
      timer = undefined;
      generation++;
      loading = false;
      filters.reset();
      Object.assign(state, { offset: 0, total: 0, bounded: false });
      rowsBody.replaceChildren();
      table.hidden = true;
      pager.hidden = true;
      empty.hidden = false;
      empty.textContent = t('ui.list.loading');
      rows.clear();
      links.clear();
      error.textContent = '';
    },
  };
}
