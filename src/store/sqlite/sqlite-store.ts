// The SQLite implementation of Store: its areas (accounts.ts, links.ts, domains.ts, click-log.ts,
// analytics.ts, tags.ts, webhooks.ts, settings.ts, moderation.ts, reports.ts, tls.ts), each a set of
// prepared statements on one connection, composed behind the guards of open.ts; and the click pipeline
// (clicks/pipeline.ts) run with this engine's steps. Nothing builds SQL per request.

import type { Database } from 'bun:sqlite';
import { ClickPipeline } from '../../clicks/pipeline.ts';
import { StoreUnavailableError } from '../../domain/errors.ts';
import { guardedWrites } from '../guarded.ts';
import type { LinkChanged, Store, StoreTotals } from '../store.ts';
import { sqliteAccounts } from './accounts.ts';
import { SqliteAnalytics } from './analytics.ts';
import type { ClickRollup } from './click-counts.ts';
import { sqliteClickSteps, sqliteClicks } from './click-log.ts';
import { sqliteDomains } from './domains.ts';
import { sqliteLinkSearch } from './link-search.ts';
import { sqliteLinks } from './links.ts';
import { sqliteModeration } from './moderation.ts';
import { sqliteOidcAccounts } from './oidc-accounts.ts';
import {
  classify,
  isBusyCause,
  openDatabase,
  type SqliteOptions,
  sqliteGuards,
  watchDataVersion,
} from './open.ts';
import { sqliteReports } from './reports.ts';
import { sqliteSettings } from './settings.ts';
import { SqliteTags } from './tags.ts';
import { sqliteTls } from './tls.ts';
import { sqliteWebhooks } from './webhooks.ts';

export type { SqliteOptions };

export type SqliteStore = Store & {
  readonly kind: 'sqlite';
  /** The raw handle, for tests and tools that inspect what the API does not show. */
  readonly sqlite: Database;
  /** Folds the click log into counts, in slices on the event loop. */
  readonly rollup: ClickRollup;
  releaseDeliveries(now: number): Promise<number>;
};

/**
 * The pipeline's pace on SQLite. A slice of 64 clicks takes about 0.3 ms on the event
 * loop; a cycle may take half of each second while redirects are few, 40 ms of it in a
 * flood with a large backlog, none in a flood (see clicks/pipeline.ts).
 */
const CADENCE = {
  moveSlice: 64,
  drainSlice: 1000,
  pruneSlice: 1000,
  budgets: { idle: 500, backlog: 40, flood: 0 },
};
/** Outbox messages removed per statement. */
const DELIVERY_SLICE = 1000;

