// Fetching a target page's preview: what is read from its tags, and every way the fetch is
// bounded (addresses, redirects, deadline, bytes, types), against local servers. A public
// host is played by a fetch that carries the pinned connection to a local server.

import { describe, expect, onTestFinished, test } from 'bun:test';
import { join } from 'node:path';
import type { Server } from 'bun';
import {
  fetchPreview,
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_IMAGE_MAX,
  PREVIEW_TITLE_MAX,
  type PreviewFetchOptions,
} from '../../src/previews/fetch-preview.ts';
import type { Resolve, TargetPolicy } from '../../src/webhooks/targets.ts';
import { eventually } from '../support/binary.ts';
import { selfSignedCertificate } from '../support/proxies.ts';
import { closedPort } from '../support/webhook-receiver.ts';

/** Private targets allowed: the local servers are reached as they are, without DNS. */
const LOCAL: TargetPolicy = {
  allowPrivate: true,
  resolve: async () => {
    throw new Error('no lookup with private targets allowed');
  },
};

/** The address that stands for a public host in these tests. */
const PUBLIC = '93.184.215.14';

/** A resolver from a table, failing like getaddrinfo for other names. */
function resolver(table: Record<string, string[]>): Resolve {
  return async (host) => {
    const answer = table[host];
    if (answer === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    return answer;
  };
}

/** Only public targets, with `table` for DNS. */
const publicOnly = (table: Record<string, string[]>): TargetPolicy => ({
  allowPrivate: false,
  resolve: resolver(table),
});

interface Seen {
  path: string;
  headers: Headers;
}

/** A server on 127.0.0.1 that records each request, stopped when the test ends. */
function serve(
  answer: (request: Request, url: URL) => Response | Promise<Response>,
  tls?: { key: Bun.BunFile; cert: Bun.BunFile },
): Server<undefined> & { seen: Seen[] } {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    ...(tls === undefined ? {} : { tls }),
    fetch: (request) => {
      const url = new URL(request.url);
      seen.push({ path: url.pathname + url.search, headers: request.headers });
      return answer(request, url);
    },
  });
  onTestFinished(() => server.stop(true));
  return Object.assign(server, { seen });
}

const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });

const redirect = (location: string, status = 302) =>
  new Response(null, { status, headers: { location } });

/** The message the fetch failed with, or what it gave. */
async function outcome(url: string, options: PreviewFetchOptions): Promise<string | object> {
  return fetchPreview(url, options).then(
    (preview) => preview,
    (error: Error) => `${error.name}: ${error.message}`,
  );
}

interface Call {
  url: string;
  host: string | null;
  serverName: string | undefined;
}

/**
 * A fetch on which PUBLIC is `server`: what kurz sends to that address (Host, TLS name)
 * reaches it unchanged; other addresses are not reached at all.
 */
function internet(server: Server<undefined>, ca?: string): typeof fetch & { calls: Call[] } {
  const calls: Call[] = [];
  const reach = async (input: string | URL | Request, init?: BunFetchRequestInit) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    calls.push({ url: url.href, host: headers.get('host'), serverName: init?.tls?.serverName });
    if (url.hostname !== PUBLIC) {
      throw Object.assign(new Error('unreachable'), { code: 'EHOSTUNREACH' });
    }
    url.hostname = '127.0.0.1';
    url.port = String(server.port);
    return fetch(url, { ...init, tls: { ...init?.tls, ...(ca === undefined ? {} : { ca }) } });
  };
  return Object.assign(reach as typeof fetch, { calls });
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>The page's own   title</title>
  <meta name="description" content="Plain description">
  <meta name="twitter:title" content="Twitter title">
  <meta name="twitter:description" content="Twitter description">
  <meta name="twitter:image" content="https://cdn.example/twitter.png">
  <meta content="Open Graph &amp; more" property="og:title">
  <meta property='og:description' content='Tom &quot;the cat&quot; &#39;Jerry&#39; &#x1F431; &lt;3'>
  <META PROPERTY=og:image CONTENT=https://cdn.example/og.png>
