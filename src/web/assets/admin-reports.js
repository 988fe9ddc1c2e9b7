// The admin section's reports: the queue of waiting reports, newest first (GET
// /api/admin/reports; resolved ones, or all, on demand), each with the reported link's
// target, owner, state and clicks. A waiting report is resolved by disabling the link,
// disabling its owner (accounts mode; the link too) or dismissing it (POST
// /api/admin/reports/{id}/resolve), after a confirmation that takes a reason and may
// block the target's host.

import { createPagedList, forMode } from './admin-list.js';
import { byId, formatCount, formatDate, setText } from './dom.js';

const REASONS = {
  phishing: 'Phishing',
  malware: 'Malware',
  spam: 'Spam',
  illegal: 'Illegal content',
  other: 'Other',
};
const RESOLUTIONS = {
  disable_link: 'Link disabled',
  disable_user: 'Owner and link disabled',
  dismiss: 'Dismissed',
};
const EMPTY = {
  waiting: 'No reports waiting.',
  resolved: 'No resolved reports yet.',
  all: 'No reports yet.',
};

export function createAdminReports({ api, mode, dialog }) {
  const section = byId('admin-reports');
  const heading = byId('reports-title');
  const show = byId('reports-state');
  const template = byId('report-item');

  const list = createPagedList({
    prefix: 'reports',
    holder: 'reports-rows',
    loadingText: 'Loading reports…',
    emptyText: () => EMPTY[show.value] ?? EMPTY.all,
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
      const reason = REASONS[report.reason] ?? report.reason;
      setText(item.querySelector('.report-title'), `${nameOf(report)}: ${reason}`);
      setText(
        item.querySelector('.report-meta'),
        `Report ${report.id}, received ${formatDate(report.created_at)}`,
      );
      const details = item.querySelector('.report-details');
      setText(details, report.details ?? '');
      details.hidden = !report.details;
      const link = report.link;
      setText(item.querySelector('.report-target'), link?.original_url ?? '–');
      setText(item.querySelector('.report-owner'), link?.owner?.email ?? 'No owner');
      setText(item.querySelector('.report-link'), linkState(report));
      const resolved = report.resolved_at != null;
      item.querySelector('.report-resolution-fact').hidden = !resolved;
      if (resolved) {
        const what = RESOLUTIONS[report.resolution] ?? report.resolution ?? 'Resolved';
        setText(
          item.querySelector('.report-resolution'),
          `${what}, ${formatDate(report.resolved_at)}`,
        );
      }
      // Only a waiting report is resolved; a link that is gone can only be dismissed.
      const name = nameOf(report);
      const buttons = [
        ['.disable-link-button', `Disable link ${name}`, link !== null],
        [
          '.disable-user-button',
          `Disable user of ${name}`,
          mode === 'accounts' && link?.owner != null,
        ],
        ['.dismiss-button', `Dismiss report ${report.id} on ${name}`, true],
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
    if (link === null || link === undefined) return 'Deleted';
    const clicks = `${formatCount(link.clicks ?? 0)} ${link.clicks === 1 ? 'click' : 'clicks'}`;
    return `${link.disabled ? 'Disabled' : 'Working'}, ${clicks}`;
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
    const host = report.link ? hostOf(report.link.original_url) : null;
    const asks = {
      disable_link: {
        heading: `Disable ${name}?`,
        text: `The link will answer “Link disabled” (410) to everyone and count nothing, until an admin enables it again. The report is resolved.`,
        confirm: 'Disable link',
        withReason: true,
        host,
      },
      disable_user: {
        heading: `Disable the owner of ${name}?`,
        text: `${report.link?.owner?.email ?? 'The owner'} can no longer sign in, and their tokens and API keys stop working; the link is disabled too. The report is resolved.`,
        confirm: 'Disable user',
        withReason: true,
        host,
      },
      dismiss: {
        heading: `Dismiss report ${report.id}?`,
        text: `${name} stays as it is; the report is resolved as dismissed.`,
        confirm: 'Dismiss',
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
        list.say(`Resolved report ${report.id}: ${RESOLUTIONS[action].toLowerCase()}.`);
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
