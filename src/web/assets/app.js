// kurz web UI, the entry point: reads the mode and base URL the server put in the page,
// keeps the session token (accounts mode) and switches between the login view and the
// main view. The views live in their own modules: auth.js (login and register),
// shorten.js (the form, copy and QR code; paste-many.js, utm.js, tag-input.js),
// links-list.js (the list, paging, poll; list-filters.js), and the dialogs of a listed
// link: edit-link.js (whose rules, A/B split and preview card, rules-editor.js,
// variants-editor.js and preview-editor.js, load with the first Edit), delete-link.js and
// stats-view.js (which shows a tag's stats too; open mode's admin token for the first two:
// admin-token.js). domains.js knows the short domains and what a link's domain decides:
// its short URL and its API path. In accounts mode the header also opens the person's API
// keys: api-keys.js (and revoke-key.js). Admins also get the admin section (admin-access.js
// finds out who is one and loads admin.js, which holds the section's views). share.js
// reads a link shared to the page (Android's Share, the bookmarklet), which is shortened
// once the person is signed in, and offers the bookmarklet and ShareX profiles.

import { createAdminAccess } from './admin-access.js';
import { createAdminToken } from './admin-token.js';
import { createApi } from './api.js';
import { createKeysView } from './api-keys.js';
import { createAuth } from './auth.js';
import { createDeleter } from './delete-link.js';
import { wireCloseButtons } from './dialog.js';
import { byId } from './dom.js';
import { createDomains } from './domains.js';
import { createEditor } from './edit-link.js';
import { t } from './i18n.js';
import { createLanguageChooser } from './language-chooser.js';
import { createLinksList } from './links-list.js';
import { session as stored } from './session.js';
import {
  createShareSection,
  pendingShare,
  readSharedLink,
  registerServiceWorker,
} from './share.js';
import { createShortener } from './shorten.js';
import { createStatsView } from './stats-view.js';

const mode = meta('kurz-mode') === 'open' ? 'open' : 'accounts';
const baseUrl = readBaseUrl();
readSharedLink();
registerServiceWorker();
createLanguageChooser(byId('language'));

// The token is kept in localStorage (session.js); open mode has none.
const session = {
  get token() {
    return mode === 'accounts' ? stored.token : null;
  },
  get email() {
    return stored.email;
  },
  save: (token, email) => stored.save(token, email),
  clear: () => stored.clear(),
};

const appView = byId('app-view');
const sessionBar = byId('session');
// The foot (the language chooser) shows with the first view, so that nothing visible moves.
const foot = byId('foot');

const api = createApi({
  token: () => session.token,
  onUnauthorized: () => endSession(t('ui.session.ended'), { focus: !appView.hidden }),
});
const domains = createDomains({ api, baseUrl });
const shortener = createShortener({
  api,
  domains,
  onCreated: () => list.refresh(),
});
const listStatus = byId('list-status');
const listError = byId('list-error');
const adminToken = createAdminToken({ mode });
const editor = createEditor({
  api,
  adminToken,
  domains,
  onSaved(detail) {
    list.update(detail);
    listStatus.textContent = t('ui.edit.saved', { name: domains.nameOf(detail) });
  },
  onUnchanged(name) {
    listStatus.textContent = t('ui.edit.unchanged', { name });
  },
  onError(message) {
    listError.textContent = message;
  },
});
const deleter = createDeleter({
  api,
  adminToken,
  domains,
  focusAfter(link) {
    // The same button of the next row (or the one before), else the list's heading.
    const [neighbour] = list.neighbours(link.id);
    return neighbour?.querySelector('.delete-button') ?? byId('list-title');
  },
  onDeleted(link) {
    list.remove(link.id);
    listStatus.textContent = t('ui.delete.done', { name: domains.nameOf(link) });
  },
});
const stats = createStatsView({ api, mode, domains });
const keys = createKeysView({ api, baseUrl });
createShareSection({ mode, baseUrl });
const list = createLinksList({
  api,
  domains,
  onShowQr(link) {
    shortener.show(link, t('ui.result.showing'));
    // The panel is above the list; take keyboard users there too.
    byId('copy').focus();
  },
  onStats: (link, button) => stats.open(link, button),
  onEdit(link, button) {
    listStatus.textContent = '';
    listError.textContent = '';
    editor.open(link, button);
  },
  onDelete(link, button) {
    listStatus.textContent = '';
    deleter.open(link, button);
  },
  onTagStats: (tag, button) => stats.openTag(tag, button),
});
const access = createAdminAccess({ api, mode, adminToken, domains, session, appView });
wireCloseButtons();
const auth = createAuth({
  api,
  registration: meta('kurz-registration') === 'closed' ? 'closed' : 'open',
  onLoggedIn(token, user) {
    session.save(token, user.email);
    showApp();
    // The login form vanished with focus in it: to the form, unless a shared link waits
    // there with the Shorten button focused (shortenShared offers it before it awaits).
    if (document.activeElement?.id !== 'shorten-submit') byId('url').focus();
  },
});