</head>
<body><p>Hello</p></body>
</html>`;

describe('what a page gives', () => {
  test('Open Graph before Twitter before the title; entities decoded; the fetch says who it is', async () => {
    const server = serve(() => html(PAGE));
    const preview = await fetchPreview(`http://127.0.0.1:${server.port}/post?id=1`, {
      policy: LOCAL,
    });
    expect(preview).toEqual({
      title: 'Open Graph & more',
      description: `Tom "the cat" 'Jerry' 🐱 <3`,
      image: 'https://cdn.example/og.png',
    });
    expect(server.seen.map((seen) => seen.path)).toEqual(['/post?id=1']);
    const headers = server.seen[0]?.headers as Headers;
    expect(headers.get('user-agent')).toBe('kurz-preview/1 (+link preview fetcher)');
    expect(headers.get('accept')).toBe('text/html,application/xhtml+xml');
  });

  test('Twitter tags without Open Graph; then the title and description', async () => {
    const twitter = PAGE.replace(/ *<meta[^>]*og:[^>]*>\n/gi, '');
    const plain = twitter.replace(/ *<meta name="twitter:[^>]*>\n/g, '');
    const server = serve((_request, url) => html(url.pathname === '/twitter' ? twitter : plain));
    expect(
      await fetchPreview(`http://127.0.0.1:${server.port}/twitter`, { policy: LOCAL }),
    ).toEqual({
      title: 'Twitter title',
      description: 'Twitter description',
      image: 'https://cdn.example/twitter.png',
    });
    // Whitespace in the title is made one space.
    expect(await fetchPreview(`http://127.0.0.1:${server.port}/plain`, { policy: LOCAL })).toEqual({
      title: "The page's own title",
      description: 'Plain description',
      image: null,
    });
  });

  test('an image must be https: a relative one is resolved against the final page', async () => {
    const dir = await selfSignedCertificate('cards.test');
    const ca = await Bun.file(join(dir, 'fullchain.pem')).text();
    const server = serve(
      (_request, url) => {
        if (url.pathname === '/go') return redirect('/articles/7');
        return html(`<head><title>Article</title>
          <meta property="og:image" content="http://cdn.example/plain.png">
          <meta property="og:image:secure_url" content="../images/card.png?size=l&amp;v=2">`);
      },
      { key: Bun.file(join(dir, 'privkey.pem')), cert: Bun.file(join(dir, 'fullchain.pem')) },
    );
    const net = internet(server, ca);
    const preview = await fetchPreview(`https://cards.test:${server.port}/go`, {
      policy: publicOnly({ 'cards.test': [PUBLIC] }),
      fetch: net,
    });
    expect(preview).toEqual({
      title: 'Article',
      description: null,
      image: `https://cards.test:${server.port}/images/card.png?size=l&v=2`,
    });
    // Each hop went to the checked address, the name kept for Host and the certificate.
    expect(net.calls).toEqual(
      ['/go', '/articles/7'].map((path) => ({
        url: `https://${PUBLIC}:${server.port}${path}`,
        host: `cards.test:${server.port}`,
        serverName: 'cards.test',
      })),
    );
    expect(server.seen.map((seen) => seen.headers.get('host'))).toEqual([
      `cards.test:${server.port}`,
      `cards.test:${server.port}`,
    ]);
  });

  test('a page in ISO-8859-1 is decoded by its charset; an unknown charset is read as UTF-8', async () => {
    const server = serve((_request, url) => {
      if (url.pathname === '/latin1') {
        return new Response(Buffer.from('<title>Café crème à Noël</title>', 'latin1'), {
          headers: { 'content-type': 'text/html; charset="ISO-8859-1"' },
        });
      }
      return new Response('<title>Grüße 🎉</title>', {
        headers: { 'content-type': 'text/html; charset=x-unheard-of' },
      });
    });
    expect(
      (await fetchPreview(`http://127.0.0.1:${server.port}/latin1`, { policy: LOCAL })).title,
    ).toBe('Café crème à Noël');
    expect(
      (await fetchPreview(`http://127.0.0.1:${server.port}/other`, { policy: LOCAL })).title,
    ).toBe('Grüße 🎉');
  });

  test('what is kept is bounded: long text cut with an ellipsis, a long image URL dropped', async () => {
    const long = `${'word '.repeat(199)}😀😀`;
    const server = serve((_request, url) =>
      url.pathname === '/emoji'
        ? html(`<title>${'a'.repeat(PREVIEW_TITLE_MAX - 2)}😀😀</title>`)
        : html(`<title>${long}</title><meta name="description" content="${long.repeat(3)}">
        <meta property="og:image" content="https://cdn.example/${'i'.repeat(PREVIEW_IMAGE_MAX)}.png">
        <meta name="twitter:image" content="https://cdn.example/ok.png">`),
    );
    const preview = await fetchPreview(`http://127.0.0.1:${server.port}/`, { policy: LOCAL });
    expect(preview.title?.length).toBeLessThanOrEqual(PREVIEW_TITLE_MAX);
    expect(preview.title).toBe(`${'word '.repeat(39)}word…`);
    expect(preview.description?.length).toBeLessThanOrEqual(PREVIEW_DESCRIPTION_MAX);
    expect(preview.description?.endsWith('…')).toBe(true);
    expect(preview.image).toBe('https://cdn.example/ok.png');
    // An emoji is two UTF-16 units: the cut does not split one in halves.
    const emoji = await fetchPreview(`http://127.0.0.1:${server.port}/emoji`, { policy: LOCAL });
    expect(emoji.title).toBe(`${'a'.repeat(PREVIEW_TITLE_MAX - 2)}…`);
    expect([PREVIEW_TITLE_MAX, PREVIEW_DESCRIPTION_MAX, PREVIEW_IMAGE_MAX]).toEqual([
      200, 500, 2048,
    ]);
  });

  test('XHTML is HTML too; a page with nothing to show is a failure', async () => {
    const server = serve((_request, url) =>
      url.pathname === '/xhtml'
        ? new Response(
            '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head></html>',
            {
              headers: { 'content-type': 'application/xhtml+xml' },
            },
          )
        : html(
            '<html><head><meta name="twitter:card" content="summary"></head><body>Hi</body></html>',
          ),
    );
    expect(await outcome(`http://127.0.0.1:${server.port}/xhtml`, { policy: LOCAL })).toEqual({
      title: 'X',
      description: null,
      image: null,
    });
    expect(await outcome(`http://127.0.0.1:${server.port}/bare`, { policy: LOCAL })).toBe(
      'PreviewFailed: no title, description or image found',
    );
  });
});

