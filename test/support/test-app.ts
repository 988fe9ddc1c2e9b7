// A test app builder: a fresh database per app, cheap argon2id, typed request helpers.
// `const app = await TestApp.init('accounts'); const ann = await app.user();`
// The database is SQLite in memory, or with KURZ_TEST_STORE=postgres (scripts/test.sh's
// second run, over the files of test/postgres-suite.txt) a fresh PostgreSQL schema.
// Every answer of the app's `handle` is checked against its OpenAPI document
// (support/openapi-check.ts): one the document does not allow fails the test.

import { onTestFinished } from 'bun:test';
import { SQL } from 'bun';
import { createApp, type Writers } from '../../src/app.ts';
import { RelyingParty } from '../../src/auth/oidc-client.ts';
import {
  defaultConfig,
  type Mode,
  type OidcSettings,
  type RateLimits,
  type Registration,
} from '../../src/config/config.ts';
import { oidcRedirectUri } from '../../src/config/oidc-flags.ts';
import { urlHost } from '../../src/domain/hosts.ts';
import type { Blocklist } from '../../src/domain/targets.ts';
import { DomainRegistry } from '../../src/domains/registry.ts';
import type { LogFields, Logger } from '../../src/logger.ts';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite, type SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import type { AcmeOrderCounts } from '../../src/tls/acme/manager.ts';
import { type DispatcherOptions, WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { systemResolve } from '../../src/webhooks/targets.ts';
import { atCleanUp } from './cleanup.ts';
import { checkResponse, ResponseChecker } from './openapi-check.ts';
import { freshSchemaUrl } from './postgres.ts';

/** The store in-process test apps get, from KURZ_TEST_STORE (`sqlite` unless `postgres`). */
export const TEST_STORE: 'sqlite' | 'postgres' =
  process.env.KURZ_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The --db URL of each PostgreSQL store a TestApp opened, for query(). */
const postgresUrls = new WeakMap<Store, string>();
/** What must stop before a store TestApp opened closes (its webhook sender). */
const beforeClose = new WeakMap<Store, (() => Promise<void>)[]>();

/**
 * A fresh PostgreSQL store (its own schema), closed when the test that opened it
 * finishes: the server allows about 100 connections in all, and each store holds its
 * pool and one listening connection. So TestApp.init belongs inside a test, not in a
 * beforeAll, on this store.
 */
async function openTestPostgres(log: Logger, analyticsIntervalMs?: number): Promise<Store> {
  const url = await freshSchemaUrl();
  const store = await openPostgres({ url, pool: 2, log, analyticsIntervalMs });
  postgresUrls.set(store, url);
  const close = async () => {
    for (const stop of beforeClose.get(store) ?? []) await stop();
    await store.close();
    await queryClients.get(store)?.close({ timeout: 1 });
    queryClients.delete(store);
  };
  try {
    onTestFinished(close);
  } catch {
    // Not in a test: closed when the run ends.
  }
  atCleanUp(close);
  return store;
}

/**
 * A fresh store of the kind TestApp.init opens (SQLite in memory, or a PostgreSQL schema,
 * closed when the test finishes), whose click log is moved into click records and day
 * rollups only when the test calls `store.rollUpClicks()`: for tests that must see clicks
 * still in the log. `TestApp.init(mode, { store: await storeMovedByHand() })`.
 */
export async function storeMovedByHand(): Promise<Store> {
  if (TEST_STORE === 'sqlite') {
    return openSqlite({ path: ':memory:', durability: 'normal', rollup: { intervalMs: 0 } });
  }
  return openTestPostgres(new MemoryLogger(), 0);
}

type Handle = (request: Request) => Promise<Response>;

/**
 * A checker per kind of document, made from the first app of that kind's own
 * GET /api/openapi.json: the declared answers differ with the mode and whether there is
 * a metrics route, and with nothing else TestApp sets.
 */
const checkers = new Map<string, Promise<ResponseChecker>>();

function checkerOf(handle: Handle, mode: Mode, options: AppOptions): Promise<ResponseChecker> {
  const kind = `${mode}${options.metricsToken === undefined ? '' : '+metrics'}${options.oidc === undefined ? '' : '+oidc'}`;
  let checker = checkers.get(kind);
  if (checker === undefined) {
    checker = (async () => {
      const response = await handle(new Request('http://localhost/api/openapi.json'));
      if (response.status !== 200) throw new Error(`no OpenAPI document: ${response.status}`);
      return new ResponseChecker(await response.json());
    })();
    checkers.set(kind, checker);
  }
  return checker;
}

/** One connection per PostgreSQL store for query(), opened on first use. */
const queryClients = new Map<Store, SQL>();

function queryClient(store: Store): SQL {
  let client = queryClients.get(store);
  if (client !== undefined) return client;
  const url = postgresUrls.get(store);
  if (url === undefined) throw new Error('query() needs a PostgreSQL store that TestApp opened');
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  // int8 values (ids, times, counts) as BigInt rather than strings, made numbers below.
  client = new SQL(parsed.toString(), {
    max: 1,
    bigint: true,
    ...(schema !== null ? { connection: { search_path: schema } } : {}),
  });
  queryClients.set(store, client);
  return client;
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (tests put no `?` in SQL literals). */
function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export const SECRET = 'test-secret-test-secret-test-secret-0123';
export const BASE_URL = 'https://kurz.test';
export const CHEAP_HASHING = { memoryCost: 1024, timeCost: 1 };
/** An admin token for open mode's link management (32+ characters, as the CLI asks). */
export const ADMIN_TOKEN = 'test-admin-token-test-admin-token-0123';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  json: any;
}

export interface RequestOptions {
  json?: unknown;
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
  /** The Host the request is sent to (`kurz.lan:3000`); `localhost` unless given. */
  host?: string;
}

export interface AppOptions {
  store?: Store;
  tokenTtlSeconds?: number;
  secret?: string;
  writers?: Writers;
  /** Abuse limits; none unless given (the rate-limit tests give them). */
  rateLimits?: RateLimits;
  trustedProxies?: string[];
  /** Whether auto previews may read pages on private addresses (local test servers); true unless false. */
  previewAllowPrivate?: boolean;
  blocklist?: () => Blocklist | undefined;
  maxLinksPerUser?: number;
  baseUrl?: string;
  corsOrigins?: readonly string[];
  /** Further host names browsers may write under (--allowed-hosts), canonical. */
  allowedHosts?: readonly string[];
  /** The canonical hosts of the registered short domains; none unless given. */
  registeredHosts?: () => ReadonlySet<string>;
  /** Open mode's link management token (--admin-token); none unless given. */
  adminToken?: string;
  /** --registration; open unless given. */
  registration?: Registration;
  /**
   * Webhook delivery: a sender started with the app and stopped when the test finishes,
   * with these options over the tests' own (private targets allowed, since receivers
   * listen on 127.0.0.1; the outbox looked at every 20 ms). Without it, webhooks are
   * registered (private targets refused) and nothing is sent.
   */
  webhooks?: Partial<Omit<DispatcherOptions, 'store' | 'baseUrl' | 'log'>>;
  /** The token of GET /api/metrics (--metrics-token); no metrics unless given. */
  metricsToken?: string;
  /** The counts of --tls auto's ACME orders the metrics read; none unless given. */
  acmeOrders?: AcmeOrderCounts;
  /** A line per request in the log (--access-log on). */
  accessLog?: boolean;
  /** --password-login; on unless false. */
  passwordLogin?: boolean;
  /**
   * Sign-in through an OpenID Provider (--oidc-*, over the defaults): discovered when the
   * app is made and stopped when the test finishes. None unless given.
   */
  oidc?: Partial<OidcSettings> & { issuer: string; clientId: string };
  /** --new-account-interstitial DAYS; off unless given. */
  newAccountInterstitialDays?: number;
}

/**
 * In-process requests have no socket: tests name the peer a request comes from in this
 * header (it means nothing to the real server).
 */
export const PEER_HEADER = 'x-test-peer';

/** Records what the app logs, so tests can read it (`entries`: with each line's fields). */
export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  readonly entries: { level: 'info' | 'error'; message: string; fields?: LogFields }[] = [];
  info(message: string, fields?: LogFields) {
    this.lines.push(message);
    this.entries.push({ level: 'info', message, fields });
  }
  error(message: string, fields?: LogFields) {
    this.lines.push(message);
    this.entries.push({ level: 'error', message, fields });
  }
}

