// The runtime's ceiling for a redirect: a bare Bun.serve answering a constant 307 from a
// Map, with no database, no framework and no click. kurz is measured against it.
// Usage: bun bench/ceiling.ts PORT [CERT KEY]   (with CERT and KEY: over HTTPS)

const port = Number(process.argv[2] ?? 0);
const [certFile, keyFile] = process.argv.slice(3);
const tls =
  certFile === undefined || keyFile === undefined
    ? undefined
    : { cert: Bun.file(certFile), key: Bun.file(keyFile) };
const targets = new Map([['bench', 'https://example.com/bench']]);
const notFound = JSON.stringify({ error: 'Not found' });

const server = Bun.serve({
  port,
  hostname: '127.0.0.1',
  tls,
  fetch(request) {
    const url = request.url;
    const location = targets.get(url.slice(url.indexOf('/', 8) + 1));
    if (location === undefined) return new Response(notFound, { status: 404 });
    return new Response(null, {
      status: 307,
      headers: { location, 'cache-control': 'private, no-store' },
    });
  },
});
console.log(`ceiling listening on ${tls ? 'https' : 'http'}://127.0.0.1:${server.port}`);