describe('how the fetch is bounded', () => {
  test('an answer other than 2xx, and one that is not HTML, give no preview', async () => {
    const server = serve((_request, url) => {
      if (url.pathname === '/missing') {
        return new Response('<title>Not found</title>', {
          status: 404,
          headers: { 'content-type': 'text/html' },
        });
      }
      if (url.pathname === '/pdf') {
        return new Response('%PDF-1.7', { headers: { 'content-type': 'application/pdf' } });
      }
      if (url.pathname === '/not-modified') return new Response(null, { status: 304 });
      // A streamed body is sent without a Content-Type of Bun's choosing.
      const typeless = new TextEncoder().encode('<title>typeless</title>');
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(typeless);
            controller.close();
          },
        }),
      );
    });
    const at = (path: string) =>
      outcome(`http://127.0.0.1:${server.port}${path}`, { policy: LOCAL });
    expect(await at('/missing')).toBe('PreviewFailed: the target answered 404');
    expect(await at('/pdf')).toBe('PreviewFailed: the target is not HTML (application/pdf)');
    expect(await at('/not-modified')).toBe('PreviewFailed: the target answered 304');
    expect(await at('/typeless')).toBe('PreviewFailed: the target is not HTML (no content type)');
  });

  test('a body past maxBytes is cut: what arrived is read, the rest never is', async () => {
    // A head that never ends, streamed as long as anyone reads.
    const head = new TextEncoder().encode('<!doctype html><html><head><title>Endless</title>');
    const filler = new TextEncoder().encode(`<!-- ${'x'.repeat(16 * 1024 - 9)} -->`);
    let written = 0;
    let cancelled = false;
    const server = serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(head);
              written += head.length;
            },
            pull(controller) {
              controller.enqueue(filler);
              written += filler.length;
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { 'content-type': 'text/html' } },
        ),
    );
    const counted = countingFetch();
    const maxBytes = 2 * 1024 * 1024;
    const preview = await fetchPreview(`http://127.0.0.1:${server.port}/`, {
      policy: LOCAL,
      maxBytes,
      fetch: counted.fetch,
    });
    expect(preview.title).toBe('Endless');
    // Read until the budget was spent, and not a chunk more.
    expect(counted.read()).toBeGreaterThanOrEqual(maxBytes);
    expect(counted.read() - counted.last()).toBeLessThan(maxBytes);
    // The connection is dropped, and the server stops: what it wrote is what the
    // sockets' buffers took, not an endless stream.
    await eventually(() => cancelled, 'the server stopped writing');
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  test('reading stops where the head ends', async () => {
    // A head, then a body streamed as long as anyone reads.
    const head = new TextEncoder().encode('<html><head><title>Short</title></head><body>');
    const paragraphs = new TextEncoder().encode('<p>text</p>'.repeat(1000));
    let cancelled = false;
    const server = serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(head);
            },
            pull(controller) {
              controller.enqueue(paragraphs);
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { 'content-type': 'text/html' } },
        ),
    );
    const counted = countingFetch();
    const preview = await fetchPreview(`http://127.0.0.1:${server.port}/`, {
      policy: LOCAL,
      fetch: counted.fetch,
    });
    expect(preview.title).toBe('Short');
    // The chunk that held "</head>" was the last one read.
    expect(counted.read()).toBe(counted.last());
    await eventually(() => cancelled, 'the server stopped writing');
  });

  test("the head's end and the budget are found across chunks, and characters split by them", async () => {
    const bytes = new TextEncoder().encode('<head><title>Grüße</title></he');
    // "ü" is two bytes in UTF-8: the first chunk ends between them.
    const cut = bytes.indexOf(0xbc);
    let pulled = 0;
    const chunks = (parts: Uint8Array[]) => {
      const stub = async () =>
        new Response(
          new ReadableStream<Uint8Array>(
            {
              pull(controller) {
                const part = parts[pulled++];
                if (part === undefined) controller.enqueue(new Uint8Array(1000).fill(0x20));
                else controller.enqueue(part);
              },
            },
            { highWaterMark: 0 },
          ),
          { headers: { 'content-type': 'text/html; charset=utf-8' } },
        );
      return stub as unknown as typeof fetch;
    };
    const split = [bytes.subarray(0, cut), bytes.subarray(cut), new TextEncoder().encode('ad>')];
    const preview = await fetchPreview('http://127.0.0.1/', {
      policy: LOCAL,
      fetch: chunks(split),
    });
    expect(preview.title).toBe('Grüße');
    // "</he" + "ad>" ended the reading: nothing was asked for after them.
    expect(pulled).toBe(3);

    pulled = 0;
    const endless = [bytes.subarray(0, bytes.length - '</he'.length)];
    await fetchPreview('http://127.0.0.1/', {
      policy: LOCAL,
      maxBytes: 2500,
      fetch: chunks(endless),
    });
    // The title's chunk and three of 1,000 bytes, the last of them cut: 2,500 bytes in all.
    expect(pulled).toBe(4);
  });

  test('a server too slow is given up at the deadline, headers or body alike', async () => {
    const server = serve((_request, url) => {
      if (url.pathname === '/silent') return new Promise<Response>(() => {});
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('<html><head><title>Sl'));
          },
        }),
        { headers: { 'content-type': 'text/html' } },
      );
    });
    for (const path of ['/silent', '/stalled']) {
      const started = performance.now();
      expect(
        await outcome(`http://127.0.0.1:${server.port}${path}`, { policy: LOCAL, deadlineMs: 300 }),
      ).toBe('PreviewFailed: the target did not answer within 0.3 s');
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(3_000);
    }
    // A DNS lookup that never answers counts against the same deadline.
    const stuck: TargetPolicy = { allowPrivate: false, resolve: () => new Promise(() => {}) };
    expect(await outcome('https://stuck.test/', { policy: stuck, deadlineMs: 300 })).toBe(
      'PreviewFailed: the target did not answer within 0.3 s',
    );
  });

  test('redirects are followed, each Location read against the URL before it, and counted', async () => {
    // /hop/n redirects n more times, relatively, absolutely and with each status.
    const statuses = [301, 302, 303, 307, 308];
    const server = serve((_request, url) => {
      const left = Number(url.pathname.split('/')[2]);
      if (left === 0) return html('<title>Arrived</title>');
      const next = left % 2 === 0 ? `../hop/${left - 1}` : `${url.origin}/hop/${left - 1}`;
      return redirect(next, statuses[(left - 1) % statuses.length]);
    });
    const base = `http://127.0.0.1:${server.port}`;
    expect(await outcome(`${base}/hop/3`, { policy: LOCAL })).toEqual({
      title: 'Arrived',
      description: null,
      image: null,
    });
    expect(server.seen.map((seen) => seen.path)).toEqual(['/hop/3', '/hop/2', '/hop/1', '/hop/0']);
    server.seen.length = 0;
    expect(await outcome(`${base}/hop/4`, { policy: LOCAL })).toBe(
      'PreviewFailed: more than 3 redirects',
    );
    // The fourth Location was not followed.
    expect(server.seen.map((seen) => seen.path)).toEqual(['/hop/4', '/hop/3', '/hop/2', '/hop/1']);
    expect(await outcome(`${base}/hop/5`, { policy: LOCAL, maxRedirects: 5 })).toMatchObject({
      title: 'Arrived',
    });
    expect(await outcome(`${base}/hop/1`, { policy: LOCAL, maxRedirects: 0 })).toBe(
      'PreviewFailed: more than 0 redirects',
    );
  });

  test('a redirect nowhere, or to another scheme, gives no preview', async () => {
    const server = serve((_request, url) => {
      if (url.pathname === '/ftp') return redirect('ftp://files.example/a.html');
      if (url.pathname === '/bad') return redirect('http://[oops/');
      return new Response(null, { status: 302 });
    });
    const at = (path: string) =>
      outcome(`http://127.0.0.1:${server.port}${path}`, { policy: LOCAL });
    expect(await at('/ftp')).toBe('PreviewFailed: the target is not http or https (ftp:)');
    expect(await at('/bad')).toBe('PreviewFailed: the target redirected to no valid URL');
    expect(await at('/nowhere')).toBe('PreviewFailed: the target redirected to no valid URL');
  });
});