/** Opens (creating when needed) and migrates a SQLite database and its counts file. */
export function openSqlite(options: SqliteOptions): SqliteStore {
  const opened = openDatabase(options);
  const { sqlite, rollup, writes, log } = opened;
  const guards = sqliteGuards(writes);
  const { read, write } = guards;
  const tags = new SqliteTags(sqlite);
  const analytics = new SqliteAnalytics(sqlite, tags);
  const hooks = sqliteWebhooks(sqlite);
  const accounts = sqliteAccounts(sqlite);
  const oidcAccounts = sqliteOidcAccounts(sqlite);
  const settings = sqliteSettings(sqlite);
  const links = sqliteLinks(sqlite, hooks, tags);
  const search = sqliteLinkSearch(sqlite);
  const moderation = sqliteModeration(sqlite, hooks, () => {
    for (const changed of blocklistWatchers) changed();
  });
  const reports = sqliteReports(sqlite);
  // This process's own domain changes are told at once; another's through data_version.
  const domainWatchers = new Set<() => void>();
  const blocklistWatchers = new Set<() => void>();
  const domains = sqliteDomains(sqlite, links.removeLink, () => {
    for (const changed of domainWatchers) changed();
  });
  const certificateWatchers = new Set<() => void>();
  const tls = sqliteTls(sqlite, () => {
    for (const changed of certificateWatchers) changed();
  });
  const steps = sqliteClickSteps(rollup, analytics);
  const pipeline = new ClickPipeline(
    // Retention's removals are writes: the guard refuses them as it refuses any.
    { ...steps, prune: (before, limit) => write(() => steps.prune(before, limit)) },
    { ...CADENCE, intervalMs: options.moveClicks === false ? 0 : opened.intervalMs },
    log,
  );
  const clicks = sqliteClicks(sqlite, rollup, hooks, (n) => pipeline.wrote(n));
  const totals = sqlite.prepare<StoreTotals, []>(
    `SELECT (SELECT coalesce(sum(links), 0) FROM link_totals) AS links,
            (SELECT count(*) FROM users) AS users`,
  );
  const watchers = new Set<() => void>();
  pipeline.start(options.clickRetentionDays ?? 0);

  return {
    kind: 'sqlite',
    sqlite,
    rollup,
    ...guardedWrites(accounts.operations, read, write, [
      'createUser',
      'setPassword',
      'removeUser',
      'createApiKey',
      'deleteApiKey',
      'touchApiKey',
    ]),
    ...guardedWrites(oidcAccounts.operations, read, write, ['linkOidc', 'createOidcUser']),
    ...guardedWrites(links.operations, read, write, ['createLinks', 'updateLink', 'deleteLink']),
    ...guardedWrites(search.operations, read, write, []),
    ...guardedWrites(moderation.operations, read, write, [
      'setUserAdmin',
      'setUserDisabled',
      'setLinkDisabled',
      'addBlockedHost',
      'removeBlockedHost',
    ]),
    ...guardedWrites(reports.operations, read, write, ['createReport', 'resolveReport']),
    ...guardedWrites(domains.operations, read, write, [
      'createDomain',
      'updateDomain',
      'deleteDomain',
    ]),
    ...guardedWrites(clicks.operations, read, write, ['recordClicks', 'importClicks']),
    ...guardedWrites(tls.operations, read, write, [
      'addAcmeAccount',
      'setAcmeAccountUrl',
      'saveCertificate',
      'addChallenge',
      'removeChallenge',
      'takeOrderLease',
      'releaseOrderLease',
    ]),
    ...guardedWrites(hooks.operations, read, write, [
      'createWebhook',
      'deleteWebhook',
      'addDelivery',
      'claimDeliveries',
      'releaseDeliveries',
      'finishDelivery',
    ]),
    linkTraffic: (linkId, fromDay, toDay) => read(() => analytics.traffic(linkId, fromDay, toDay)),
    clickRows: (linkId, afterId, limit) => read(() => analytics.rows(linkId, afterId, limit)),
    listTags: (owner) => read(() => tags.list(owner)),
    tagTraffic: (tag, owner, fromDay, toDay) =>
      read(() => tags.traffic(tag, owner, fromDay, toDay)),
    totals: () => read(() => totals.get() ?? { links: 0, users: 0 }),

    async rollUpClicks(): Promise<number> {
      // The maintenance thread holds the counts file for a moment while it checkpoints.
      for (let attempt = 0; ; attempt++) {
        try {
          await write(() => rollup.flush());
          return await pipeline.moveAll();
        } catch (error) {
          const busy = error instanceof StoreUnavailableError && isBusyCause(error.cause);
          if (!busy || attempt >= 50) throw error;
          await Bun.sleep(10);
        }
      }
    },

    pruneClickRecords: (before) => pipeline.pruneAll(before),

    pruneDeliveries: (before) =>
      write(() => {
        let removed = 0;
        for (;;) {
          const n = hooks.prune(before, DELIVERY_SLICE);
          removed += n;
          if (n < DELIVERY_SLICE) return removed;
        }
      }),

    async setting(key, make) {
      const existing = await read(() => settings.read(key));
      if (existing !== undefined) return existing;
      return write(() => settings.make(key, make()));
    },

    replaceSetting: (key, value) => write(() => settings.replace(key, value)),

    /**
     * One kurz serves a SQLite database, but the operator's tools (`kurz user`, `kurz
     * import`) may write to it meanwhile: then whatever the caller cached may be stale,
     * and it is told to forget all (reset). This store's own commits leave it as it is.
     */
    watchLinks(_changed: LinkChanged, reset: () => void): () => void {
      const unwatch = watchDataVersion(sqlite, reset);
      const stop = () => {
        if (watchers.delete(stop)) unwatch();
      };
      watchers.add(stop);
      return stop;
    },

    watchBlockedHosts(changed: () => void): () => void {
      blocklistWatchers.add(changed);
      const unwatch = watchDataVersion(sqlite, changed);
      const stop = () => {
        blocklistWatchers.delete(changed);
        if (watchers.delete(stop)) unwatch();
      };
      watchers.add(stop);
      return stop;
    },

    watchDomains(changed: () => void): () => void {
      domainWatchers.add(changed);
      const unwatch = watchDataVersion(sqlite, changed);
      const stop = () => {
        domainWatchers.delete(changed);
        if (watchers.delete(stop)) unwatch();
      };
      watchers.add(stop);
      return stop;
    },

    /** This process is the file's only server: it hears its own saves. */
    watchCertificates(changed: () => void): () => void {
      certificateWatchers.add(changed);
      return () => certificateWatchers.delete(changed);
    },

    /**
     * Reads, then checks the file (identity, writability, free space) and a recent write
     * failure. The real write that proves writability is /health's (health/health-check.ts).
     */
    async ping(): Promise<void> {
      await read(() => settings.ping());
      if (writes === undefined) return;
      const refusal = writes.refusal();
      if (refusal !== undefined) throw new StoreUnavailableError({ cause: refusal });
      if (writes.failing) throw new StoreUnavailableError({ cause: 'the last write failed' });
    },

    /** Closes for good: later calls fail as unavailable. The WALs are checkpointed into their files. */
    async close(): Promise<void> {
      if (guards.closed) return;
      guards.close();
      for (const stop of [...watchers]) stop();
      writes?.stop();
      await pipeline.stop();
      await opened.stop();
      try {
        // A handle with live statements would linger; finalize ours so the files really close.
        analytics.finalize();
        tags.finalize();
        for (const area of [
          links,
          search,
          moderation,
          reports,
          domains,
          accounts,
          oidcAccounts,
          settings,
          tls,
        ])
          area.finalize();
        hooks.finalize();
        clicks.finalize();
        totals.finalize();
        sqlite.run('PRAGMA main.wal_checkpoint(TRUNCATE)');
        sqlite.run('PRAGMA counts.wal_checkpoint(TRUNCATE)');
        sqlite.close(true);
      } catch (error) {
        throw classify(error);
      }
    },
  };
}