export class TestApp {
  private users = 0;

  private constructor(
    readonly mode: Mode,
    readonly store: Store,
    /** The app; its `handle` checks every answer against the OpenAPI document. */
    readonly app: ReturnType<typeof createApp>,
    readonly log: MemoryLogger,
    /** The webhook sender, when the app was given `webhooks`. */
    readonly webhooks: WebhookDispatcher | undefined,
    /** The app's short domains. */
    readonly domains: DomainRegistry,
    private readonly rawHandle: Handle,
  ) {}

  static async init(mode: Mode = 'accounts', options: AppOptions = {}): Promise<TestApp> {
    const log = new MemoryLogger();
    const store =
      options.store ??
      (TEST_STORE === 'postgres'
        ? await openTestPostgres(log)
        : openSqlite({ path: ':memory:', durability: 'normal' }));
    const domains = await DomainRegistry.open(store, () => options.baseUrl ?? BASE_URL);
    const webhooks =
      options.webhooks === undefined
        ? undefined
        : new WebhookDispatcher({
            store,
            domainOf: domains.domainOf,
            log,
            policy: { allowPrivate: true, resolve: systemResolve },
            pollMs: 20,
            ...options.webhooks,
          });
    const oidc =
      options.oidc === undefined
        ? undefined
        : new RelyingParty({
            settings: { ...defaultConfig().oidc, ...options.oidc },
            redirectUri: () => oidcRedirectUri(options.baseUrl ?? BASE_URL),
            log,
          });
    if (oidc !== undefined) {
      oidc.start();
      try {
        onTestFinished(() => oidc.stop());
      } catch {
        // Not in a test: it stops trying with the process.
      }
    }
    const app = createApp({
      mode,
      store,
      oidc,
      passwordLogin: options.passwordLogin,
      jwtSecret: options.secret ?? SECRET,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
      baseUrl: () => options.baseUrl ?? BASE_URL,
      corsOrigins: options.corsOrigins,
      allowedHosts: options.allowedHosts,
      registeredHosts: options.registeredHosts,
      hashing: CHEAP_HASHING,
      writers: options.writers,
      maxLinksPerUser: options.maxLinksPerUser,
      log,
      rateLimits: options.rateLimits,
      trustedProxies: options.trustedProxies,
      blocklist: options.blocklist,
      peerAddress: (request) => request.headers.get(PEER_HEADER) ?? '192.0.2.1',
      adminToken: options.adminToken,
      registration: options.registration,
      webhooks,
      domains,
      previewPolicy: { allowPrivate: options.previewAllowPrivate ?? true, resolve: systemResolve },
      metricsToken: options.metricsToken,
      acmeOrders: options.acmeOrders,
      accessLog: options.accessLog,
      newAccountInterstitialDays: options.newAccountInterstitialDays,
    });
    if (webhooks !== undefined) {
      webhooks.start();
      const stop = () => webhooks.stop();
      beforeClose.set(store, [...(beforeClose.get(store) ?? []), stop]);
      try {
        onTestFinished(stop);
      } catch {
        // Not in a test: stopped when its store closes, or with the process.
      }
    }
    const rawHandle = app.handle;
    const checker = await checkerOf(rawHandle, mode, options);
    app.handle = async (request) => {
      const response = await rawHandle(request);
      await checkResponse(checker, request, response);
      return response;
    };
    return new TestApp(mode, store, app, log, webhooks, domains, rawHandle);
  }

