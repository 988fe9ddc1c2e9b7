// The PostgreSQL implementation of Store, over Bun's built-in client (Bun.SQL) and
// drizzle (drizzle-orm/bun-sql). Several kurz instances may share one database: every
// promise the store makes (exact counts, one winner per code, the first token key
// stored) is kept by PostgreSQL itself, never by memory of one process.

import { SQL } from 'bun';
import { DrizzleQueryError, sql as dsql, eq } from 'drizzle-orm';
import { type BunSQLDatabase, drizzle } from 'drizzle-orm/bun-sql';
import { StoreUnavailableError } from '../../domain/errors.ts';
import type { DeliveryType } from '../../domain/webhooks.ts';
import { consoleLogger, type Logger } from '../../logger.ts';
import type {
  ApiKey,
  ApiKeyGrant,
  KEY_LIMIT_REACHED,
  NewApiKey,
  RemovedLinks,
  UserSummary,
} from '../accounts.ts';
import { shareLimits } from '../click-limits.ts';
import { applyChanges } from '../link-changes.ts';
import { wantedNeedle } from '../outbox.ts';
import { scheduleRetention } from '../retention.ts';
import {
  type Click,
  type ClickRow,
  type CodeHolder,
  type CreatedLink,
  type DeliveryOutcome,
  type DeliveryRecord,
  type DueDelivery,
  LINK_LIMIT_REACHED,
  type Link,
  type LinkChanged,
  type LinkChanges,
  type LinkChunkQuery,
  type LinkDetail,
  type LinkPage,
  type LinkQuery,
  type LinkTarget,
  type LinkTraffic,
  type NewLink,
  type NewWebhook,
  type RefusedClicks,
  type Store,
  type StoreTotals,
  type User,
  type UserWithHash,
  type WEBHOOK_LIMIT_REACHED,
  type Webhook,
} from '../store.ts';
import { PostgresAccounts } from './accounts.ts';
import { PostgresAnalytics } from './analytics.ts';
import { applyMigrations } from './migrate.ts';
import * as schema from './schema.ts';
import { CLICKS_OUTBOX, createdDataTails, PostgresWebhooks, reportLinkEvent } from './webhooks.ts';

const { users, settings } = schema;

export interface PostgresOptions {
  /** postgres:// or postgresql:// URL; `?schema=NAME` keeps kurz's tables in that schema. */
  url: string;
  /** Connections in the pool (besides the one that listens for changes). */
  pool: number;
  /** Where changes of the store's state (connection lost, back) are told; once per change. */
  log?: Logger;
  /**
   * How long one operation may take before it is answered as unavailable (ms); the
   * server cancels a statement that runs longer. 0: no deadline (tools such as
   * `kurz copy`, whose statements may run long).
   */
  deadlineMs?: number;
  /** How often this instance moves clicks from the log into records and rollups (ms); 0: never by itself. */
  analyticsIntervalMs?: number;
  /** Days click records are kept (day rollups stay); 0 or absent: forever. */
  clickRetentionDays?: number;
}

/** The channel on which instances tell each other of new (and later changed) links. */
export const LINKS_CHANNEL = 'kurz_links';
/** The prefix of each instance's own channel, on which it sends itself settle() markers. */
const SETTLE_CHANNEL_PREFIX = 'kurz_settle_';

/**
 * An operation that has not finished by then is answered 503: a stopped or unreachable
 * server must not hold requests, and /health must answer within 2 s.
 */
const DEFAULT_DEADLINE_MS = 1500;
/** Seconds a new connection may take; below the deadline, so a dead server is seen in time. */
const CONNECT_TIMEOUT_S = 1;
/**
 * The click batch's one statement: the records go in as arrays (unnest), the counts,
 * summed per link by the caller, are added to one shard each, and the webhooks that
 * want clicks get their messages (CLICKS_OUTBOX). A constant text run with `unsafe`, so
 * the client prepares it once and does no template work per batch.
 */
const RECORD_CLICKS = `
  WITH added AS (
    INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at, country)
    SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                         $7::text[])
  ), ${CLICKS_OUTBOX}
  INSERT INTO link_clicks (link_id, shard, clicks)
  SELECT link, $8::smallint, n FROM unnest($9::int[], $10::bigint[]) AS t(link, n)
  ORDER BY link
  ON CONFLICT (link_id, shard) DO UPDATE SET clicks = link_clicks.clicks + excluded.clicks`;
/** The columns of a LinkDetail; `l` is the link's row. */
const DETAIL_COLUMNS = `l.id, l.user_id AS "userId", l.original_url AS "originalUrl",
  l.short_code AS "shortCode", l.created_at::float8 AS "createdAt", l.source,
  l.expires_at::float8 AS "expiresAt", l.max_clicks AS "maxClicks",
  l.limited_clicks AS "limitedClicks", l.password_hash AS "passwordHash",
  (SELECT coalesce(sum(c.clicks), 0)::float8 FROM link_clicks c WHERE c.link_id = l.id) AS clicks`;
