// The admin section's one confirmation dialog: it names what is about to happen, shows
// only the fields the action takes (a reason, the host to block, what becomes of a user's
// links), and runs the action when confirmed, showing the server's error in place. With
// no field to fill, Cancel is focused first, so a stray Enter does nothing.

import { openModal } from './dialog.js';
import { byId } from './dom.js';
import { t } from './i18n.js';

export function createAdminDialog() {
  const dialog = byId('admin-dialog');
  const form = byId('admin-dialog-form');
  const title = byId('admin-dialog-title');
  const what = byId('admin-dialog-what');
  const linksField = byId('admin-dialog-links');
  const reasonField = byId('admin-dialog-reason-field');
  const reason = byId('admin-dialog-reason');
  const blockField = byId('admin-dialog-block-field');
  const block = byId('admin-dialog-block');
  const blockLabel = byId('admin-dialog-block-label');
  const error = byId('admin-dialog-error');
  const submit = byId('admin-dialog-submit');
  const cancel = form.querySelector('[data-close]');
  let action = null;
  let after = null;
  let busy = false;

  /**
   * Opens the dialog. run({links, reason, blockHost}) does the action and may return
   * where focus goes once the dialog closes (when the opener is gone); it throws the
   * API's error to show.
   */
  function ask({
    heading,
    text,
    confirm,
    danger = true,
    links = false,
    withReason = false,
    host = null,
    opener,
    run,
  }) {
    action = run;
    after = null;
    form.reset();
    error.textContent = '';
    title.textContent = heading;
    what.textContent = text;
    submit.textContent = confirm;
    submit.classList.toggle('danger', danger);
    linksField.hidden = !links;
    reasonField.hidden = !withReason;
    blockField.hidden = host === null;
    blockLabel.textContent = host === null ? '' : t('admin.dialog.blockHost', { host });
    openModal(dialog, {
      opener,
      focus: withReason ? reason : cancel,
      fallback: () => after,
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy || action === null) return;
    error.textContent = '';
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      after =
        (await action({
          links: form.querySelector('input[name="admin-links"]:checked')?.value ?? 'keep',
          reason: reason.value.trim(),
          blockHost: !blockField.hidden && block.checked,
        })) ?? null;
      action = null;
      dialog.close();
    } catch (e) {
      // In accounts mode a 401 has ended the session (and closed this dialog).
      if (dialog.open) error.textContent = e.message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  return {
    ask,
    close() {
      if (dialog.open) dialog.close();
    },
  };
}