  /** The app's answer to `request`, checked against the OpenAPI document. */
  handle(request: Request): Promise<Response> {
    return this.app.handle(request);
  }

  /**
   * The app's answer, not checked: only for a test that must read the body at its own
   * pace (the check reads a whole clone of it first). `why` says why, for the reader.
   */
  handleUnchecked(request: Request, _why: string): Promise<Response> {
    return this.rawHandle(request);
  }

  /** The SQLite handle underneath, for tests of what only SQLite has (PRAGMAs, files). */
  get sqlite() {
    if (!('sqlite' in this.store)) throw new Error('this test app has no SQLite store');
    return (this.store as SqliteStore).sqlite;
  }

  /**
   * Runs SQL on the app's database, whichever store it is, for checks the API cannot make
   * and states it cannot make: `?` placeholders; rows as plain objects, integers as numbers.
   */
  async query<Row = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<Row[]> {
    if (this.store.kind === 'sqlite') {
      // biome-ignore lint/suspicious/noExplicitAny: bun:sqlite binds any of the values tests pass
      return this.sqlite.query(sql).all(...(params as any[])) as Row[];
    }
    const rows: Record<string, unknown>[] = await queryClient(this.store).unsafe(
      numberedPlaceholders(sql),
      params,
    );
    return rows.map(
      (row) =>
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [
            key,
            typeof value === 'bigint' ? Number(value) : value,
          ]),
        ) as Row,
    );
  }

  /** The column names of a table, sorted. */
  async columns(table: string): Promise<string[]> {
    const rows = await this.query<{ name: string }>(
      this.store.kind === 'sqlite'
        ? 'SELECT name FROM pragma_table_info(?)'
        : 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
      [table],
    );
    return rows.map((row) => row.name).sort();
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers = new Headers(options.headers);
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    if (options.token !== undefined) headers.set('authorization', `Bearer ${options.token}`);
    const response = await this.handle(
      new Request(`http://${options.host ?? 'localhost'}${path}`, { method, headers, body }),
    );
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }

  post(path: string, json: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { ...options, json });
  }

  /**
   * Adds a short domain (as `kurz domain add` does) and waits until the app's registry
   * holds it; returns its id.
   */
  async addDomain(
    baseUrl: string,
    answers: { rootRedirect?: string | null; notFoundRedirect?: string | null } = {},
  ): Promise<number> {
    const url = new URL(baseUrl);
    const domain = await this.store.createDomain({
      baseUrl: `${url.protocol}//${urlHost(url)}`,
      host: urlHost(url),
      rootRedirect: answers.rootRedirect ?? null,
      notFoundRedirect: answers.notFoundRedirect ?? null,
      createdAt: Date.now(),
    });
    if (domain === undefined) throw new Error(`domain ${baseUrl} exists`);
    await this.domains.reload();
    return domain.id;
  }

  /** Registers a fresh user and returns a client acting as them. */
  async user(email = `user${++this.users}@example.com`, password = 'correct horse 42') {
    const reply = await this.post('/api/auth/register', { email, password });
    if (reply.status !== 200) throw new Error(`register failed: ${reply.status} ${reply.text}`);
    return new Client(this, reply.json.token, reply.json.user);
  }

  /** Registers a fresh user, makes them an admin (as `kurz user promote` does), and returns them. */
  async admin(email?: string) {
    const client = await this.user(email);
    await this.store.setUserAdmin(client.user?.id as number, true);
    return client;
  }

  /** A client without a token (open mode, or to test 401s). */
  anonymous() {
    return new Client(this, undefined, undefined);
  }

  /** Click records of a link, oldest first. */
  /** A link's click records as the CSV export reads them: rolled up or still in the log. */
  async clickRecords(linkId: number) {
    const rows = await this.store.clickRows(linkId, 0, 1_000_000);
    return rows.map((row) => ({
      link_id: row.linkId,
      source: row.source,
      query_source: row.querySource,
      referrer: row.referrer,
      user_agent: row.userAgent,
      created_at: row.createdAt,
      country: row.country,
    }));
  }
}

