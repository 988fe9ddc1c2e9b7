// The Edit dialog: a link's target, tags, expiry, click limit and password, and its redirect
// rules, A/B split and preview card (rules-editor.js, variants-editor.js, preview-editor.js,
// loaded with the first Edit). It opens with the link's current settings
// (GET /api/links/{code}?domain=…) and sends only what was changed (PATCH), so saving a new
// target never touches a password it cannot show. The server's message for a refused value
// is shown in the dialog, word for word.

import { openModal } from './dialog.js';
import { byId, toLocalInput, zoneHint } from './dom.js';
import { t } from './i18n.js';
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
  let sections = null; // the editors of rules, the split and the card, once loaded
  let loading = null; // their loading, while it is under way or done
  let shownExpiry = ''; // the datetime-local value it opened with
  let busy = false;

  zone.textContent = zoneHint();

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
      const [{ body }] = await Promise.all([api.get(domains.pathOf(listed)), loadSections()]);
      // Logged out, or the row gone, while it loaded: there is nothing left to edit from.
      if (opener.isConnected && opener.offsetParent !== null) show(body, opener);
    } catch (e) {
      const name = domains.nameOf(listed);
      if (e.status !== 401) onError(t('ui.edit.openFailed', { name, message: e.message }));
    } finally {
      opener.removeAttribute('aria-busy');
    }
  }

  /**
   * The editors of rules, the A/B split and the preview card, with their style sheet:
   * fetched with the first Edit, while the link's details are, since most visits never
   * edit a link. editor-parts.js, which all three import, is asked for at once with them.
   */
  function loadSections() {
    loading ??= Promise.all([
      import('./rules-editor.js'),
      import('./variants-editor.js'),
      import('./preview-editor.js'),
      import('./editor-parts.js'),
      styleSheet('/assets/editors.css'),
    ]).then(
      ([rules, variants, preview]) => {
        sections = {
          rules: rules.createRulesEditor(),
          variants: variants.createVariantsEditor(),
          preview: preview.createPreviewEditor({ url }),
        };
        // Below the password, above the admin token and the buttons.
        byId('edit-admin').before(...Object.values(sections).map((section) => section.element));
        return sections;
      },
      () => {
        loading = null; // the next Edit tries again
        throw new Error(t('ui.edit.loadFailed'));
      },
    );
    return loading;
  }

  function show(detail, opener) {
    link = detail;
    form.reset();
    error.textContent = '';
    title.textContent = t('ui.row.editFor', { name: domains.nameOf(detail) });
    url.value = detail.original_url;
    tags.set(detail.tags ?? []);
    shownExpiry = detail.expires_at === null ? '' : toLocalInput(detail.expires_at);
    expires.value = shownExpiry;
    (detail.expires_at === null ? never : at).checked = true;
    maxClicks.value = detail.max_clicks === null ? '' : String(detail.max_clicks);
    passwordNow.textContent = detail.password_protected
      ? t('ui.edit.hasPassword')
      : t('ui.edit.noPassword');
    keep.checked = true;
    removeOption.hidden = !detail.password_protected;
    showChosen();
    sections.rules.set(detail.rules ?? []);
    sections.variants.set(detail.variants ?? []);
    sections.preview.set(detail, new URL(domains.shortUrlOf(detail)).host);
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
      error.textContent = t('ui.adminToken.neededEdit');
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
      if (dialog.open) {
        error.textContent = message;
        // A refused rule, variant or card names its place: open its section, at the field.
        const place = e.status === 400 && /^(rules|variants|preview)\b[^:]*/.exec(message);
        if (place) reveal(sections[place[1]].controlAt(place[0]));
      }
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
      return t('ui.edit.chooseExpiry');
    } else if (detail.expires_at === null || expires.value !== shownExpiry) {
      // A datetime-local value has no zone: the browser reads it in the person's own.
      const moment = new Date(expires.value);
      if (Number.isNaN(moment.getTime())) return t('ui.edit.badDate');
      changes.expires_at = moment.toISOString();
    }

    if (maxClicks.validity.badInput) return t('ui.shorten.maxClicksInvalid');
    const limit = maxClicks.value.trim() === '' ? null : Number(maxClicks.value);
    if (limit !== detail.max_clicks) changes.max_clicks = limit;

    if (setNew.checked) changes.password = password.value;
    else if (remove.checked && detail.password_protected) changes.password = null;

    // Each section says what it sends (nothing when unchanged), or why it cannot.
    for (const [key, section] of Object.entries(sections)) {
      const taken = section.take();
      if (taken.message !== undefined) {
        reveal(taken.control);
        return taken.message;
      }
      if (taken.change !== undefined) changes[key] = taken.change;
    }
    return changes;
  }

  /** Opens the section holding `control` and puts focus there. */
  function reveal(control) {
    const details = control.closest('details');
    if (details !== null) details.open = true;
    control.focus();
  }

  return {
    open,
    close() {
      if (dialog.open) dialog.close();
    },
  };
}

/** Adds one of the page's own style sheets; resolves once it applies. */
function styleSheet(href) {
  return new Promise((resolve, reject) => {
    const sheet = document.createElement('link');
    sheet.rel = 'stylesheet';
    sheet.href = href;
    sheet.addEventListener('load', resolve, { once: true });
    sheet.addEventListener('error', () => {
      sheet.remove();
      reject(new Error(`${href} could not be loaded`));
    });
    document.head.append(sheet);
  });
}
