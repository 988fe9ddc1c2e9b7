// The admin section, loaded once admin-access.js has found an admin: one view at a time,
// chosen by the address (#admin, #admin/users, #admin/links, #admin/reports,
// #admin/blocklist) through the section's navigation. The views are their own modules:
// admin-figures.js, admin-users.js (accounts mode), admin-links.js, admin-reports.js and
// admin-blocklist.js; they share admin-list.js (paged lists) and admin-dialog.js (the
// confirmations). Each view reads afresh whenever it is shown.

import { createAdminBlocklist } from './admin-blocklist.js';
import { createAdminDialog } from './admin-dialog.js';
import { createAdminFigures } from './admin-figures.js';
import { createAdminLinks } from './admin-links.js';
import { forMode } from './admin-list.js';
import { createAdminReports } from './admin-reports.js';
import { createAdminUsers } from './admin-users.js';
import { byId } from './dom.js';

/** api: the admin API's calls (admin-access.js); session.email names the admin. */
export function createAdminPanel({ api, mode, domains, session }) {
  const root = byId('admin-view');
  forMode(root, mode);
  const dialog = createAdminDialog();
  const context = { api, mode, domains, dialog, session };
  const views = {
    figures: createAdminFigures(context),
    links: createAdminLinks(context),
    reports: createAdminReports(context),
    blocklist: createAdminBlocklist(context),
  };
  if (mode === 'accounts') views.users = createAdminUsers(context);
  const tabs = [...root.querySelectorAll('.admin-tabs a')];
  let current = null;

  return {
    /** Shows `name`'s view (and reads it); focus goes to its heading after a navigation. */
    show(name, { focus = false } = {}) {
      const view = views[name] ?? views.figures;
      if (current !== view) {
        current?.leave();
        current = view;
      }
      for (const each of Object.values(views)) each.section.hidden = each !== view;
      for (const tab of tabs) {
        if (views[tab.dataset.view] === view) tab.setAttribute('aria-current', 'page');
        else tab.removeAttribute('aria-current');
      }
      view.enter();
      if (focus) view.heading.focus();
    },
    /** The links are shown instead. */
    hide() {
      current?.leave();
      current = null;
      dialog.close();
    },
    /** Logged out, or no longer an admin: nothing of the section stays in the page. */
    stop() {
      dialog.close();
      current = null;
      for (const view of Object.values(views)) view.reset();
    },
  };
}
