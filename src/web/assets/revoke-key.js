// The Revoke dialog of an API key: names the key, says that scripts using it stop
// working, and revokes it only when confirmed (DELETE /api/keys/{id}). Cancel is focused
// first, so a stray Enter revokes nothing. It opens over the API keys dialog.

import { openModal } from './dialog.js';
import { byId } from './dom.js';
import { t } from './i18n.js';

/**
 * onRevoked(key) is called after the server revoked it (or found it gone already);
 * focusAfter(key) names where focus goes then (the opener's row is gone), asked before.
 */
export function createRevoker({ api, onRevoked, focusAfter }) {
  const dialog = byId('revoke-dialog');
  const form = byId('revoke-form');
  const title = byId('revoke-title');
  const what = byId('revoke-what');
  const error = byId('revoke-error');
  const cancel = form.querySelector('[data-close]');
  let key = null;
  let after = null; // where focus goes once the row is gone
  let busy = false;

  function open(apiKey, opener) {
    key = apiKey;
    after = null;
    error.textContent = '';
    title.textContent = t('keys.revoke.title', { name: key.name });
    const prefix = document.createElement('code');
    prefix.textContent = `${key.prefix}…`;
    // The key's prefix sits where the message has {prefix}, in the language's word order.
    const [before, rest = ''] = t('keys.revoke.what').split('{prefix}');
    what.replaceChildren(before, prefix, rest);
    openModal(dialog, { opener, focus: cancel, fallback: () => after });
  }

  function revoked() {
    after = focusAfter(key);
    onRevoked(key);
    dialog.close();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy || key === null) return;
    error.textContent = '';
    busy = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await api.delete(`/api/keys/${encodeURIComponent(key.id)}`);
      revoked();
    } catch (e) {
      // A 404 means it is gone already (another tab): the list forgets it all the same.
      if (e.status === 404) revoked();
      // A 401 has ended the session (and closed this dialog).
      else if (dialog.open) error.textContent = e.message;
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
