// GET /api/metrics: Prometheus metrics behind the operator's metrics token (404 without
// one configured, 401 without the token), in the text exposition format; what they count
// (requests by route template, redirects by outcome, click batches, the link cache,
// database errors, links and users, memory and event-loop lag), in both modes and on
// both stores. The executable's own (the natively served redirect) are in
// observability.test.ts.

import { describe, expect, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS } from '../../src/config/config.ts';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import type { StoreTotals } from '../../src/store/store.ts';
import { VERSION } from '../../src/version.ts';
import { eventually } from '../support/binary.ts';
import { withFaults } from '../support/faulty-store.ts';
import { type AppOptions, TestApp } from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];
const TOKEN = 'test-metrics-token-test-metrics-token-42';
const FORM = 'application/x-www-form-urlencoded';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (format 0.0.4), and the TYPE of each metric. */
function parseExposition(text: string) {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

class Scrape {
  constructor(
    readonly samples: Sample[],
    readonly types: Map<string, string>,
  ) {}

  /** The sum of the samples of `name` whose labels include `labels`. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((sum, s) => sum + s.value, 0);
  }

  matching(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }

  has(name: string): boolean {
    return this.samples.some((s) => s.name === name);
  }
}

/** Lets the hooks that run once an answer is made (Elysia runs them on the next turn) finish. */
const answered = () => new Promise((resolve) => setImmediate(resolve));

async function scrape(app: TestApp): Promise<Scrape> {
  await answered();
  const reply = await app.get('/api/metrics', { token: TOKEN });
  expect(reply.status).toBe(200);
  const { samples, types } = parseExposition(reply.text);
  return new Scrape(samples, types);
}

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { metricsToken: TOKEN, ...options });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client };
}

