// The PostgreSQL implementation of Store, over Bun's built-in client (Bun.SQL). Several
// kurz instances may share one database: every promise the store makes (exact counts,
// one winner per code, the first token key stored) is kept by PostgreSQL itself, never
// by memory of one process. Its areas (accounts.ts, links.ts, domains.ts, click-log.ts,
// analytics.ts, tags.ts, webhooks.ts, settings.ts, moderation.ts, reports.ts, notices.ts,
// search-upkeep.ts, tls.ts) are composed here, each operation held to the deadline of open.ts; the click pipeline (clicks/pipeline.ts)
// runs with this engine's steps.

import type { SQL } from 'bun';
import { ClickPipeline } from '../../clicks/pipeline.ts';
import { consoleLogger } from '../../logger.ts';
import { guarded } from '../guarded.ts';
import type { Store } from '../store.ts';
import { PostgresAccounts } from './accounts.ts';
import { PostgresAnalytics } from './analytics.ts';
import { PostgresClicks, postgresClickSteps } from './click-log.ts';
import { PostgresDomains } from './domains.ts';
import { PostgresLinkSearch } from './link-search.ts';
import { PostgresLinks } from './links.ts';
import { PostgresModeration } from './moderation.ts';
import { LINKS_CHANNEL, PostgresNotices } from './notices.ts';
import { PostgresOidcAccounts } from './oidc-accounts.ts';
import { classify, connect, deadline, type PostgresOptions } from './open.ts';
import { PostgresReports } from './reports.ts';
import { TrigramUpkeep } from './search-upkeep.ts';
import { PostgresSettings } from './settings.ts';
import { PostgresTags } from './tags.ts';
import { PostgresTls } from './tls.ts';
import { PostgresWebhooks, pruneDeliveries } from './webhooks.ts';

export type { PostgresOptions };

export type PostgresStore = Store & {
  readonly kind: 'postgres';
  /** The pool, for tests and tools that inspect what the API does not show. */
  readonly client: SQL;
  /** The merges of the trigram indexes' pending lists, for tests. */
  readonly searchUpkeep: TrigramUpkeep;
};

/**
 * The pipeline's pace on PostgreSQL: a step moves 2,000 clicks in one transaction off
 * the event loop; idle, steps run until the log is empty; in a flood, one step a
 * second (the log grows and is emptied once it eases), more past a large backlog.
 */
const CADENCE = {
  moveSlice: 2000,
  drainSlice: 2000,
  pruneSlice: 5000,
  budgets: { idle: 1000, backlog: 40, flood: 1 },
};
/** Outbox messages removed per statement. */
const DELIVERY_SLICE = 5000;
const DEFAULT_ANALYTICS_INTERVAL_MS = 1000;

/** Opens the pool, applies migrations (one instance at a time) and starts listening. */
export async function openPostgres(options: PostgresOptions): Promise<PostgresStore> {
  const log = options.log ?? consoleLogger;
  const { client, deadlineMs } = await connect(options);
  let closed = false;
  const run = deadline(deadlineMs, () => closed);
  const analytics = new PostgresAnalytics();
  const steps = postgresClickSteps(client, analytics);
  const pipeline = new ClickPipeline(
    {
      move: (limit) => run(() => steps.move(limit)),
      backlog: () => run(() => steps.backlog()),
      prune: (before, limit) => run(() => steps.prune(before, limit)),
    },
    { ...CADENCE, intervalMs: options.analyticsIntervalMs ?? DEFAULT_ANALYTICS_INTERVAL_MS },
    log,
  );
  const notices = new PostgresNotices(client, log, run);
  const upkeep = new TrigramUpkeep(client, log);
  try {
    await notices.listen();
  } catch (error) {
    await client.close({ timeout: 0 });
    throw classify(error);
  }
  pipeline.start(options.clickRetentionDays ?? 0);

  return {
    kind: 'postgres',
    client,
    searchUpkeep: upkeep,
    // Two batches in flight per writer (clicks, links) when the pool allows: measured on
    // one instance (bench/postgres.ts), one at a time waits on every WAL flush (37,500
    // redirects/s, 32 clicks a batch), two share them (40,800/s), and four gain nothing
    // more (41,100/s) but make smaller batches, so more commits and more server CPU
    // per click (13.3 µs against 11.3), which several instances would feel.
    writeConcurrency: Math.max(1, Math.min(2, Math.floor(options.pool / 2))),
    ...guarded(new PostgresAccounts(client, LINKS_CHANNEL), run),
    ...guarded(new PostgresOidcAccounts(client), run),
    ...guarded(new PostgresLinks(client, () => upkeep.created()), run),
    ...guarded(new PostgresLinkSearch(client), run),
    ...guarded(new PostgresModeration(client), run),
    ...guarded(new PostgresDomains(client), run),
    ...guarded(new PostgresClicks(client, (n) => pipeline.wrote(n)), run),
    ...guarded(new PostgresWebhooks(client), run),
    ...guarded(new PostgresSettings(client), run),
    ...guarded(new PostgresReports(client), run),
    ...guarded(new PostgresTls(client), run),
    linkTraffic: (linkId, fromDay, toDay) =>
      run(() => analytics.traffic(client, linkId, fromDay, toDay)),
    clickRows: (linkId, afterId, limit) =>
      run(() => analytics.rows(client, linkId, afterId, limit)),
    ...guarded(new PostgresTags(client), run),
    rollUpClicks: () => pipeline.moveAll(),
    pruneClickRecords: (before) => pipeline.pruneAll(before),
    async pruneDeliveries(before) {
      let removed = 0;
      for (;;) {
        const n = await run(() => pruneDeliveries(client, before, DELIVERY_SLICE));
        removed += n;
        if (n < DELIVERY_SLICE) return removed;
      }
    },
    watchLinks: (changed, reset) => notices.watchLinks(changed, reset),
    watchDomains: (changed) => notices.watchDomains(changed),
    watchBlockedHosts: (changed) => notices.watchBlocklist(changed),
    watchCertificates: (changed) => notices.watchCertificates(changed),
    settle: () => notices.settle(),
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      upkeep.stop();
      await pipeline.stop();
      await notices.close();
      await client.close({ timeout: 5 });
    },
  };
}
