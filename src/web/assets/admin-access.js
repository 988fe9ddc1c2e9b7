// Who sees the admin section, and the way to it. The server decides: the person is an
// admin while GET /api/admin/overview answers 200 — with the session's token in accounts
// mode, with the admin token this tab keeps in open mode (the Admin button at the foot of
// the page asks for it; the Edit and Delete dialogs may have kept it already). Admins get the Sections
// navigation (the links, or the admin section at #admin…); the section's code
// (admin.js) loads only then. A 403 later (demoted) or a refused token hides it again.

import { openModal } from './dialog.js';
import { byId } from './dom.js';
import { t } from './i18n.js';

const VIEWS = ['figures', 'users', 'links', 'reports', 'blocklist'];

/** appView: the links' view, which the admin section takes the place of. */
export function createAdminAccess({ api, mode, adminToken, domains, session, appView }) {
  const nav = byId('sections');
  const linksTab = byId('section-links');
  const adminTab = byId('section-admin');
  const adminView = byId('admin-view');
  const entry = byId('admin-entry');
  const announce = byId('admin-status');
  let active = false; // the app is shown, not the login form
  let admin = false;
  let checking = 0;
  let panel; // admin.js's panel, once loaded
  let loading;

  /** The admin API as the panel calls it: the admin token in open mode, else the session's. */
  const adminApi = {};
  for (const method of ['get', 'post', 'patch', 'delete']) {
    adminApi[method] = async (path, json) => {
      const options = mode === 'open' ? { bearer: adminToken.value ?? '' } : {};
      try {
        return method === 'post' || method === 'patch'
          ? await api[method](path, json, options)
          : await api[method](path, options);
      } catch (e) {
        // Open mode: the token was refused (changed by the operator); forgetting it hides
        // the section. Either mode: 403 means this person is no longer an admin.
        if (mode === 'open' && e.status === 401) {
          adminToken.forget();
          announce.textContent = t('admin.access.tokenRefusedClosed');
        } else if (e.status === 403) {
          setAdmin(false);
          announce.textContent = t('admin.access.demoted');
        }
        throw e;
      }
    };
  }

  async function check() {
    const turn = ++checking;
    let ok = false;
    const token = adminToken.value;
    if (mode === 'accounts' || token !== null) {
      try {
        await api.get('/api/admin/overview', mode === 'open' ? { bearer: token } : {});
        ok = true;
      } catch (e) {
        // 403: not an admin; 401: the session is over (app.js shows the login form) or,
        // in open mode, the kept token is refused, so it is forgotten.
        if (mode === 'open' && e.status === 401) adminToken.forget();
      }
    }
    if (turn === checking && active) setAdmin(ok);
  }

  function setAdmin(value) {
    admin = value && active;
    nav.hidden = !admin;
    showEntry();
    if (!admin) panel?.stop();
    route();
  }

  function showEntry() {
    entry.hidden = !(active && mode === 'open' && adminToken.value === null);
  }

  function loadPanel() {
    loading ??= import('./admin.js').then(({ createAdminPanel }) => {
      panel = createAdminPanel({ api: adminApi, mode, domains, session });
      return panel;
    });
    return loading;
  }

  /** Which admin view the address asks for, or null for the links. */
  function viewOf(hash) {
    const match = /^#admin(?:\/([a-z]+))?$/.exec(hash);
    if (match === null) return null;
    const view = match[1] ?? 'figures';
    if (!VIEWS.includes(view) || (view === 'users' && mode === 'open')) return 'figures';
    return view;
  }

  /** Shows what the address asks for: the links, or one view of the admin section. */
  function route({ focus = false } = {}) {
    if (!active) return;
    const view = admin ? viewOf(location.hash) : null;
    appView.hidden = view !== null;
    adminView.hidden = view === null;
    if (view === null) linksTab.setAttribute('aria-current', 'page');
    else linksTab.removeAttribute('aria-current');
    if (view !== null) adminTab.setAttribute('aria-current', 'page');
    else adminTab.removeAttribute('aria-current');
    if (view === null) {
      panel?.hide();
      if (focus) byId('list-title').focus();
      return;
    }
    loadPanel().then(
      (loaded) => {
        // Still wanted once loaded (the address may have moved on meanwhile).
        if (active && admin && viewOf(location.hash) === view) loaded.show(view, { focus });
      },
      () => {
        announce.textContent = t('admin.access.loadFailed');
      },
    );
  }

  addEventListener('hashchange', () => route({ focus: true }));
  adminToken.onChange(() => {
    if (!active) return;
    showEntry();
    check();
  });

  // ---- Open mode: the Admin button at the foot of the page asks for the token.
  const dialog = byId('admin-token-dialog');
  const form = byId('admin-token-form');
  const input = byId('admin-token-value');
  const error = byId('admin-token-error');
  const opener = byId('admin-enter');
  let busy = false;

  opener.addEventListener('click', () => {
    form.reset();
    error.textContent = '';
    openModal(dialog, { opener, focus: input, fallback: () => byId('admin-title') });
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault(); // the CSP forbids form submission; we send JSON instead
    if (busy) return;
    const token = input.value.trim();
    if (token === '') {
      error.textContent = t('admin.token.empty');
      input.focus();
      return;
    }
    busy = true;
    form.setAttribute('aria-busy', 'true');
    error.textContent = '';
    try {
      await api.get('/api/admin/overview', { bearer: token });
      if (location.hash !== '#admin') history.pushState(null, '', '#admin');
      adminToken.keep(token); // checks again, quietly
      setAdmin(true);
      dialog.close();
    } catch (e) {
      error.textContent = e.status === 401 ? t('admin.access.tokenRefused') : e.message;
      input.select();
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  });

  return {
    /** The app is shown: find out whether this person is an admin. */
    start() {
      active = true;
      showEntry();
      route();
      check();
    },
    /** Logged out: the section goes, and everything it showed. */
    stop() {
      active = false;
      admin = false;
      checking++;
      nav.hidden = true;
      adminView.hidden = true;
      entry.hidden = true;
      panel?.stop();
      if (dialog.open) dialog.close();
    },
  };
}
