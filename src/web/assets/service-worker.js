// kurz's service worker (served at /sw.js): keeps the shell, the page and its assets, so
// the installed app starts without a network, and nothing else. Short links (/{code}),
// the API and every other path are never intercepted, so redirects count their clicks and
// answers are always the server's. The server fills in the cache's name (this build's)
// and the list of files; a new kurz brings a new name, and the old cache is dropped.

const CACHE = '%KURZ_SHELL_CACHE%';
const SHELL = ['%KURZ_SHELL_FILES%'];
const PREFIX = 'kurz-shell-';

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith(PREFIX) && name !== CACHE)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  if (url.pathname !== '/' && !url.pathname.startsWith('/assets/')) return;
  // The network first, so an online page is exactly the server's; the kept copy only
  // when there is no network. The page's query (a shared link) does not change the page.
  // The page is in the person's language, which they may change: each page the network
  // gives replaces the kept one, so an offline start shows the language last chosen.
  const page = url.pathname === '/';
  event.respondWith(
    fetch(request).then(
      (response) => {
        if (page && response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put('/', copy)));
        }
        return response;
      },
      async () => {
        const kept = await caches.match(page ? '/' : request, { cacheName: CACHE });
        return kept ?? Response.error();
      },
    ),
  );
});
