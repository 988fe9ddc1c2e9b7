// The Prometheus metrics of one kurz process (each instance is scraped on its own), kept
// by prom-client. The redirect, the link cache and the writers count in plain numbers
// of their own, read here only when a scrape asks, so the hot path pays an increment and
// nothing more; the API's requests and the click batches are observed as they happen.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ClickWriter } from '../clicks/click-writer.ts';
import type { FaultCounts } from '../http/error-handler.ts';
import type { RequestMetrics } from '../http/request-observer.ts';
import type { LinkWriter } from '../links/link-writer.ts';
import type { LinkCache } from '../redirect/link-cache.ts';
import type { RedirectCounts } from '../redirect/routes.ts';
import type { Store, StoreTotals } from '../store/store.ts';
import type { AcmeOrderCounts } from '../tls/acme/manager.ts';
import type { CertificateSet } from '../tls/certificates.ts';
import { VERSION } from '../version.ts';

/** What the metrics read when scraped. */
export interface MetricSources {
  redirects: RedirectCounts;
  cache: LinkCache;
  clicks: ClickWriter;
  links: LinkWriter;
  faults: FaultCounts;
  store: Pick<Store, 'totals'>;
  /** The host of a short domain by id; undefined for one removed. */
  domainHost: (id: number) => string | undefined;
  /** The ACME orders of --tls auto; absent: no such counter. */
  acmeOrders?: AcmeOrderCounts;
  /** The certificates served over HTTPS (--tls); absent: kurz serves plain HTTP. */
  certificates?: Pick<CertificateSet, 'all'>;
  /** How many times the HTTPS listener was replaced to serve new certificates. */
  listenerSwaps?: () => number;
}

/** How long the link and user totals read from the database are believed: scrapes cannot hammer it. */
export const TOTALS_TTL_MS = 5000;

/** The label of requests no route matched: one for all, whatever their path. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods kept as their own label value; any other shares `other` (clients may send anything). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * prom-client's default metrics that Bun cannot fill: V8's heap spaces (JSC has none: all
 * zero), the handles and requests libuv would list (Bun lists none), GC pauses (Bun
 * reports none) and the Node.js version (Bun's claim of compatibility, not the runtime:
 * kurz_build_info names it).
 */
const NOT_ON_BUN = [
  'nodejs_heap_space_size_total_bytes',
  'nodejs_heap_space_size_used_bytes',
  'nodejs_heap_space_size_available_bytes',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
  'nodejs_gc_duration_seconds',
  'nodejs_version_info',
];

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMIT_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

export class Metrics implements RequestMetrics {
  private readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly durations: Histogram<'route' | 'method'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    const { redirects, cache, clicks, links, faults } = sources;

    // Process memory (resident, heap), CPU, file descriptors and event-loop lag (Bun has
    // perf_hooks.monitorEventLoopDelay, which the lag metrics read).
    collectDefaultMetrics({ register: this.registry });
    for (const name of NOT_ON_BUN) this.registry.removeSingleMetric(name);
    new Gauge({
      name: 'kurz_build_info',
      help: 'The version of kurz and of the Bun runtime it was built with; always 1.',
      labelNames: ['version', 'bun'],
      registers,
    }).set({ version: VERSION, bun: Bun.version }, 1);

    this.requests = new Counter({
      name: 'kurz_http_requests_total',
      help: 'Requests answered by the API and web routes (redirects: kurz_redirects_total), by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.durations = new Histogram({
      name: 'kurz_http_request_duration_seconds',
      help: 'Time from the arrival of a request to its answer, by route template and method.',
      labelNames: ['route', 'method'],
      buckets: SECONDS_BUCKETS,
      registers,
    });

    counterFromNumbers(this.registry, {
      name: 'kurz_redirects_total',
      help: 'Answers of GET, HEAD and POST /{code}, by outcome: redirected (307, HEAD too), not_found (404), not_found_redirected (302 to the not-found address of a short domain), expired (410), password_page (200), preview_page (200, the card shown to a link-preview crawler), unlocked (303), password_wrong (401), rate_limited (429), failed (503 or 500), disabled (410, a link an admin disabled), info_page (200, the `+` page of a link), interstitial (200, the `+` page shown instead of the redirect for a link of a new account), aborted (a password form the client hung up on while sending).',
      label: 'outcome',
      read: () => ({
        redirected: cache.redirectCount,
        not_found: redirects.notFound,
        not_found_redirected: redirects.notFoundRedirected,
        expired: redirects.expired,
        password_page: redirects.passwordPage,
        preview_page: redirects.previewPage,
        unlocked: redirects.unlocked,
        password_wrong: redirects.passwordWrong,
        rate_limited: redirects.rateLimited,
        failed: redirects.failed,
        disabled: redirects.disabled,
        info_page: redirects.infoPage,
        interstitial: redirects.interstitial,
        aborted: redirects.aborted,
      }),
    });
    counterFromNumbers(this.registry, {
      name: 'kurz_domain_redirects_total',
      help: 'Redirects (307, HEAD too) by short domain (its host): one series per domain the operator added, so the labels stay few.',
      label: 'domain',
      read: () => {
        const counts: Record<string, number> = {};
        for (const [id, n] of cache.redirectsByDomain()) {
          const host = sources.domainHost(id);
          if (host !== undefined) counts[host] = (counts[host] ?? 0) + n;
        }
        return counts;
      },
    });
    counterFromNumbers(this.registry, {
      name: 'kurz_link_cache_lookups_total',
      help: 'Lookups of a code by the redirect: hit (answered from memory, a link or a code known to have none) or miss (the database was asked).',
      label: 'result',
      read: () => ({ hit: cache.hitCount, miss: cache.missCount }),
    });
    new Gauge({
      name: 'kurz_link_cache_entries',
      help: 'Links the redirect holds in memory (--cache-size at most).',
      registers,
      collect() {
        this.set(cache.size);
      },
    });

