// The admin section's blocklist: the hosts kept in the database (GET /api/admin/blocklist),
// which no new link may point at (their subdomains neither), on every instance. A host is
// added with an optional reason (POST), or when a link is disabled with "Also block", and
// removed again (DELETE /api/admin/blocklist/{host}). The --blocklist file is not shown:
// it is the operator's, changed where it lives.

import { createPagedList } from './admin-list.js';
import { byId, setText } from './dom.js';
import { formatDateTime, t } from './i18n.js';

export function createAdminBlocklist({ api, dialog }) {
  const section = byId('admin-blocklist');
  const heading = byId('blocklist-title');
  const form = byId('block-form');
  const host = byId('block-host');
  const reason = byId('block-reason');
  const formError = byId('block-error');
  const template = byId('blocked-row');
  let busy = false;

  const list = createPagedList({
    prefix: 'blocklist',
    holder: 'blocklist',
    paged: false,
    loadingText: t('admin.blocklist.loading'),
    emptyText: () => t('admin.blocklist.empty'),
    keyOf: (entry) => entry.host,
    fetchPage: () => api.get('/api/admin/blocklist'),
    createRow(key) {
      const row = template.content.firstElementChild.cloneNode(true);
      const remove = row.querySelector('.unblock-button');
      remove.addEventListener('click', () => unblock(list.item(key), remove));
      return row;
    },
    fillRow(row, entry) {
      setText(row.querySelector('.cell-host'), entry.host);
      setText(row.querySelector('.cell-reason'), entry.reason ?? '');
      const added = row.querySelector('.cell-date time');
      added.dateTime = entry.created_at;
      setText(added, formatDateTime(entry.created_at));
      // The visible word first, so speech input ("click Remove") finds it.
      row
        .querySelector('.unblock-button')
        .setAttribute('aria-label', t('admin.blocklist.removeLabel', { host: entry.host }));
    },
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy) return;
    list.quiet();
    formError.textContent = '';
    const wanted = host.value.trim();
    if (wanted === '') {
      formError.textContent = t('admin.blocklist.enterHost');
      host.focus();
      return;
    }
    const body = { host: wanted };
    if (reason.value.trim()) body.reason = reason.value.trim();
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      const { body: added } = await api.post('/api/admin/blocklist', body);
      form.reset();
      list.say(t('admin.blocklist.blocked', { host: added?.host ?? wanted }));
      list.load();
      host.focus();
    } catch (e) {
      if (e.status !== 401) formError.textContent = e.message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  /** Removing a host only lets new links point at it again: no confirmation needed. */
  async function unblock(entry, button) {
    list.quiet();
    try {
      await api.delete(`/api/admin/blocklist/${encodeURIComponent(entry.host)}`);
    } catch (e) {
      // 404: removed already (another tab): the list forgets it all the same.
      if (e.status !== 404) {
        if (e.status !== 401) list.fail(e.message);
        return;
      }
    }
    const [neighbour] = list.neighbours(entry.host);
    list.remove(entry.host);
    list.say(t('admin.blocklist.removed', { host: entry.host }));
    (neighbour?.querySelector('.unblock-button') ?? (button.isConnected ? button : host)).focus();
  }

  return {
    section,
    heading,
    enter: () => list.load(),
    leave() {
      dialog.close();
    },
    reset() {
      form.reset();
      formError.textContent = '';
      list.reset();
    },
  };
}
