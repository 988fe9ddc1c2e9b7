// Shortening from other pages and apps. The page's share target (the manifest's
// share_target: GET / with title, text and url, as Android's Share sends them, and the
// bookmarklet's `/?url=`) is read once at load and kept in sessionStorage until it has
// been shortened, so it survives a sign-in; the address bar loses the query at once.
// Also: the bookmarklet's href, the ShareX profile (.sxcu) of a key (or of open mode),
// and the service worker's registration (sw.js keeps the shell for offline starts).

import { byId } from './dom.js';
import { t } from './i18n.js';

const PENDING_KEY = 'kurz.shared';
const SHARE_PARAMS = ['title', 'text', 'url'];
const WEB_ADDRESS = /https?:\/\/[^\s<>"]+/i;

/** Reads a shared link from the address (then drops it from the address bar). */
export function readSharedLink() {
  const params = new URLSearchParams(location.search);
  if (!SHARE_PARAMS.some((name) => params.has(name))) return;
  const shared = sharedAddress(params);
  if (shared !== undefined) store('setItem', shared);
  for (const name of SHARE_PARAMS) params.delete(name);
  const query = params.size > 0 ? `?${params}` : '';
  history.replaceState(history.state, '', `${location.pathname}${query}${location.hash}`);
}

/** `url`, else the first web address in `text` (Android apps often share "Look https://…"). */
export function sharedAddress(params) {
  const url = params.get('url')?.trim();
  if (url) return url;
  const found = (params.get('text') ?? '').match(WEB_ADDRESS)?.[0];
  // A sentence's full stop or closing bracket is not part of the address.
  return found?.replace(/[.,;:!?)\]]+$/, '');
}

export const pendingShare = {
  get: () => store('getItem'),
  clear: () => store('removeItem'),
};

function store(method, value) {
  try {
    return sessionStorage[method](PENDING_KEY, value);
  } catch {
    return null; // no storage: the link is shortened only when no sign-in is needed
  }
}

/**
 * The bookmarklet: it opens kurz (whose page has the session) in a small window at
 * `/?url=…`, so the visited page's own CSP, which may forbid requests to other sites,
 * does not matter. `noopener`: the visited page gets no handle on kurz's window.
 */
export function bookmarkletCode(baseUrl) {
  const target = JSON.stringify(`${baseUrl}/?url=`);
  return `(()=>{window.open(${target}+encodeURIComponent(location.href),'_blank','popup,width=520,height=640,noopener')})()`;
}

/** A ShareX custom uploader (URL shortener) that posts to kurz's API; no key in open mode. */
export function sharexProfile(baseUrl, key) {
  const profile = {
    Version: '15.0.0',
    Name: `kurz (${new URL(baseUrl).host})`,
    DestinationType: 'URLShortener',
    RequestMethod: 'POST',
    RequestURL: `${baseUrl}/api/shorten`,
    Body: 'JSON',
    Data: '{"url":"{input}"}',
    URL: `${baseUrl}/{json:short_code}`,
    ErrorMessage: '{json:error}',
  };
  if (key) profile.Headers = { Authorization: `Bearer ${key}` };
  return profile;
}

/** Saves the profile as kurz-{host}.sxcu through a blob: URL. */
export function downloadSharexProfile(baseUrl, key) {
  const text = `${JSON.stringify(sharexProfile(baseUrl, key), null, 2)}\n`;
  const href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = href;
  link.download = `kurz-${new URL(baseUrl).host.replace(/[^A-Za-z0-9.-]/g, '_')}.sxcu`;
  link.click();
  // The download has started from the blob by then; a minute is more than enough.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** The "Shorten from any page" section: the bookmarklet's href and open mode's ShareX button. */
export function createShareSection({ mode, baseUrl }) {
  for (const part of document.querySelectorAll('[data-share-mode]')) {
    part.hidden = part.dataset.shareMode !== mode;
  }
  const bookmarklet = byId('bookmarklet');
  bookmarklet.href = `javascript:${encodeURIComponent(bookmarkletCode(baseUrl))}`;
  // Clicked here, the page's CSP would refuse it anyway: it is meant for the bookmarks bar.
  bookmarklet.addEventListener('click', (event) => {
    event.preventDefault();
    byId('bookmarklet-status').textContent = t('share.bookmarklet.status');
  });
  byId('sharex-open').addEventListener('click', () => downloadSharexProfile(baseUrl));
}

/** The service worker: a failure (plain http away from localhost, say) changes nothing. */
export function registerServiceWorker() {
  navigator.serviceWorker?.register('/sw.js').catch(() => {});
}