/** Clicks one analytics step moves, in one transaction. */
const ANALYTICS_STEP = 2000;
/**
 * Above this many clicks a second written by this instance, one step a second moves
 * clicks (the log grows under a flood and is emptied once it eases, so redirects keep
 * their speed); below it, steps run until the log is empty.
 */
const BUSY_CLICKS = 2000;
const IDLE_STEPS = 50;
/** Click records removed per statement, when retention runs. */
const RETENTION_SLICE = 5000;
/** Shards of each link's click count (see link_clicks in schema.ts). */
const COUNT_SHARDS = 16;

/**
 * SQLSTATE classes and codes that say the database cannot serve now, not that the
 * query was wrong: connection failures (08), resources (53), operator intervention
 * (57: shutdown, cannot connect now, statement timeout), system errors (58), a
 * read-only server (25006, a standby), and a serialization failure or deadlock (40001,
 * 40P01), which the client may simply try again: 503, not 500.
 */
const UNAVAILABLE_STATES = /^(08|53|57|58|25006|40001|40P01)/;

/** The error a caller sees: StoreUnavailableError when the database is unreachable or failing. */
export function classify(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  if (error instanceof DrizzleQueryError) {
    // drizzle's prepared queries wrap the client's error: judge the one underneath.
    const cause = classify(error.cause);
    return cause instanceof StoreUnavailableError ? cause : error;
  }
  if (error instanceof SQL.PostgresError) {
    if (error.code !== 'ERR_POSTGRES_SERVER_ERROR') {
      // The client's own codes: connection refused, closed, timed out, TLS, auth…
      return new StoreUnavailableError({ cause: error });
    }
    if (UNAVAILABLE_STATES.test(String(error.errno ?? ''))) {
      return new StoreUnavailableError({ cause: error });
    }
    return error;
  }
  if (error instanceof SQL.SQLError || (error as { code?: string })?.code === 'ECONNREFUSED') {
    return new StoreUnavailableError({ cause: error });
  }
  return error;
}

/** The connection URL without kurz's own `schema` parameter, and that schema. */
function splitSchema(url: string): { url: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schemaName = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`schema "${schemaName}" must be a lower-case SQL name`);
  }
  return { url: parsed.toString(), schema: schemaName };
}

/** Opens the pool, applies migrations (one instance at a time) and starts listening. */
export async function openPostgres(options: PostgresOptions): Promise<PostgresStore> {
  const log = options.log ?? consoleLogger;
  const { url, schema: schemaName } = splitSchema(options.url);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const client = new SQL(url, {
    max: options.pool,
    connectionTimeout: CONNECT_TIMEOUT_S,
    // Idle connections are closed after a while, so a pool shrinks after a burst.
    idleTimeout: 60,
    connection: {
      // A statement the caller stopped waiting for is cancelled by the server too, so
      // that it holds neither a connection of the pool nor the server's time.
      statement_timeout: deadlineMs,
      ...(schemaName !== undefined ? { search_path: schemaName } : {}),
    },
  });
  try {
    await applyMigrations(client, schemaName);
    const store = new PostgresStore(client, log, deadlineMs, options.pool);
    await store.listen();
    store.startBackground(options.analyticsIntervalMs ?? 1000, options.clickRetentionDays ?? 0);
    return store;
  } catch (error) {
    await client.close({ timeout: 0 });
    throw classify(error);
  }
}