export class Client {
  constructor(
    readonly app: TestApp,
    readonly token: string | undefined,
    readonly user: { id: number; email: string } | undefined,
  ) {}

  shorten(body: unknown, options: RequestOptions = {}) {
    return this.app.post('/api/shorten', body, { token: this.token, ...options });
  }

  /** Creates a link and returns its JSON, failing the test when creation fails. */
  async link(url = 'https://example.com/', extra: Record<string, unknown> = {}) {
    const reply = await this.shorten({ url, ...extra });
    if (reply.status !== 201) throw new Error(`shorten failed: ${reply.status} ${reply.text}`);
    return reply.json;
  }

  links(query = '') {
    return this.app.get(`/api/links${query}`, { token: this.token });
  }

  async clicksOf(code: string): Promise<number | undefined> {
    const reply = await this.links();
    return reply.json.find((l: { short_code: string }) => l.short_code === code)?.clicks;
  }
}

/**
 * `kurz_redirects_total{outcome="…"}` as GET /api/metrics shows it (the app was made with
 * `metricsToken`), after the turn's answers are counted.
 */
export async function redirectOutcome(
  app: TestApp,
  metricsToken: string,
  outcome: string,
): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  const text = (await app.get('/api/metrics', { token: metricsToken })).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`kurz_redirects_total{outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1));
}

/**
 * Who moderates `app` in its mode: an admin user in accounts mode, the operator's
 * ADMIN_TOKEN in open mode (the app must be started with it). Its `disable` and `enable`
 * of a link must answer 200, or the test fails with the answer.
 */
export async function moderatorOf(app: TestApp) {
  const token = app.mode === 'accounts' ? ((await app.admin()).token as string) : ADMIN_TOKEN;
  const succeeded = (reply: Reply, what: string) => {
    if (reply.status !== 200) throw new Error(`${what} answered ${reply.status}: ${reply.text}`);
  };
  return {
    token,
    async disable(code: string, reason?: string) {
      const path = `/api/admin/links/${code}/disable`;
      succeeded(await app.post(path, reason === undefined ? {} : { reason }, { token }), path);
    },
    async enable(code: string) {
      const path = `/api/admin/links/${code}/enable`;
      succeeded(await app.request('POST', path, { token }), path);
    },
  };
}
