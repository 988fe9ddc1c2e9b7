// Open mode's admin token. With no accounts, changing or deleting a link needs the
// token the operator started kurz with (--admin-token), sent as a bearer token on those
// calls only. It is asked for inside the Edit and Delete dialogs when this tab has none,
// kept in sessionStorage once the server has taken it (this tab only, gone when it
// closes), and forgotten when the server answers 401, or by the header's button. The
// Admin button at the foot of the page (admin-access.js) asks for it too, for the admin
// section.
// In accounts mode nothing here applies: the session's own token is sent.

import { byId } from './dom.js';
import { t } from './i18n.js';

const KEY = 'kurz.adminToken';

export function createAdminToken({ mode }) {
  const memory = { value: null }; // when sessionStorage is unavailable
  const bar = byId('admin-session');
  const status = byId('admin-status');
  const needed = mode === 'open';
  const listeners = [];

  const read = () => {
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return memory.value;
    }
  };
  const write = (value) => {
    try {
      if (value === null) sessionStorage.removeItem(KEY);
      else sessionStorage.setItem(KEY, value);
    } catch {
      memory.value = value;
    }
    bar.hidden = !needed || value === null;
    for (const listener of listeners) listener(value);
  };

  byId('admin-forget').addEventListener('click', () => {
    write(null);
    status.textContent = t('ui.adminToken.forgotten');
    byId('url').focus(); // the button just vanished
  });
  bar.hidden = !needed || read() === null;

  return {
    /**
     * The controller of a dialog's admin token field (a .field holding an input):
     * prepare() before each opening, options() for the API call, accepted() after a
     * success, refused(error) for the message of a failure.
     */
    field(field) {
      const input = field.querySelector('input');
      return {
        /** Shows the field when this tab has no token yet. */
        prepare() {
          input.value = '';
          field.hidden = !needed || read() !== null;
        },
        /** The field when it shows and is empty, for the dialog to point at; else null. */
        missing() {
          return !field.hidden && input.value.trim() === '' ? input : null;
        },
        /** Options for api calls: the admin token in open mode, nothing in accounts mode. */
        options() {
          if (!needed) return {};
          return { bearer: field.hidden ? (read() ?? '') : input.value.trim() };
        },
        /** The server took the token: keep it for this tab. */
        accepted() {
          if (needed && !field.hidden) write(input.value.trim());
        },
        /**
         * The message to show for a failed call; on 401 (open mode) the token is forgotten
         * and the field shown again, focused.
         */
        refused(error) {
          if (!needed || error.status !== 401) return error.message;
          write(null);
          field.hidden = false;
          input.value = '';
          input.focus();
          return t('ui.adminToken.refused');
        },
      };
    },
    /** The token this tab keeps, or null. */
    get value() {
      return needed ? read() : null;
    },
    /** Keeps `value`, which the server has just taken (open mode). */
    keep(value) {
      if (needed) write(value);
    },
    /** Forgets the token (the server refused it). */
    forget() {
      if (needed && read() !== null) write(null);
    },
    /** Calls `listener(token or null)` whenever the kept token changes. */
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