/** The stored link a new one becomes (its id is added once known). */
function toLink(link: NewLink): Omit<Link, 'id'> {
  return {
    userId: link.userId,
    originalUrl: link.originalUrl,
    shortCode: link.shortCode,
    createdAt: link.createdAt,
    clicks: 0,
  };
}

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly writeConcurrency: number;
  /** The next shard of click counts; batches in flight at once take different ones. */
  private shard = Math.floor(Math.random() * COUNT_SHARDS);
  private readonly db: BunSQLDatabase<typeof schema>;
  private readonly q;
  private readonly accounts: PostgresAccounts;
  private closed = false;
  private readonly listeners = new Set<LinkChanged>();
  private readonly resetListeners = new Set<() => void>();
  private readonly subscriptions: SQL.ListenSubscription[] = [];
  /** This instance's own channel: only it listens there. */
  private readonly settleChannel =
    SETTLE_CHANNEL_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  /** The settle() marker to be sent next, which calls made since the last one share. */
  private nextMarker: { token: string; done: Promise<void> } | undefined;
  /** Markers sent and not yet heard back, by token. */
  private readonly markers = new Map<string, () => void>();
  private markerCount = 0;
  private readonly analytics = new PostgresAnalytics();
  private readonly webhooks: PostgresWebhooks;
  /** Clicks this instance wrote since the analytics timer last looked. */
  private clicksWritten = 0;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private stopRetention = () => {};
  private moving: Promise<unknown> | undefined;

  constructor(
    /** The pool, for tests and tools that inspect what the API does not show. */
    readonly client: SQL,
    private readonly log: Logger,
    private readonly deadlineMs: number,
    pool: number,
  ) {
    // Two batches in flight per writer (clicks, links) when the pool allows: measured on
    // one instance (bench/postgres.ts), one at a time waits on every WAL flush (37,500
    // redirects/s, 32 clicks a batch), two share them (40,800/s), and four gain nothing
    // more (41,100/s) but make smaller batches, so more commits and more server CPU
    // per click (13.3 µs against 11.3), which several instances would feel.
    this.writeConcurrency = Math.max(1, Math.min(2, Math.floor(pool / 2)));
    this.db = drizzle({ client, schema });
    this.webhooks = new PostgresWebhooks(client);
    const db = this.db;
    const p = dsql.placeholder;
    this.accounts = new PostgresAccounts(client, LINKS_CHANNEL);
    this.q = {
      insertUser: db
        .insert(users)
        .values({ email: p('email'), passwordHash: p('hash'), createdAt: p('now') })
        .onConflictDoNothing({ target: users.email })
        .returning({ id: users.id, email: users.email })
        .prepare('kurz_insert_user'),
      userByEmail: db
        .select({
          id: users.id,
          email: users.email,
          passwordHash: users.passwordHash,
          tokenVersion: users.tokenVersion,
        })
        .from(users)
        .where(eq(users.email, p('email')))
        .prepare('kurz_user_by_email'),
      insertSetting: db
        .insert(settings)
        .values({ key: p('key'), value: p('value') })
        .onConflictDoNothing()
        .prepare('kurz_insert_setting'),
      upsertSetting: db
        .insert(settings)
        .values({ key: p('key'), value: p('value') })
        .onConflictDoUpdate({ target: settings.key, set: { value: dsql`excluded.value` } })
        .prepare('kurz_upsert_setting'),
      settingByKey: db
        .select({ value: settings.value })
        .from(settings)
        .where(eq(settings.key, p('key')))
        .prepare('kurz_setting_by_key'),
    };
  }

  /**
   * Runs one operation against the deadline: past it, or on a connection failure, the
   * caller gets StoreUnavailableError. A write past its deadline may still commit; it
   * was not acknowledged, so nothing acknowledged is lost.
   */
  private async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError();
    if (this.deadlineMs === 0) {
      try {
        return await work();
      } catch (error) {
        throw classify(error);
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError({ cause: 'database deadline passed' })),
        this.deadlineMs,
      );
    });
    const operation = work();
    // A late failure after the deadline answered must not be unhandled.
    operation.catch(() => {});
    try {
      return await Promise.race([operation, deadline]);
    } catch (error) {
      throw classify(error);
    } finally {
      clearTimeout(timer);
    }
  }

  createUser(email: string, passwordHash: string): Promise<User | undefined> {
    return this.run(async () => {
      const [row] = await this.q.insertUser.execute({ email, hash: passwordHash, now: Date.now() });
      return row;
    });
  }

  findUserByEmail(email: string): Promise<UserWithHash | undefined> {
    return this.run(async () => (await this.q.userByEmail.execute({ email }))[0]);
  }

  tokenVersion(userId: number): Promise<number | undefined> {
    return this.run(() => this.accounts.tokenVersion(userId));
  }

  listUsers(): Promise<UserSummary[]> {
    return this.run(() => this.accounts.listUsers());
  }

  setPassword(email: string, passwordHash: string): Promise<boolean> {
    return this.run(() => this.accounts.setPassword(email, passwordHash));
  }

  removeUser(
    email: string,
    links: RemovedLinks,
  ): Promise<{ id: number; links: number } | undefined> {
    return this.run(() => this.accounts.removeUser(email, links));
  }

  createApiKey(key: NewApiKey, limit: number): Promise<ApiKey | typeof KEY_LIMIT_REACHED> {
    return this.run(() => this.accounts.createApiKey(key, limit));
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.run(() => this.accounts.listApiKeys(userId));
  }

  deleteApiKey(userId: number, id: number): Promise<boolean> {
    return this.run(() => this.accounts.deleteApiKey(userId, id));
  }

  findApiKey(secretHash: string): Promise<ApiKeyGrant | undefined> {
    return this.run(() => this.accounts.findApiKey(secretHash));
  }

  touchApiKey(id: number, at: number): Promise<void> {
    return this.run(() => this.accounts.touchApiKey(id, at));
  }

  totals(): Promise<StoreTotals> {
    return this.run(async () => {
      const [row]: StoreTotals[] = await this.client`
        SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals) AS links,
               (SELECT count(*)::float8 FROM users) AS users`;
      return row ?? { links: 0, users: 0 };
    });
  }

  /**
   * One transaction for the batch, and in it one INSERT for all its links (each takes
   * its code or not: the unique index decides, across instances too). The codes taken
   * are announced in the same statement, delivered when it commits, so other instances
   * stop believing them unknown. Owners with a quota are locked first (their users rows,
   * in id order, so two instances cannot deadlock) and their totals read, so concurrent
   * creates on any instance cannot pass the quota together.
   */
  createLinks(batch: readonly NewLink[]): Promise<CreatedLink[]> {
    const limited = [
      ...new Set(
        batch
          .filter((link) => (link.ownerLimit ?? 0) > 0 && link.userId !== null)
          .map((link) => link.userId as number),
      ),
    ].sort((a, b) => a - b);
    if (limited.length === 0)
      return this.run(() => this.insertLinks(this.client, batch, new Map()));
    return this.run(() =>
      this.client.begin(async (tx) => {
        await tx`SELECT id FROM users WHERE id IN ${tx(limited)} ORDER BY id FOR UPDATE`;
        const totals: { owner: number; links: number }[] =
          await tx`SELECT owner, links::float8 AS links FROM link_totals WHERE owner IN ${tx(limited)}`;
        const owned = new Map(limited.map((owner) => [owner, 0]));
        for (const row of totals) owned.set(row.owner, row.links);
        return this.insertLinks(tx, batch, owned);
      }),
    );
  }

  /**
   * Inserts the links that may be: a code already met earlier in the batch, or an owner
   * at the quota (counting the batch's earlier links as made), gives no insert. When a
   * link taken to count against the quota lost its code after all, the owner's refused
   * links are tried again one by one, so a lost code never costs another link its place.
   */
  private async insertLinks(
    sql: SQL,
    batch: readonly NewLink[],
    owned: Map<number, number>,
  ): Promise<CreatedLink[]> {
    const results: CreatedLink[] = new Array(batch.length).fill(undefined);
    const planned = new Map<number, number>(owned);
    const seen = new Set<string>();
    const tried: number[] = [];
    const refused: number[] = [];
    batch.forEach((link, i) => {
      if (seen.has(link.shortCode)) return;
      const limit = link.ownerLimit ?? 0;
      if (limit > 0 && link.userId !== null) {
        const count = planned.get(link.userId) ?? 0;
        if (count >= limit) {
          results[i] = LINK_LIMIT_REACHED;
          refused.push(i);
          return;
        }
        planned.set(link.userId, count + 1);
      }
      seen.add(link.shortCode);
      tried.push(i);
    });
    const made = await this.insertRows(
      sql,
      tried.map((i) => batch[i] as NewLink),
    );
    for (const i of tried) {
      const link = batch[i] as NewLink;
      const id = made.get(link.shortCode);
      if (id !== undefined) {
        results[i] = { ...toLink(link), id };
        if (link.userId !== null) owned.set(link.userId, (owned.get(link.userId) ?? 0) + 1);
      }
    }
    for (const i of refused) {
      const link = batch[i] as NewLink;
      const owner = link.userId as number;
      if ((owned.get(owner) ?? 0) >= (link.ownerLimit ?? 0)) continue;
      const id = (await this.insertRows(sql, [link])).get(link.shortCode);
      results[i] = id === undefined ? undefined : { ...toLink(link), id };
      if (id !== undefined) owned.set(owner, (owned.get(owner) ?? 0) + 1);
    }
    return results;
  }

  /**
   * One INSERT of links with distinct codes; the ids of those that took their code. The
   * same statement puts each link made in the outbox of its owner's webhooks that want
   * `link.created`.
   */
  private async insertRows(sql: SQL, links: readonly NewLink[]): Promise<Map<string, number>> {
    if (links.length === 0) return new Map();
    const codes = links.map((l) => l.shortCode);
    const now = Date.now();
    const rows: { id: number; short_code: string }[] = await sql`
      WITH added AS (
        INSERT INTO links (user_id, original_url, short_code, source, created_at, expires_at,
                           max_clicks, limited_clicks, password_hash)
        SELECT * FROM unnest(${links.map((l) => l.userId)}::int[], ${links.map((l) => l.originalUrl)}::text[],
                             ${codes}::text[], ${links.map((l) => l.source)}::text[],
                             ${links.map((l) => l.createdAt)}::bigint[],
                             ${links.map((l) => l.expiresAt ?? null)}::bigint[],
                             ${links.map((l) => l.maxClicks ?? null)}::int[],
                             ${links.map((l) => l.limitedClicks ?? 0)}::int[],
                             ${links.map((l) => l.passwordHash ?? null)}::text[])
        ON CONFLICT (short_code) DO NOTHING
        RETURNING id, short_code, user_id
      ), outbox AS (
        INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at)
        SELECT w.id, 'link.created', '{"id":' || a.id || p.tail, ${now}::bigint, ${now}::bigint
        FROM added a
        JOIN unnest(${codes}::text[], ${createdDataTails(links)}::text[]) AS p(code, tail)
          ON p.code = a.short_code
        JOIN webhooks w ON (w.user_id = a.user_id OR (w.user_id IS NULL AND a.user_id IS NULL))
          AND strpos(',' || w.events || ',', ${wantedNeedle('link.created')}) > 0
      )
      SELECT id, short_code, pg_notify(${LINKS_CHANNEL}, short_code) FROM added`;
    return new Map(rows.map((row) => [row.short_code, row.id]));
  }

  listLinks({ owner, limit, offset }: LinkQuery): Promise<LinkPage> {
    // One statement, so the page and its total come from one snapshot. The page is cut
    // from the index first and counts are summed for its rows only, so a deep OFFSET
    // skips index entries rather than counting the clicks of every skipped link. NULL
    // is PostgreSQL's "no limit".
    const rows = limit ?? null;
    return this.run(async () => {
      const [result]: { total: number; links: Link[] | null }[] =
        owner === null
          ? await this.client`
              SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals) AS total,
                     (SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
                        SELECT l.id, l.user_id AS "userId", l.original_url AS "originalUrl",
                               l.short_code AS "shortCode", l.created_at AS "createdAt",
                               (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                        FROM (SELECT id FROM links ORDER BY created_at DESC, id DESC
                              LIMIT ${rows} OFFSET ${offset}) page
                        JOIN links l ON l.id = page.id
                     ) p) AS links`
          : await this.client`
              SELECT (SELECT coalesce(sum(links), 0)::float8 FROM link_totals WHERE owner = ${owner}) AS total,
                     (SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) FROM (
                        SELECT l.id, l.user_id AS "userId", l.original_url AS "originalUrl",
                               l.short_code AS "shortCode", l.created_at AS "createdAt",
                               (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                        FROM (SELECT id FROM links WHERE user_id = ${owner}
                              ORDER BY created_at DESC, id DESC LIMIT ${rows} OFFSET ${offset}) page
                        JOIN links l ON l.id = page.id
                     ) p) AS links`;
      return { links: result?.links ?? [], total: result?.total ?? 0 };
    });
  }

  listLinksAfter({ owner, after, limit }: LinkChunkQuery): Promise<Link[]> {
    return this.run(async () => {
      const [result]: { links: Link[] | null }[] =
        owner === null
          ? await this.client`
              SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) AS links FROM (
                SELECT l.id, l.user_id AS "userId", l.original_url AS "originalUrl",
                       l.short_code AS "shortCode", l.created_at AS "createdAt",
                       (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                FROM links l WHERE (l.created_at, l.id) < (${after.createdAt}, ${after.id})
                ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit}
              ) p`
          : await this.client`
              SELECT json_agg(p ORDER BY p."createdAt" DESC, p.id DESC) AS links FROM (
                SELECT l.id, l.user_id AS "userId", l.original_url AS "originalUrl",
                       l.short_code AS "shortCode", l.created_at AS "createdAt",
                       (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id) AS clicks
                FROM links l WHERE l.user_id = ${owner} AND (l.created_at, l.id) < (${after.createdAt}, ${after.id})
                ORDER BY l.created_at DESC, l.id DESC LIMIT ${limit}
              ) p`;
      return result?.links ?? [];
    });
  }

  listLinkDetailsAfter({ owner, after, limit }: LinkChunkQuery): Promise<LinkDetail[]> {
    return this.run(async () =>
      owner === null
        ? await this.client.unsafe(
            `SELECT ${DETAIL_COLUMNS} FROM links l WHERE (l.created_at, l.id) < ($1, $2)
               ORDER BY l.created_at DESC, l.id DESC LIMIT $3`,
            [after.createdAt, after.id, limit],
          )
        : await this.client.unsafe(
            `SELECT ${DETAIL_COLUMNS} FROM links l
               WHERE l.user_id = $1 AND (l.created_at, l.id) < ($2, $3)
               ORDER BY l.created_at DESC, l.id DESC LIMIT $4`,
            [owner, after.createdAt, after.id, limit],
          ),
    );
  }

  /** Codes go in as one array: one statement and one index probe per code, whatever the batch. */
  findLinksByCodes(codes: readonly string[]): Promise<CodeHolder[]> {
    return this.run(
      async () =>
        await this.client`
        SELECT short_code AS "shortCode", user_id AS "userId", original_url AS "originalUrl",
               created_at::float8 AS "createdAt"
        FROM links WHERE short_code = ANY(${codes}::text[])`,
    );
  }

  findLinksCreatedAt(owner: number | null, times: readonly number[]): Promise<CodeHolder[]> {
    return this.run(async () =>
      // Two statements rather than IS NOT DISTINCT FROM, which no index serves.
      owner === null
        ? this.client`
              SELECT short_code AS "shortCode", user_id AS "userId",
                     original_url AS "originalUrl", created_at::float8 AS "createdAt"
              FROM links WHERE user_id IS NULL AND created_at = ANY(${times}::bigint[])`
        : this.client`
              SELECT short_code AS "shortCode", user_id AS "userId",
                     original_url AS "originalUrl", created_at::float8 AS "createdAt"
              FROM links WHERE user_id = ${owner} AND created_at = ANY(${times}::bigint[])`,
    );
  }

  findLinkByCode(code: string): Promise<LinkTarget | undefined> {
    return this.run(async () => {
      const [row]: LinkTarget[] = await this.client`
        SELECT id, user_id AS "userId", original_url AS "originalUrl", source,
               expires_at::float8 AS "expiresAt", max_clicks AS "maxClicks",
               limited_clicks AS "limitedClicks", password_hash AS "passwordHash"
        FROM links WHERE short_code = ${code}`;
      return row;
    });
  }

  findLinkDetail(code: string): Promise<LinkDetail | undefined> {
    return this.run(async () => {
      const [row]: LinkDetail[] = await this.client.unsafe(
        `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.short_code = $1`,
        [code],
      );
      return row;
    });
  }

  /**
   * The link's row is locked while its new state is worked out (a new max_clicks counts
   * from the clicks committed so far), and the change is announced in the transaction,
   * so every instance hears of it once it commits.
   */
  updateLink(id: number, changes: LinkChanges): Promise<LinkDetail | undefined> {
    return this.run(() =>
      this.client.begin(async (tx) => {
        const [current]: LinkDetail[] = await tx.unsafe(
          `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = $1 FOR UPDATE`,
          [id],
        );
        if (current === undefined) return undefined;
        const next = applyChanges(current, changes);
        await tx`
          UPDATE links SET original_url = ${next.originalUrl}, expires_at = ${next.expiresAt},
                 max_clicks = ${next.maxClicks}, limited_clicks = ${next.limitedClicks},
                 password_hash = ${next.passwordHash}
          WHERE id = ${id}`;
        await reportLinkEvent(tx, 'link.updated', next, Date.now());
        await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${next.shortCode})`;
        return next;
      }),
    );
  }

  /**
   * The link, its click records, counts and rollups, in one transaction; announced. The
   * link is read first (and locked): a webhook is told of it as it was.
   */
  deleteLink(id: number): Promise<boolean> {
    return this.run(() =>
      this.client.begin(async (tx) => {
        const [link]: LinkDetail[] = await tx.unsafe(
          `SELECT ${DETAIL_COLUMNS} FROM links l WHERE l.id = $1 FOR UPDATE`,
          [id],
        );
        if (link === undefined) return false;
        await reportLinkEvent(tx, 'link.deleted', link, Date.now());
        const [gone]: { short_code: string }[] =
          await tx`DELETE FROM links WHERE id = ${id} RETURNING short_code`;
        if (gone === undefined) return false;
        for (const table of schema.LINK_CLICK_TABLES) {
          await tx.unsafe(`DELETE FROM ${table} WHERE link_id = $1`, [id]);
        }
        await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${gone.short_code})`;
        return true;
      }),
    );
  }

  /**
   * The hot write: the whole batch in one statement, so one round trip and one commit.
   * The records go in as arrays (unnest), and the same statement adds each link's
   * clicks to one shard of its count, chosen at random per batch, so instances
   * committing at once rarely touch the same counter row; rows are locked in link
   * order, so two batches can never deadlock.
   */
  recordClicks(batch: readonly Click[]): Promise<RefusedClicks> {
    this.clicksWritten += batch.length;
    let limited = false;
    for (let i = 0; i < batch.length; i++) if ((batch[i] as Click).limited) limited = true;
    if (!limited) {
      const params = this.clickParams(batch);
      return this.run(async () => {
        await this.client.unsafe(RECORD_CLICKS, params);
        return undefined;
      });
    }
    return this.run(() => this.client.begin((tx) => this.recordLimited(tx, batch)));
  }

  /** The same statement as recordClicks: PostgreSQL's sequence and sharded counts serve any writer. */
  importClicks(batch: readonly Click[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    const params = this.clickParams(batch);
    return this.run(async () => {
      await this.client.unsafe(RECORD_CLICKS, params);
    });
  }

  /** The parameters of RECORD_CLICKS for a batch. */
  private clickParams(batch: readonly Click[]): unknown[] {
    const n = batch.length;
    const linkIds = new Array<number>(n);
    const sources = new Array<string | null>(n);
    const querySources = new Array<string | null>(n);
    const referrers = new Array<string | null>(n);
    const userAgents = new Array<string | null>(n);
    const times = new Array<number>(n);
    const countries = new Array<string | null>(n);
    const perLink = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const c = batch[i] as Click;
      linkIds[i] = c.linkId;
      sources[i] = c.source;
      querySources[i] = c.querySource;
      referrers[i] = c.referrer;
      userAgents[i] = c.userAgent;
      times[i] = c.createdAt;
      countries[i] = c.country;
      perLink.set(c.linkId, (perLink.get(c.linkId) ?? 0) + 1);
    }
    // Counters in link order, so that two batches can never deadlock on them.
    const links = [...perLink.keys()].sort((a, b) => a - b);
    const counts = links.map((id) => perLink.get(id) as number);
    this.shard = (this.shard + 1) % COUNT_SHARDS;
    const params: unknown[] = [linkIds, sources, querySources, referrers, userAgents, times];
    params.push(countries, this.shard, links, counts, Date.now());
    return params;
  }

  /**
   * A batch with clicks of limited links: their rows are locked (in id order, as the
   * counters are, so batches cannot deadlock), each keeps as many clicks as its
   * max_clicks leaves room for, and the rest are refused. The lock makes the limit
   * exact across instances: the next batch reads the room this one left.
   */
  private async recordLimited(tx: SQL, batch: readonly Click[]): Promise<RefusedClicks> {
    const ids = [...new Set(batch.filter((c) => c.limited).map((c) => c.linkId))].sort(
      (a, b) => a - b,
    );
    const rows: { id: number; max: number | null; used: number }[] = await tx`
      SELECT id, max_clicks AS max, limited_clicks AS used FROM links
      WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
    // A link gone since it was looked up has no row, and no room: its clicks are refused.
    const room = new Map<number, number>();
    for (const row of rows) room.set(row.id, row.max === null ? Infinity : row.max - row.used);
    const { stored, refused, counted } = shareLimits(batch, (linkId) => room.get(linkId) ?? 0);
    if (counted.size > 0) {
      await tx`
        UPDATE links SET limited_clicks = limited_clicks + v.n
        FROM unnest(${[...counted.keys()]}::int[], ${[...counted.values()]}::int[]) AS v(id, n)
        WHERE links.id = v.id`;
    }
    if (stored.length > 0) await tx.unsafe(RECORD_CLICKS, this.clickParams(stored));
    return refused;
  }

  linkTraffic(linkId: number, fromDay: number, toDay: number): Promise<LinkTraffic> {
    return this.run(() => this.analytics.traffic(this.client, linkId, fromDay, toDay));
  }

  clickRows(linkId: number, afterId: number, limit: number): Promise<ClickRow[]> {
    return this.run(() => this.analytics.rows(this.client, linkId, afterId, limit));
  }

  async rollUpClicks(): Promise<number> {
    // After one under way, whose clicks are locked until it commits.
    await this.moving?.catch(() => {});
    return this.moveSteps(Infinity);
  }

  /** Moves the log a step at a time, at most `steps`, until a step finds less than a full one. */
  private async moveSteps(steps: number): Promise<number> {
    let moved = 0;
    for (let i = 0; i < steps && !this.closed; i++) {
      const n = await this.run(() => this.analytics.step(this.client, ANALYTICS_STEP));
      moved += n;
      if (n < ANALYTICS_STEP) break;
    }
    return moved;
  }

  async pruneClickRecords(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await this.run(() => this.analytics.prune(this.client, before, RETENTION_SLICE));
      removed += n;
      if (n < RETENTION_SLICE) return removed;
    }
  }

  /** The analytics rollup each second, and retention each hour (and soon after start). */
  startBackground(intervalMs: number, retentionDays: number): void {
    if (intervalMs > 0) {
      const timer = setInterval(() => {
        if (this.moving !== undefined || this.closed) return;
        const busy = (this.clicksWritten * 1000) / intervalMs > BUSY_CLICKS;
        this.clicksWritten = 0;
        this.moving = this.moveClicks(busy ? 1 : IDLE_STEPS).finally(() => {
          this.moving = undefined;
        });
      }, intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
    this.stopRetention = scheduleRetention(retentionDays, (before) => {
      if (this.closed) return;
      this.pruneClickRecords(before).then(
        (n) => {
          if (n > 0) {
            this.log.info(`kurz: removed ${n} click records older than ${retentionDays} days`);
          }
        },
        () => {},
      );
    });
  }

  private async moveClicks(steps: number): Promise<void> {
    try {
      await this.moveSteps(steps);
    } catch {
      // Unavailable, or a deadlock with another instance: the clicks stay in the log.
    }
  }

  createWebhook(hook: NewWebhook, limit: number): Promise<Webhook | typeof WEBHOOK_LIMIT_REACHED> {
    return this.run(() => this.webhooks.create(hook, limit));
  }

  listWebhooks(owner: number | null): Promise<Webhook[]> {
    return this.run(() => this.webhooks.list(owner));
  }

  findWebhook(id: number, owner: number | null): Promise<Webhook | undefined> {
    return this.run(() => this.webhooks.find(id, owner));
  }

  deleteWebhook(id: number, owner: number | null): Promise<boolean> {
    return this.run(() => this.webhooks.remove(id, owner));
  }

  listDeliveries(webhookId: number, limit: number): Promise<DeliveryRecord[]> {
    return this.run(() => this.webhooks.deliveries(webhookId, limit));
  }

  addDelivery(
    webhookId: number,
    type: DeliveryType,
    payload: string,
    now: number,
  ): Promise<DeliveryRecord> {
    return this.run(() => this.webhooks.add(webhookId, type, payload, now));
  }

  claimDeliveries(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return this.run(() => this.webhooks.claim(now, limit, leaseMs));
  }

  finishDelivery(outcome: DeliveryOutcome): Promise<void> {
    return this.run(() => this.webhooks.finish(outcome));
  }

  async pruneDeliveries(before: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const n = await this.run(() => this.webhooks.prune(before, RETENTION_SLICE));
      removed += n;
      if (n < RETENTION_SLICE) return removed;
    }
  }

  async setting(key: string, make: () => string): Promise<string> {
    return this.run(async () => {
      const [existing] = await this.q.settingByKey.execute({ key });
      if (existing) return existing.value;
      // Another instance may store one at the same moment: the first insert wins and
      // both read back the same value.
      await this.q.insertSetting.execute({ key, value: make() });
      const [stored] = await this.q.settingByKey.execute({ key });
      if (!stored) throw new Error(`setting ${key} could not be stored`);
      return stored.value;
    });
  }

  replaceSetting(key: string, value: string): Promise<void> {
    return this.run(async () => {
      await this.q.upsertSetting.execute({ key, value });
    });
  }

  /** A read on a pooled connection: the server answers. */
  ping(): Promise<void> {
    return this.run(async () => {
      await this.client`SELECT 1`;
    });
  }

  /**
   * Calls `changed` with the code of each link created (later also edited or deleted)
   * by any instance on this database, this one's own included, and `reset` when notices
   * may have been missed (the listening connection was lost and is back), so that
   * caches forget what they believed.
   */
  watchLinks(changed: LinkChanged, reset: () => void): () => void {
    this.listeners.add(changed);
    this.resetListeners.add(reset);
    return () => {
      this.listeners.delete(changed);
      this.resetListeners.delete(reset);
    };
  }

  /**
   * Listens on LINKS_CHANNEL, and on this instance's settle channel, on one connection
   * of their own. Bun reconnects it when it drops and listens again; notices sent
   * meanwhile are lost, so each reconnect tells the reset listeners.
   */
  async listen(): Promise<void> {
    let first = true;
    this.subscriptions.push(
      await this.client.listen(
        LINKS_CHANNEL,
        (code) => {
          for (const listener of this.listeners) listener(code);
        },
        () => {
          if (first) {
            first = false;
            return;
          }
          this.log.info('kurz: listening to other instances again; link caches emptied');
          for (const reset of this.resetListeners) reset();
        },
      ),
    );
    this.subscriptions.push(
      await this.client.listen(this.settleChannel, (token) => {
        this.markers.get(token)?.();
        this.markers.delete(token);
      }),
    );
  }

  /**
   * PostgreSQL delivers notices to a listening connection in commit order, whatever
   * their channel. So a marker this instance sends itself, once heard back, comes after
   * every link notice committed before the marker was sent: by then this instance's
   * cache has been told of them. Calls made while a marker waits to be sent share it;
   * a marker sent before a call began cannot serve it (the change it must see may
   * have committed after that marker), so each call joins the next one.
   */
  settle(): Promise<void> {
    if (this.nextMarker !== undefined) return this.nextMarker.done;
    const token = String(++this.markerCount);
    const done = this.run(
      () =>
        new Promise<void>((resolve, reject) => {
          this.markers.set(token, resolve);
          // Sent after this turn, so that every call of this turn shares it.
          setImmediate(() => {
            if (this.nextMarker?.token === token) this.nextMarker = undefined;
            this.client`SELECT pg_notify(${this.settleChannel}, ${token})`.then(
              () => {},
              (error: unknown) => {
                this.markers.delete(token);
                reject(error);
              },
            );
          });
        }),
    ).finally(() => this.markers.delete(token));
    this.nextMarker = { token, done };
    return done;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.stopRetention();
    await this.moving?.catch(() => {});
    try {
      for (const subscription of this.subscriptions) await subscription.unlisten();
    } catch {
      // The connection is gone already.
    }
    await this.client.close({ timeout: 5 });
  }
}
