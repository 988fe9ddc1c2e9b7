// The list of links: newest first, 50 a page through the API's limit/offset, a filter,
// and a poll that keeps click counts current without re-rendering what has focus.
//
// Filtering searches the whole list, not just the page on screen: while a filter is
// typed, the page fetches every link once per refresh (no `limit`) and pages through the
// matches itself. A self-hosted list is small enough for that, and a filter that
// missed links on other pages would be a trap.

import { byId, formatCount, formatDate, isWebUrl, setText } from './dom.js';

const PAGE_SIZE = 50;
const POLL_MS = 5000;
const FILTER_DELAY_MS = 200;

/** onShowQr(link) puts a listed link in the result panel. */
export function createLinksList({ api, shortUrlOf, onShowQr }) {
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
    for (const [code, row] of rows) {
      if (!wanted.has(code)) {
        row.remove();
        rows.delete(code);
      }
    }
    pageLinks.forEach((link, index) => {
      let row = rows.get(link.short_code);
      if (row === undefined) {
        row = createRow(link);
        rows.set(link.short_code, row);
      }
      setText(row.querySelector('.cell-clicks'), formatCount(link.clicks));
      const here = rowsBody.children[index];
      if (here !== row) rowsBody.insertBefore(row, here ?? null);
    });
    renderSummary(pageLinks.length);
  }

  function createRow(link) {
    const row = template.content.firstElementChild.cloneNode(true);
    const shortUrl = shortUrlOf(link.short_code);
    const shortLink = row.querySelector('.short-link');
    shortLink.href = shortUrl;
    shortLink.textContent = shortUrl.replace(/^https?:\/\//, ''); // the scheme is noise here
    // The target is cut with an ellipsis by CSS; the full URL is the link's text (what
    // screen readers read), its title (on hover) and shown whole on keyboard focus.
    const target = row.querySelector('.target');
    target.textContent = link.original_url;
    target.title = link.original_url;
    if (isWebUrl(link.original_url)) target.href = link.original_url;
    else target.tabIndex = 0; // still focusable, so focus can reveal it
    const time = row.querySelector('time');
    time.dateTime = link.created_at;
    time.textContent = formatDate(link.created_at);
    const qrButton = row.querySelector('.qr-button');
    qrButton.setAttribute('aria-label', `QR code for ${shortUrl}`);
    qrButton.addEventListener('click', () => onShowQr(link));
    return row;
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
      error.textContent = '';
    },
  };
}
