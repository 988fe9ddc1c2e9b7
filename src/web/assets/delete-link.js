// The Delete dialog: names the short link, says what goes with it, and deletes it only
// when confirmed (DELETE /api/links/{code}?domain=…). Cancel is focused first, so a stray
// Enter deletes nothing.

import { openModal } from './dialog.js';
import { byId } from './dom.js';
import { t } from './i18n.js';

/**
 * onDeleted(link) is called after the server deleted it; focusAfter(link) names where
 * focus goes then (the opener's row is gone), asked before onDeleted.
 */
export function createDeleter({ api, adminToken, domains, onDeleted, focusAfter }) {
  const dialog = byId('delete-dialog');
  const form = byId('delete-form');
  const title = byId('delete-title');
  const what = byId('delete-what');
  const error = byId('delete-error');
  const cancel = form.querySelector('[data-close]');
  const admin = adminToken.field(byId('delete-admin'));
  let link = null;
  let after = null; // where focus goes once the row is gone
  let busy = false;

  function open(listed, opener) {
    link = listed;
    after = null;
    error.textContent = '';
    title.textContent = t('ui.delete.ask', { name: domains.nameOf(link) });
    what.textContent = t('ui.delete.what', { url: domains.shortUrlOf(link) });
    admin.prepare();
    openModal(dialog, {
      opener,
      focus: admin.missing() ?? cancel,
      fallback: () => after,
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy || link === null) return;
    error.textContent = '';
    const missing = admin.missing();
    if (missing !== null) {
      error.textContent = t('ui.adminToken.neededDelete');
      missing.focus();
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await api.delete(domains.pathOf(link), admin.options());
      admin.accepted();
      after = focusAfter(link);
      onDeleted(link);
      dialog.close();
    } catch (e) {
      // A 404 means it is gone already (another tab): the list forgets it all the same.
      if (e.status === 404) {
        admin.accepted();
        after = focusAfter(link);
        onDeleted(link);
        dialog.close();
        return;
      }
      // In accounts mode a 401 has ended the session (and closed this dialog).
      const message = admin.refused(e);
      if (dialog.open) error.textContent = message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  return {
    open,
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
