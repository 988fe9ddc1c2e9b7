// The Edit dialog: a link's target, tags, expiry, click limit and password. It opens with
// the link's current settings (GET /api/links/{code}?domain=…) and sends only what was
// changed (PATCH), so saving a new target never touches a password it cannot show. The
// server's message for a refused value is shown in the dialog, word for word.

import { openModal } from './dialog.js';
import { byId } from './dom.js';
import { createTagInput, sameTags } from './tag-input.js';

/** onSaved(detail) gets the changed link; onError(message) a failure before the dialog opens. */
export function createEditor({ api, adminToken, domains, onSaved, onUnchanged, onError }) {
  const dialog = byId('edit-dialog');
  const form = byId('edit-form');
  const title = byId('edit-title');
  const url = byId('edit-url');
  const never = byId('edit-expiry-never');
  const at = byId('edit-expiry-at');
  const expires = byId('edit-expires');
  const zone = byId('edit-expires-zone');
  const maxClicks = byId('edit-max-clicks');
  const passwordNow = byId('edit-password-now');
  const keep = byId('edit-password-keep');
  const setNew = byId('edit-password-set');
  const remove = byId('edit-password-remove');
  const removeOption = byId('edit-password-remove-option');
  const password = byId('edit-password');
  const error = byId('edit-error');
  const admin = adminToken.field(byId('edit-admin'));
  const tags = createTagInput({
    input: byId('edit-tags'),
    chips: byId('edit-tags-chips'),
    error: byId('edit-tags-error'),
    status: byId('edit-tags-status'),
  });
  let link = null; // the detail the dialog opened with
  let shownExpiry = ''; // the datetime-local value it opened with
  let busy = false;

  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  zone.textContent = timeZone ? `In your time zone (${timeZone}).` : 'In your time zone.';

  const expiresField = byId('edit-expires-field');
  const passwordField = byId('edit-password-field');

  // The time and the new password show only with the option they belong to.
  function showChosen() {
    expiresField.hidden = !at.checked;
    passwordField.hidden = !setNew.checked;
  }
  form.addEventListener('change', (event) => {
    if (event.target.type === 'radio') showChosen();
  });

  async function open(listed, opener) {
    opener.setAttribute('aria-busy', 'true');
    try {
      const { body } = await api.get(domains.pathOf(listed));
      // Logged out, or the row gone, while it loaded: there is nothing left to edit from.
      if (opener.isConnected && opener.offsetParent !== null) show(body, opener);
    } catch (e) {
      const name = domains.nameOf(listed);
      if (e.status !== 401) onError(`${name} could not be opened for editing: ${e.message}`);
    } finally {
      opener.removeAttribute('aria-busy');
    }
  }

  function show(detail, opener) {
    link = detail;
    form.reset();
    error.textContent = '';
    title.textContent = `Edit ${domains.nameOf(detail)}`;
    url.value = detail.original_url;
    tags.set(detail.tags ?? []);
    shownExpiry = detail.expires_at === null ? '' : toLocalInput(detail.expires_at);
    expires.value = shownExpiry;
    (detail.expires_at === null ? never : at).checked = true;
    maxClicks.value = detail.max_clicks === null ? '' : String(detail.max_clicks);
    passwordNow.textContent = detail.password_protected
      ? 'This link has a password.'
      : 'This link has no password.';
    keep.checked = true;
    removeOption.hidden = !detail.password_protected;
    showChosen();
    admin.prepare();
    openModal(dialog, { opener, focus: url });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy || link === null) return;
    error.textContent = '';
    const changes = changesOf(link);
    if (typeof changes === 'string') {
      error.textContent = changes;
      return;
    }
    if (Object.keys(changes).length === 0) {
      dialog.close();
      onUnchanged(domains.nameOf(link));
      return;
    }
    const missing = admin.missing();
    if (missing !== null) {
      error.textContent = 'Enter the admin token to change links.';
      missing.focus();
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      const { body } = await api.patch(domains.pathOf(link), changes, admin.options());
      admin.accepted();
      dialog.close();
      onSaved(body);
    } catch (e) {
      // In accounts mode a 401 has ended the session (and closed this dialog).
      const message = admin.refused(e);
      if (dialog.open) error.textContent = message;
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  /** The fields that differ from `detail`, as the PATCH body; or a message for the person. */
  function changesOf(detail) {
    const changes = {};
    const target = url.value.trim();
    if (target !== detail.original_url) changes.url = target;

    const chosenTags = tags.take(); // a tag still being typed counts
    if (chosenTags === null) return ''; // the reason is shown beside the field
    // The whole set replaces the old one; null clears it.
    if (!sameTags(chosenTags, detail.tags ?? [])) {
      changes.tags = chosenTags.length > 0 ? chosenTags : null;
    }

    if (never.checked) {
      if (detail.expires_at !== null) changes.expires_at = null;
    } else if (expires.value === '') {
      return 'Choose the date and time it expires, or Never.';
    } else if (detail.expires_at === null || expires.value !== shownExpiry) {
      // A datetime-local value has no zone: the browser reads it in the person's own.
      const moment = new Date(expires.value);
      if (Number.isNaN(moment.getTime())) return 'That date and time is not valid.';
      changes.expires_at = moment.toISOString();
    }

    if (maxClicks.validity.badInput) return 'Max clicks must be a whole number, or empty.';
    const limit = maxClicks.value.trim() === '' ? null : Number(maxClicks.value);
    if (limit !== detail.max_clicks) changes.max_clicks = limit;

    if (setNew.checked) changes.password = password.value;
    else if (remove.checked && detail.password_protected) changes.password = null;
    return changes;
  }

  return {
    open,
    close() {
      if (dialog.open) dialog.close();
    },
  };
}

/** An ISO instant as a datetime-local value in the viewer's time zone. */
function toLocalInput(iso) {
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const seconds = date.getSeconds() === 0 ? '' : `:${pad(date.getSeconds())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}