describe('where the fetch may go', () => {
  test('only http and https', async () => {
    for (const [url, scheme] of [
      ['ftp://files.example/page.html', 'ftp:'],
      ['file:///etc/passwd', 'file:'],
      ['data:text/html,<title>x</title>', 'data:'],
    ]) {
      expect(await outcome(url as string, { policy: LOCAL })).toBe(
        `PreviewFailed: the target is not http or https (${scheme})`,
      );
    }
    expect(await outcome('not a url', { policy: LOCAL })).toBe(
      'PreviewFailed: the target is not a valid URL',
    );
  });

  test('a private address is refused before any connection, named or literal', async () => {
    const server = serve(() => html('<title>Inside</title>'));
    const policy = publicOnly({
      'sneaky.test': [PUBLIC, '127.0.0.1'],
      'inside.test': ['10.0.0.5'],
    });
    for (const [host, address] of [
      ['sneaky.test', '127.0.0.1'],
      ['inside.test', '10.0.0.5'],
      ['127.0.0.1', '127.0.0.1'],
      ['[::1]', '::1'],
    ]) {
      expect(await outcome(`http://${host}:${server.port}/`, { policy })).toBe(
        `PreviewFailed: the target's address is private (${address})`,
      );
    }
    expect(await outcome(`http://gone.test:${server.port}/`, { policy })).toBe(
      "PreviewFailed: the target's host cannot be resolved (gone.test)",
    );
    expect(server.seen).toEqual([]);
  });

  test('a redirect to a private address is refused, and not followed', async () => {
    const server = serve((_request, url) =>
      redirect(url.pathname === '/to-name' ? 'http://inside.test/admin' : 'http://127.0.0.1:9/x'),
    );
    const net = internet(server);
    const policy = publicOnly({ 'cards.test': [PUBLIC], 'inside.test': ['10.0.0.5'] });
    expect(await outcome(`http://cards.test:${server.port}/to-name`, { policy, fetch: net })).toBe(
      "PreviewFailed: the target's address is private (10.0.0.5)",
    );
    expect(
      await outcome(`http://cards.test:${server.port}/to-address`, { policy, fetch: net }),
    ).toBe("PreviewFailed: the target's address is private (127.0.0.1)");
    expect(net.calls.map((call) => call.url)).toEqual([
      `http://${PUBLIC}:${server.port}/to-name`,
      `http://${PUBLIC}:${server.port}/to-address`,
    ]);
  });

  test('a target that cannot be reached says so by its error code', async () => {
    const port = await closedPort();
    expect(await outcome(`http://127.0.0.1:${port}/`, { policy: LOCAL })).toBe(
      'PreviewFailed: the target cannot be reached (ECONNREFUSED)',
    );
  });
});

/**
 * The real fetch, counting the bytes of the body its caller reads: one chunk is passed on
 * per read, none read ahead.
 */
function countingFetch(): { fetch: typeof fetch; read: () => number; last: () => number } {
  let read = 0;
  let last = 0;
  const counting = async (input: string | URL | Request, init?: BunFetchRequestInit) => {
    const response = await fetch(input, init);
    const reader = response.body?.getReader();
    if (reader === undefined) return response;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          read += value.length;
          last = value.length;
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: counting as typeof fetch, read: () => read, last: () => last };
}
