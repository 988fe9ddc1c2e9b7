// The admin section's reports: the queue of waiting reports, newest first (GET
// /api/admin/reports; resolved ones, or all, on demand), each with the reported link's
// target, owner, state and clicks. A waiting report is resolved by disabling the link,
// disabling its owner (accounts mode; the link too) or dismissing it (POST
// /api/admin/reports/{id}/resolve), after a confirmation that takes a reason and may
// block the target's host.

import { createPagedList, forMode } from './admin-list.js';
import { byId, setText } from './dom.js';
import { formatDateTime, t } from './i18n.js';

// The reasons and resolutions the API names, and what each list says when empty.
const REASONS = {
  phishing: () => t('admin.reason.phishing'),
  malware: () => t('admin.reason.malware'),
  spam: () => t('admin.reason.spam'),
  illegal: () => t('admin.reason.illegal'),
  other: () => t('admin.reason.other'),
};
const RESOLUTIONS = {
  disable_link: () => t('admin.resolution.disable_link'),
  disable_user: () => t('admin.resolution.disable_user'),
  dismiss: () => t('admin.resolution.dismiss'),
};
/** The status line once a report is resolved by `action`. */
const RESOLVED_BY = {
  disable_link: (id) => t('admin.reports.resolvedBy.disable_link', { id }),
  disable_user: (id) => t('admin.reports.resolvedBy.disable_user', { id }),
  dismiss: (id) => t('admin.reports.resolvedBy.dismiss', { id }),
};
const EMPTY = {
  waiting: () => t('admin.reports.emptyWaiting'),
  resolved: () => t('admin.reports.emptyResolved'),
  all: () => t('admin.reports.emptyAll'),
};

export function createAdminReports({ api, mode, dialog }) {
  const section = byId('admin-reports');
  const heading = byId('reports-title');
  const show = byId('reports-state');
  const template = byId('report-item');

  const list = createPagedList({
    prefix: 'reports',
    holder: 'reports-rows',
    loadingText: t('admin.reports.loading'),
    emptyText: () => (EMPTY[show.value] ?? EMPTY.all)(),
    keyOf: (report) => report.id,
    fetchPage(offset, limit) {
      const query = new URLSearchParams({
        status: show.value,
        limit: String(limit),
        offset: String(offset),
      });
      return api.get(`/api/admin/reports?${query}`);
    },
    createRow(id) {
      const item = template.content.firstElementChild.cloneNode(true);
      forMode(item, mode);
      const titleId = `report-${id}-title`;
      item.querySelector('.report-title').id = titleId;
      item.querySelector('article').setAttribute('aria-labelledby', titleId);
      const report = () => list.item(id);
      for (const [selector, action] of [
        ['.disable-link-button', 'disable_link'],
        ['.disable-user-button', 'disable_user'],
        ['.dismiss-button', 'dismiss'],
      ]) {
        const button = item.querySelector(selector);
        button.addEventListener('click', () => confirmResolve(report(), action, button));
      }
      return item;
    },
    fillRow(item, report) {
      const reason = REASONS[report.reason]?.() ?? report.reason;
      setText(
        item.querySelector('.report-title'),
        t('admin.reports.heading', { name: nameOf(report), reason }),
      );
      setText(
        item.querySelector('.report-meta'),
        t('admin.reports.meta', { id: String(report.id), date: formatDateTime(report.created_at) }),
      );
      const details = item.querySelector('.report-details');
      setText(details, report.details ?? '');
      details.hidden = !report.details;
      const link = report.link;
      setText(item.querySelector('.report-target'), link?.original_url ?? '–');
      setText(item.querySelector('.report-owner'), link?.owner?.email ?? t('admin.noOwner'));
      setText(item.querySelector('.report-link'), linkState(report));
      const resolved = report.resolved_at != null;
      item.querySelector('.report-resolution-fact').hidden = !resolved;
      if (resolved) {
        const what =
          RESOLUTIONS[report.resolution]?.() ?? report.resolution ?? t('admin.resolution.none');
        setText(
          item.querySelector('.report-resolution'),
          t('admin.reports.resolvedAt', { what, date: formatDateTime(report.resolved_at) }),
        );
      }
      // Only a waiting report is resolved; a link that is gone can only be dismissed.
      const name = nameOf(report);
      // An id is a name, not an amount: as text, so no language groups its digits.
      const id = String(report.id);
      const buttons = [
        ['.disable-link-button', t('admin.reports.disableLinkLabel', { name }), link !== null],
        [
          '.disable-user-button',
          t('admin.reports.disableUserLabel', { name }),
          mode === 'accounts' && link?.owner != null,
        ],
        ['.dismiss-button', t('admin.reports.dismissLabel', { id, name }), true],
      ];
      for (const [selector, label, offered] of buttons) {
        const button = item.querySelector(selector);
        button.setAttribute('aria-label', label);
        button.hidden = resolved || !offered;
      }
      item.querySelector('.report-actions').hidden = resolved;
    },
  });

  show.addEventListener('change', () => list.first());
  byId('reports-search').addEventListener('submit', (event) => event.preventDefault());

  function nameOf(report) {
    return report.short_url ? report.short_url.replace(/^https?:\/\//, '') : report.code;
  }

  function linkState(report) {
    const link = report.link;
    if (link === null || link === undefined) return t('admin.reports.linkDeleted');
    const count = link.clicks ?? 0;
    return link.disabled
      ? t('admin.reports.linkDisabled', { count })
      : t('admin.reports.linkWorking', { count });
  }

  function hostOf(url) {
    try {
      return new URL(url).hostname || null;
    } catch {
      return null;
    }
  }

  function confirmResolve(report, action, opener) {
    list.quiet();
    const name = nameOf(report);
    const id = String(report.id);
    const host = report.link ? hostOf(report.link.original_url) : null;
    const email = report.link?.owner?.email;
    const asks = {
      disable_link: {
        heading: t('admin.disableTitle', { name }),
        text: t('admin.reports.disableLinkText'),
        confirm: t('admin.reports.disableLink'),
        withReason: true,
        host,
      },
      disable_user: {
        heading: t('admin.reports.disableUserTitle', { name }),
        text: email
          ? t('admin.reports.disableUserText', { email })
          : t('admin.reports.disableOwnerText'),
        confirm: t('admin.reports.disableUser'),
        withReason: true,
        host,
      },
      dismiss: {
        heading: t('admin.reports.dismissTitle', { id }),
        text: t('admin.reports.dismissText', { name }),
        confirm: t('admin.reports.dismiss'),
        danger: false,
      },
    };
    dialog.ask({
      ...asks[action],
      opener,
      async run({ reason, blockHost }) {
        const body = { action };
        if (reason) body.reason = reason;
        if (blockHost) body.block_host = true;
        const { body: resolved } = await api.post(`/api/admin/reports/${report.id}/resolve`, body);
        const [neighbour] = list.neighbours(report.id);
        if (show.value === 'waiting') list.remove(report.id);
        else list.update(resolved);
        list.say(RESOLVED_BY[action](id));
        const next = show.value === 'waiting' ? neighbour : null;
        return next?.querySelector('.report-actions .button:not([hidden])') ?? heading;
      },
    });
  }

  return {
    section,
    heading,
    enter: () => list.load(),
    leave() {},
    reset() {
      show.value = 'waiting';
      list.reset();
    },
  };
}
