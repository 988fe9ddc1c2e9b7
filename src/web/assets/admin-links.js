// The admin section's links: every link of every user (GET /api/admin/links), searched by
// code or target, owner's e-mail (accounts mode), short domain and state, 50 a page.
// A link can be disabled with a reason shown to its visitors, its target's host blocked
// for new links at the same time (POST …/disable), enabled again (…/enable) and deleted
// after a confirmation. Targets are shown as text, never as links: an admin looking at a
// reported phishing page should not be one click from it.

import { badge, createPagedList, forMode, setBadges, whenTyped } from './admin-list.js';
import { byId, setText } from './dom.js';
import { formatDateTime, formatNumber, t } from './i18n.js';

export function createAdminLinks({ api, mode, domains, dialog }) {
  const section = byId('admin-links');
  const heading = byId('admin-links-title');
  const search = byId('admin-links-q');
  const owner = byId('admin-links-owner');
  const domainField = byId('admin-links-domain-field');
  const domainSelect = byId('admin-links-domain');
  const state = byId('admin-links-state');
  const template = byId('admin-link-row');
  const filters = { q: '', owner: '' };

  const keyOf = (link) => `${link.domain ?? ''}/${link.code}`;
  const nameOf = (link) => domains.nameOf({ domain: link.domain, short_code: link.code });

  const list = createPagedList({
    prefix: 'admin-links',
    holder: 'admin-links-table',
    loadingText: t('admin.links.loading'),
    emptyText: () => (narrowed() ? t('admin.links.noMatch') : t('admin.links.none')),
    keyOf,
    fetchPage(offset, limit) {
      const query = new URLSearchParams({ limit: String(limit), offset: String(offset) });
      if (filters.q) query.set('q', filters.q);
      if (filters.owner && mode === 'accounts') query.set('owner', filters.owner);
      if (domainSelect.value && domains.several) query.set('domain', domainSelect.value);
      if (state.value) query.set('disabled', state.value);
      return api.get(`/api/admin/links?${query}`);
    },
    createRow(key) {
      const row = template.content.firstElementChild.cloneNode(true);
      forMode(row, mode);
      const link = () => list.item(key);
      const toggle = row.querySelector('.disable-button');
      toggle.addEventListener('click', () => {
        const current = link();
        if (current.disabled) enable(current);
        else confirmDisable(current, toggle);
      });
      const remove = row.querySelector('.delete-button');
      remove.addEventListener('click', () => confirmDelete(link(), remove));
      return row;
    },
    fillRow(row, link) {
      const name = nameOf(link);
      const shortLink = row.querySelector('.short-link');
      if (shortLink.getAttribute('href') !== link.short_url) shortLink.href = link.short_url;
      setText(shortLink, link.short_url.replace(/^https?:\/\//, ''));
      const badges = [];
      if (link.disabled) {
        const since = link.disabled_at
          ? t('admin.badge.since', { date: formatDateTime(link.disabled_at) })
          : '';
        badges.push(badge(t('admin.badge.disabled'), 'badge-disabled', since));
      }
      setBadges(row.querySelector('.badges'), badges);
      const target = row.querySelector('.target');
      setText(target, link.original_url);
      target.title = link.original_url;
      const reason =
        link.disabled && link.disabled_reason
          ? t('admin.links.reason', { reason: link.disabled_reason })
          : '';
      setText(row.querySelector('.disabled-reason'), reason);
      setText(row.querySelector('.cell-owner'), link.owner?.email ?? t('admin.noOwner'));
      const created = row.querySelector('.cell-date time');
      created.dateTime = link.created_at;
      setText(created, formatDateTime(link.created_at));
      setText(row.querySelector('.cell-count'), formatNumber(link.clicks ?? 0));
      // The visible word first in each name, so speech input ("click Disable") finds it.
      const toggle = row.querySelector('.disable-button');
      setText(toggle, link.disabled ? t('admin.enable') : t('admin.disable'));
      toggle.setAttribute(
        'aria-label',
        link.disabled ? t('admin.enableLabel', { name }) : t('admin.disableLabel', { name }),
      );
      row
        .querySelector('.delete-button')
        .setAttribute('aria-label', t('admin.links.deleteLabel', { name }));
    },
  });

  const narrowed = () =>
    filters.q !== '' ||
    (filters.owner !== '' && mode === 'accounts') ||
    (domainSelect.value !== '' && domains.several) ||
    state.value !== '';

  whenTyped(search, () => {
    filters.q = search.value.trim();
    list.first();
  });
  whenTyped(owner, () => {
    filters.owner = owner.value.trim();
    list.first();
  });
  for (const select of [domainSelect, state]) select.addEventListener('change', () => list.first());
  domains.onChange(showDomains);
  showDomains();

  function showDomains() {
    domains.fill(domainSelect, t('admin.links.allDomains'));
    domainField.hidden = !domains.several;
  }

  /** `/api/admin/links/{code}{suffix}` on the link's domain. */
  function pathOf(link, suffix = '') {
    const query =
      link.domain && !domains.isDefault(link.domain)
        ? `?domain=${encodeURIComponent(link.domain)}`
        : '';
    return `/api/admin/links/${encodeURIComponent(link.code)}${suffix}${query}`;
  }

  function hostOf(url) {
    try {
      return new URL(url).hostname || null;
    } catch {
      return null;
    }
  }

  function confirmDisable(link, opener) {
    list.quiet();
    const name = nameOf(link);
    dialog.ask({
      heading: t('admin.disableTitle', { name }),
      text: t('admin.links.disableText', { url: link.short_url }),
      confirm: t('admin.disable'),
      withReason: true,
      host: hostOf(link.original_url),
      opener,
      async run({ reason, blockHost }) {
        const body = {};
        if (reason) body.reason = reason;
        if (blockHost) body.block_host = true;
        const { body: changed } = await api.post(pathOf(link, '/disable'), body);
        list.update(changed ?? { ...link, disabled: true, disabled_reason: reason || null });
        list.say(
          blockHost
            ? t('admin.links.disabledBlocked', { name, host: hostOf(link.original_url) })
            : t('admin.links.disabled', { name }),
        );
      },
    });
  }

  async function enable(link) {
    list.quiet();
    const name = nameOf(link);
    try {
      const { body } = await api.post(pathOf(link, '/enable'), {});
      list.update(body ?? { ...link, disabled: false, disabled_reason: null });
      list.say(t('admin.links.enabled', { name }));
    } catch (e) {
      if (e.status !== 401) list.fail(e.message);
    }
  }

  function confirmDelete(link, opener) {
    list.quiet();
    const name = nameOf(link);
    dialog.ask({
      heading: t('admin.links.deleteTitle', { name }),
      text: t('admin.links.deleteText', { url: link.short_url }),
      confirm: t('admin.links.delete'),
      opener,
      async run() {
        await api.delete(pathOf(link));
        const [neighbour] = list.neighbours(keyOf(link));
        list.remove(keyOf(link));
        list.say(t('admin.links.deleted', { name }));
        return neighbour?.querySelector('.delete-button') ?? heading;
      },
    });
  }

  return {
    section,
    heading,
    enter: () => list.load(),
    leave() {},
    reset() {
      filters.q = '';
      filters.owner = '';
      search.value = '';
      owner.value = '';
      domainSelect.value = '';
      state.value = '';
      list.reset();
    },
  };
}