    const batchSizes = new Histogram({
      name: 'kurz_click_batch_size',
      help: 'Clicks per batch, committed in one transaction (group commit); a click refused for max_clicks is refused in its batch.',
      buckets: BATCH_BUCKETS,
      registers,
    });
    const commitTimes = new Histogram({
      name: 'kurz_click_commit_duration_seconds',
      help: 'Time a batch of clicks took to commit; its redirects waited as long.',
      buckets: COMMIT_BUCKETS,
      registers,
    });
    clicks.observeCommits((size, seconds) => {
      batchSizes.observe(size);
      commitTimes.observe(seconds);
    });
    new Gauge({
      name: 'kurz_click_writes_pending',
      help: 'Clicks waiting for their commit (gathering, or in a commit under way).',
      registers,
      collect() {
        this.set(clicks.pending);
      },
    });

    counterFromNumbers(this.registry, {
      name: 'kurz_database_errors_total',
      help: 'Failures of the database: requests answered 503 Database unavailable (source="request"), and batches of clicks or new links that failed to commit (click_batch, link_batch; each redirect of a failed click batch is also counted as kurz_redirects_total{outcome="failed"}, each create of a failed link batch as a request).',
      label: 'source',
      read: () => ({
        request: faults.databaseUnavailable,
        click_batch: clicks.failedBatches,
        link_batch: links.failedBatches,
      }),
    });

    const { acmeOrders } = sources;
    if (acmeOrders !== undefined) {
      counterFromNumbers(this.registry, {
        name: 'kurz_acme_orders_total',
        help: 'Certificate orders of --tls auto (one per name), by outcome: issued, or failed (the log line says why; the name is tried again after a delay that doubles up to 6 h).',
        label: 'outcome',
        read: () => ({ issued: acmeOrders.issued, failed: acmeOrders.failed }),
      });
    }

    const totals = cachedTotals(sources.store, faults);
    new Gauge({
      name: 'kurz_links',
      help: `Links in the database, all owners and instances (read at most every ${TOTALS_TTL_MS / 1000} s).`,
      registers,
      async collect() {
        this.set((await totals()).links);
      },
    });
    new Gauge({
      name: 'kurz_users',
      help: `Users in the database (read at most every ${TOTALS_TTL_MS / 1000} s).`,
      registers,
      async collect() {
        this.set((await totals()).users);
      },
    });
    if (sources.certificates !== undefined) this.tlsMetrics(sources.certificates, sources);
  }

  private tlsMetrics(certificates: Pick<CertificateSet, 'all'>, sources: MetricSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'kurz_tls_certificate_expiry_days',
      help: "Days until a served certificate expires (fractional, negative once expired), by the name it is served for ('*': the --tls-cert file, for every name).",
      labelNames: ['name'],
      registers,
      collect() {
        this.reset();
        const now = Date.now();
        for (const served of certificates.all()) {
          this.set({ name: served.name }, (served.notAfter.getTime() - now) / 86_400_000);
        }
      },
    });
    const swaps = sources.listenerSwaps;
    if (swaps === undefined) return;
    new Counter({
      name: 'kurz_tls_listener_swaps_total',
      help: 'Times the HTTPS listener was replaced by one with new certificates (the old one finishing its requests).',
      registers,
      collect() {
        this.reset();
        this.inc(swaps());
      },
    });
  }

  /** Counts one answer of an API or web route: `route` is the route's template, never the path. */
  observeRequest(route: string | undefined, method: string, status: number, seconds: number): void {
    const labels = {
      route: route === undefined || route === '' ? UNMATCHED_ROUTE : route,
      method: METHODS.has(method) ? method : 'other',
    };
    this.requests.inc({ ...labels, status: String(status) });
    this.durations.observe(labels, seconds);
  }

  /** The text exposition format, and its Content-Type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * A counter whose values are numbers kept elsewhere, one per value of its label, read
 * when scraped (they only grow, as a counter must).
 */
function counterFromNumbers(
  registry: Registry,
  spec: { name: string; help: string; label: string; read: () => Record<string, number> },
): void {
  new Counter({
    name: spec.name,
    help: spec.help,
    labelNames: [spec.label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, count] of Object.entries(spec.read())) {
        this.inc({ [spec.label]: value }, count);
      }
    },
  });
}

/**
 * The store's totals, read at most every TOTALS_TTL_MS (scrapes at once share one read).
 * A read that fails keeps the last totals and counts as a request the database failed.
 */
function cachedTotals(store: Pick<Store, 'totals'>, faults: FaultCounts) {
  let last: StoreTotals = { links: 0, users: 0 };
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<StoreTotals> | undefined;
  return (): Promise<StoreTotals> => {
    if (performance.now() - readAt < TOTALS_TTL_MS) return Promise.resolve(last);
    reading ??= store
      .totals()
      .then(
        (totals) => {
          last = totals;
          readAt = performance.now();
          return totals;
        },
        () => {
          faults.databaseUnavailable++;
          return last;
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}