byId('list-title').textContent = t(mode === 'open' ? 'ui.list.all' : 'ui.list.yours');
byId('section-links').textContent = byId('list-title').textContent;
byId('logout').addEventListener('click', () =>
  endSession(t('ui.session.loggedOut'), { focus: true }),
);

if (mode === 'open') showApp();
else if (session.token && !expired(session.token)) showApp();
else endSession(session.token ? t('ui.session.ended') : '');

function showApp() {
  if (mode === 'accounts') {
    const email = byId('session-email');
    email.textContent = session.email;
    email.title = session.email; // cut with an ellipsis on narrow screens
    sessionBar.hidden = false;
  }
  appView.hidden = false;
  foot.hidden = false;
  domains.load();
  list.start();
  access.start(); // may show the admin section instead, when the address asks for it
  shortenShared();
}

/**
 * The link shared to the page, kept through a sign-in: forgotten once it was tried. Only
 * the installed app (Android's Share opens it) makes it at once: any other page can send
 * a browser to `/?url=…`, so there the link waits in the form for the person's press.
 */
async function shortenShared() {
  const target = pendingShare.get();
  if (!target) return;
  if (!installedApp()) {
    pendingShare.clear();
    shortener.offerShared(target, { waits: true });
    return;
  }
  const { unauthorized } = await shortener.shortenShared(target);
  if (!unauthorized) pendingShare.clear(); // a refused link shows its error in the form
}

/** Whether the page runs as the installed app, where Android's Share menu opens it. */
function installedApp() {
  return matchMedia('(display-mode: standalone)').matches;
}

/** Back to the login form, forgetting the token and everything shown. */
function endSession(notice, { focus = false } = {}) {
  session.clear();
  for (const dialog of [editor, deleter, stats, keys]) dialog.close();
  access.stop();
  listStatus.textContent = '';
  list.stop();
  domains.clear();
  shortener.reset();
  appView.hidden = true;
  sessionBar.hidden = true;
  const shared = pendingShare.get();
  auth
    .show(shared ? t('ui.session.loginToShorten', { url: shared }) : notice, { focus })
    .then(() => {
      foot.hidden = false;
    });
}

/** True when the token's `exp` has passed; unreadable tokens are left to the server. */
function expired(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const { exp } = JSON.parse(atob(payload));
    return typeof exp === 'number' && exp * 1000 <= Date.now();
  } catch {
    return false;
  }
}

function meta(name) {
  return document.querySelector(`meta[name="${name}"]`)?.content ?? '';
}

// The server fills the meta tag; the page's own origin stands in if it did not.
function readBaseUrl() {
  const value = meta('kurz-base-url');
  return (/^https?:\/\//.test(value) ? value : location.origin).replace(/\/+$/, '');
}