describe.each(MODES)('GET /api/metrics (%s mode)', (mode) => {
  test('without --metrics-token the path is 404 "Not found", as any unknown path', async () => {
    const app = await TestApp.init(mode);
    for (const token of [undefined, TOKEN]) {
      const reply = await app.get('/api/metrics', { token });
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ error: 'Not found' });
      expect(reply.text).toBe((await app.get('/api/nothing', { token })).text);
    }
  });

  test('a missing or wrong token is 401 Unauthorized; the right one gets the text format', async () => {
    const { app } = await setup(mode);
    const refused = [
      await app.get('/api/metrics'),
      await app.get('/api/metrics', { token: `${TOKEN.slice(0, -1)}x` }),
      await app.get('/api/metrics', { token: TOKEN.slice(0, -1) }),
      await app.get('/api/metrics', { token: `${TOKEN}x` }),
      await app.get('/api/metrics', { headers: { authorization: `Basic ${TOKEN}` } }),
      await app.get('/api/metrics', { headers: { authorization: TOKEN } }),
    ];
    for (const reply of refused) {
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({ error: 'Unauthorized' });
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    const reply = await app.get('/api/metrics', { token: TOKEN });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const { samples, types } = parseExposition(reply.text);
    expect(samples.length).toBeGreaterThan(0);
    expect(reply.text).toContain('# HELP kurz_redirects_total ');
    // kurz's own metrics follow Prometheus naming: a prefix, units in the name, _total counters.
    for (const [name, type] of types) {
      if (!name.startsWith('kurz_')) continue;
      expect(name).toMatch(/^kurz_[a-z_]+$/);
      if (type === 'counter') expect(name).toEndWith('_total');
    }
    expect(types.get('kurz_redirects_total')).toBe('counter');
    expect(types.get('kurz_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('kurz_click_batch_size')).toBe('histogram');
    expect(types.get('kurz_click_commit_duration_seconds')).toBe('histogram');
    expect(types.get('kurz_click_writes_pending')).toBe('gauge');
    expect(types.get('kurz_links')).toBe('gauge');
  });

  test('API and web requests are counted by route template, method and status, with their latency', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/');
    const code = link.short_code as string;
    expect((await app.get(`/api/links/${code}`, { token: client.token })).status).toBe(200);
    expect((await app.get('/api/links/nothing-here', { token: client.token })).status).toBe(404);
    expect((await app.get('/api/nothing')).status).toBe(404);
    expect((await app.get('/a/b/c')).status).toBe(404);
    expect((await app.request('PROPFIND', '/api/links')).status).toBe(404);
    expect((await app.get('/')).status).toBe(200);
    expect((await app.get(`/${code}`)).status).toBe(307);

    const metrics = await scrape(app);
    const requests = (labels: Record<string, string>) =>
      metrics.value('kurz_http_requests_total', labels);
    expect(requests({ route: '/api/shorten', method: 'POST', status: '201' })).toBe(1);
    expect(requests({ route: '/api/links/:code', method: 'GET', status: '200' })).toBe(1);
    expect(requests({ route: '/api/links/:code', method: 'GET', status: '404' })).toBe(1);
    expect(requests({ route: '/', method: 'GET', status: '200' })).toBe(1);
    // Paths no route matched share one label, whatever they were; so do unusual methods.
    expect(requests({ route: 'unmatched', method: 'GET', status: '404' })).toBe(2);
    expect(requests({ route: 'unmatched', method: 'other', status: '404' })).toBe(1);
    expect(
      metrics.value('kurz_http_request_duration_seconds_count', {
        route: '/api/links/:code',
        method: 'GET',
      }),
    ).toBe(2);
    expect(
      metrics.value('kurz_http_request_duration_seconds_sum', { route: '/api/shorten' }),
    ).toBeGreaterThan(0);
    // Never a raw path as a label (unbounded); the redirect has its own counter.
    const routes = new Set(
      metrics.samples.filter((s) => s.name.startsWith('kurz_http_')).map((s) => s.labels.route),
    );
    for (const route of routes) {
      expect(route === 'unmatched' || route?.startsWith('/')).toBe(true);
      expect(route).not.toContain(code);
      expect(route).not.toContain('nothing');
    }
    expect(routes.has('/:code')).toBe(false);
    if (mode === 'accounts') {
      expect(requests({ route: '/api/auth/register', method: 'POST', status: '200' })).toBe(1);
    }
  });

  test('redirects are counted by short domain, and unknown codes sent elsewhere by a domain', async () => {
    const { app, client } = await setup(mode);
    await app.addDomain('https://go.example.com', { notFoundRedirect: 'https://www.example/' });
    await client.link('https://example.com/a', { custom_code: 'a' });
    await client.link('https://example.com/b', { custom_code: 'a', domain: 'go.example.com' });
    const visit = (path: string, host: string) => app.request('GET', path, { headers: { host } });
    const statuses = [
      (await visit('/a', 'kurz.test')).status,
      (await visit('/a', 'go.example.com')).status,
      (await visit('/a', 'go.example.com')).status,
      (await visit('/missing', 'go.example.com')).status,
    ];
    expect(statuses).toEqual([307, 307, 307, 302]);
    const metrics = await scrape(app);
    const byDomain = Object.fromEntries(
      metrics.matching('kurz_domain_redirects_total').map((s) => [s.labels.domain, s.value]),
    );
    expect(byDomain).toEqual({ 'kurz.test': 1, 'go.example.com': 2 });
    expect(metrics.value('kurz_redirects_total', { outcome: 'not_found_redirected' })).toBe(1);
  });

  test('redirects are counted by outcome, and their clicks by batch', async () => {
    const { app, client } = await setup(mode, {
      rateLimits: { ...DEFAULT_RATE_LIMITS, unknownCode: { count: 2, windowMs: 3_600_000 } },
    });
    await client.link('https://example.com/a', { custom_code: 'plain' });
    await client.link('https://example.com/b', {
      custom_code: 'ended',
      expires_at: '2000-01-01T00:00:00Z',
    });
    await client.link('https://example.com/c', { custom_code: 'once', max_clicks: 1 });
    await client.link('https://example.com/d', { custom_code: 'locked', password: 'open sesame' });
    const statuses = [];
    for (const path of ['/plain', '/plain', '/plain', '/once', '/once', '/ended']) {
      statuses.push((await app.get(path)).status);
    }
    statuses.push((await app.request('HEAD', '/plain')).status);
    for (const path of ['/unknown-1', '/unknown-2', '/unknown-3']) {
      statuses.push((await app.get(path)).status);
    }
    statuses.push((await app.get('/locked')).status);
    for (const password of ['wrong', 'open sesame']) {
      const reply = await app.request('POST', '/locked', {
        raw: new URLSearchParams({ password }).toString(),
        headers: { 'content-type': FORM },
      });
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([307, 307, 307, 307, 410, 410, 307, 404, 404, 429, 200, 401, 303]);

    const metrics = await scrape(app);
    const outcomes = Object.fromEntries(
      metrics.matching('kurz_redirects_total').map((s) => [s.labels.outcome, s.value]),
    );
    expect(outcomes).toEqual({
      redirected: 5,
      not_found: 2,
      not_found_redirected: 0,
      expired: 2,
      password_page: 1,
      preview_page: 0,
      unlocked: 1,
      password_wrong: 1,
      rate_limited: 1,
      failed: 0,
      disabled: 0,
      info_page: 0,
      interstitial: 0,
      aborted: 0,
    });
    // Clicks: three of plain, two of once (the second refused in its batch: max_clicks),
    // one unlocked; HEAD and the other refusals send none.
    expect(metrics.value('kurz_click_batch_size_sum')).toBe(6);
    const batches = metrics.value('kurz_click_batch_size_count');
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(metrics.value('kurz_click_batch_size_bucket', { le: '+Inf' })).toBe(batches);
    expect(metrics.value('kurz_click_commit_duration_seconds_count')).toBe(batches);
    expect(metrics.value('kurz_click_commit_duration_seconds_sum')).toBeGreaterThan(0);
    expect(metrics.value('kurz_click_writes_pending')).toBe(0);
    // Every lookup of a code is a hit or a miss: 13 requests reached the cache, and
    // the first of each of the four links asked the database.
    const hits = metrics.value('kurz_link_cache_lookups_total', { result: 'hit' });
    const misses = metrics.value('kurz_link_cache_lookups_total', { result: 'miss' });
    expect(hits + misses).toBe(13);
    expect(misses).toBeGreaterThanOrEqual(4);
    expect(hits).toBeGreaterThanOrEqual(1);
    expect(metrics.value('kurz_link_cache_entries')).toBe(4);
  });

  test('clicks waiting for their commit are shown while they wait', async () => {
    const base = await TestApp.init(mode);
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const store = withFaults(base.store, {
      recordClicks: (clicks) => gate.then(() => base.store.recordClicks(clicks)),
    });
    const { app, client } = await setup(mode, { store });
    await client.link('https://example.com/', { custom_code: 'waits' });
    const redirects = [app.get('/waits'), app.get('/waits')];
    // Once their link is read (from the database, the first time), both clicks wait.
    await eventually(
      async () => (await scrape(app)).value('kurz_click_writes_pending') === 2,
      'two clicks waiting',
    );
    open();
    expect((await Promise.all(redirects)).map((r) => r.status)).toEqual([307, 307]);
    expect((await scrape(app)).value('kurz_click_writes_pending')).toBe(0);
  });

  test('database failures are counted: requests answered 503, and failed batches', async () => {
    const base = await TestApp.init(mode);
    let failing = false;
    const unavailable = () => Promise.reject(new StoreUnavailableError({ cause: 'disk on fire' }));
    const store = withFaults(base.store, {
      recordClicks: unavailable,
      createLinks: (links) => (failing ? unavailable() : base.store.createLinks(links)),
      findLinkByCode: (code) => (failing ? unavailable() : base.store.findLinkByCode(code)),
    });
    const { app, client } = await setup(mode, { store });
    await client.link('https://example.com/', { custom_code: 'fails' });
    expect((await app.get('/fails')).status).toBe(503);
    let metrics = await scrape(app);
    expect(metrics.value('kurz_database_errors_total', { source: 'click_batch' })).toBe(1);
    expect(metrics.value('kurz_database_errors_total', { source: 'request' })).toBe(0);
    expect(metrics.value('kurz_redirects_total', { outcome: 'failed' })).toBe(1);
    expect(metrics.value('kurz_redirects_total', { outcome: 'redirected' })).toBe(0);

    failing = true;
    expect((await client.shorten({ url: 'https://example.com/' })).status).toBe(503);
    expect((await app.get('/other')).status).toBe(503);
    metrics = await scrape(app);
    expect(metrics.value('kurz_database_errors_total', { source: 'link_batch' })).toBe(1);
    // The create of the failed batch, and the redirect whose lookup failed.
    expect(metrics.value('kurz_database_errors_total', { source: 'request' })).toBe(2);
    expect(metrics.value('kurz_redirects_total', { outcome: 'failed' })).toBe(2);
  });

  test('links and users in the database, read at most once for scrapes close together', async () => {
    const base = await TestApp.init(mode);
    let reads = 0;
    const store = withFaults(base.store, {
      totals: (): Promise<StoreTotals> => {
        reads++;
        return base.store.totals();
      },
    });
    const { app, client } = await setup(mode, { store });
    for (let i = 0; i < 3; i++) await client.link(`https://example.com/${i}`);
    if (mode === 'accounts') {
      const bob = await app.user();
      await bob.link('https://example.com/bob');
    }
    const metrics = await scrape(app);
    expect(metrics.value('kurz_links')).toBe(mode === 'accounts' ? 4 : 3);
    expect(metrics.value('kurz_users')).toBe(mode === 'accounts' ? 2 : 0);
    await scrape(app);
    await scrape(app);
    expect(reads).toBe(1);
  });

  test('process memory, event-loop lag and the build, as Bun can tell them', async () => {
    const { app } = await setup(mode);
    // Holds the event loop for 200 ms: the lag measured must show it.
    const until = performance.now() + 200;
    while (performance.now() < until) {}
    await Bun.sleep(30);
    const metrics = await scrape(app);
    expect(metrics.value('process_resident_memory_bytes')).toBeGreaterThan(1024 * 1024);
    expect(metrics.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(metrics.value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(metrics.value('nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.1);
    expect(metrics.value('kurz_build_info', { version: VERSION, bun: Bun.version })).toBe(1);
    // Figures Bun cannot fill are left out rather than shown as zeros.
    for (const absent of [
      'nodejs_heap_space_size_used_bytes',
      'nodejs_active_handles_total',
      'nodejs_version_info',
    ]) {
      expect([absent, metrics.has(absent)]).toEqual([absent, false]);
    }
  });

  test('--tls auto: its ACME orders, by outcome, read as the manager counts them; none without it', async () => {
    const acmeOrders = { issued: 0, failed: 0 };
    const { app } = await setup(mode, { acmeOrders });
    acmeOrders.issued = 3;
    acmeOrders.failed = 2;
    const metrics = await scrape(app);
    expect(metrics.types.get('kurz_acme_orders_total')).toBe('counter');
    expect(metrics.value('kurz_acme_orders_total', { outcome: 'issued' })).toBe(3);
    expect(metrics.value('kurz_acme_orders_total', { outcome: 'failed' })).toBe(2);
    acmeOrders.issued++;
    expect((await scrape(app)).value('kurz_acme_orders_total', { outcome: 'issued' })).toBe(4);
    expect((await scrape((await setup(mode)).app)).has('kurz_acme_orders_total')).toBe(false);
  });

  test('each app counts its own requests (each process is scraped on its own)', async () => {
    const first = await setup(mode);
    const second = await setup(mode);
    await first.client.link('https://example.com/', { custom_code: 'mine' });
    await first.app.get('/mine');
    expect((await scrape(first.app)).value('kurz_redirects_total', { outcome: 'redirected' })).toBe(
      1,
    );
    expect(
      (await scrape(second.app)).value('kurz_redirects_total', { outcome: 'redirected' }),
    ).toBe(0);
  });
});

describe('Store.totals()', () => {
  test('counts the links of every owner and the users, and follows deletes', async () => {
    const app = await TestApp.init('accounts');
    expect(await app.store.totals()).toEqual({ links: 0, users: 0 });
    const ann = await app.user();
    const bob = await app.user();
    await ann.link('https://example.com/1', { custom_code: 'one' });
    await bob.link('https://example.com/2');
    expect(await app.store.totals()).toEqual({ links: 2, users: 2 });
    expect((await app.request('DELETE', '/api/links/one', { token: ann.token })).status).toBe(204);
    expect(await app.store.totals()).toEqual({ links: 1, users: 2 });
  });
});
