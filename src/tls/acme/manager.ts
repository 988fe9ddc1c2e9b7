// --tls auto: keeps a valid certificate for every name kurz serves (--base-url's host and
// each short domain's) in the CertificateSet the HTTPS listener reads. At start it serves
// what the store kept; then it orders what is missing, one order per name (so one name
// whose DNS is wrong does not keep the others from their certificates), renews each one
// when it is due (schedule.ts), and tries a failed one again after a delay that doubles
// up to six hours. A domain added at run time, on any instance, is ordered at once.
// On a database several instances share, one orders at a time (the store's lease) and
// the others load what it saved when they hear of it (watchCertificates). Nothing here
// throws into kurz: every failure is logged with the ACME server's reason and counted.

import type { TlsSettings } from '../../config/config.ts';
import type { Logger } from '../../logger.ts';
import type { Store } from '../../store/store.ts';
import type { StoredCertificate } from '../../store/tls.ts';
import type { CertificateSet, ServedCertificate } from '../certificates.ts';
import type { ChallengeResponses } from '../challenges.ts';
import { certificateNames } from './names.ts';
import { AcmeOrderer, type OrdererStore, reasonOf } from './orderer.ts';
import { type Backoff, DEFAULT_BACKOFF, needsOrder, renewalTime, retryDelay } from './schedule.ts';

export type ManagerStore = OrdererStore &
  Pick<
    Store,
    | 'listCertificates'
    | 'certificate'
    | 'saveCertificate'
    | 'takeOrderLease'
    | 'releaseOrderLease'
    | 'watchCertificates'
  >;

/** Orders since start, by outcome (kurz_acme_orders_total). */
export interface AcmeOrderCounts {
  issued: number;
  failed: number;
}

export interface NameStatus {
  name: string;
  /** When the certificate served for it stops being valid; undefined: none yet. */
  notAfter: number | undefined;
  /** Failed orders in a row. */
  failures: number;
  /** When the next order is due after a failure; undefined: none failed. */
  retryAt: number | undefined;
  /** The last failure's reason, as the ACME server gave it. */
  lastError: string | undefined;
}

export interface AcmeStatus {
  names: NameStatus[];
  orders: AcmeOrderCounts;
}

export interface AcmeManagerOptions {
  settings: Pick<TlsSettings, 'acmeDirectory' | 'acmeEmail' | 'acmeCaFile'>;
  store: ManagerStore;
  certificates: CertificateSet;
  challenges: ChallengeResponses;
  /** The hosts kurz serves (hostname[:port]); those no certificate can name are skipped. */
  names: () => string[];
  /** Calls its listener whenever `names` may have changed; returns what stops it. */
  onNamesChange: (listener: () => void) => () => void;
  log: Logger;
  /** Where the orders are counted (the metrics read it); a new one when not given. */
  counts?: AcmeOrderCounts;
  now?: () => number;
  /** Delays between attempts for a name whose orders fail. */
  backoff?: Backoff;
  /** How often the names are looked at besides the moments something is due (12 h). */
  checkIntervalMs?: number;
  /** How long the lease on ordering lasts unless extended (10 min): a dead holder's blocks no longer. */
  leaseMs?: number;
  /** The wait before trying for the lease again while another instance holds it (1 min). */
  leaseRetryMs?: number;
}

const HOUR_MS = 3_600_000;
/** The shortest wait between two rounds, so nothing spins. */
const MIN_WAIT_MS = 50;
/** How long stop() waits for an order under way. */
const STOP_WAIT_MS = 5_000;

/** What the HTTPS listener serves of a certificate the store keeps. */
function served(stored: StoredCertificate): ServedCertificate {
  return {
    name: stored.name,
    cert: stored.certPem,
    key: stored.keyPem,
    notBefore: new Date(stored.notBefore),
    notAfter: new Date(stored.notAfter),
  };
}

export class AcmeManager {
  readonly counts: AcmeOrderCounts;
  private readonly orderer: AcmeOrderer;
  private readonly now: () => number;
  private readonly backoff: Backoff;
  private readonly checkIntervalMs: number;
  private readonly leaseMs: number;
  private readonly leaseRetryMs: number;
  /** This instance's name for the lease. */
  private readonly holder = crypto.randomUUID();
  private readonly failures = new Map<string, { count: number; retryAt: number; reason: string }>();
  private readonly skippedLogged = new Set<string>();
  /** The directory each served certificate came from: one from another is replaced. */
  private readonly issuedBy = new Map<string, string>();
  private readonly unsubscribe: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** While another instance holds the lease: when to try for it again. */
  private leaseRetryAt = 0;
  private leaseWaitLogged = false;
  /** Failed rounds in a row (the store unavailable), for their own back-off. */
  private roundFailures = 0;
  private roundRetryAt = 0;

  private constructor(private readonly options: AcmeManagerOptions) {
    this.counts = options.counts ?? { issued: 0, failed: 0 };
    this.now = options.now ?? Date.now;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.checkIntervalMs = options.checkIntervalMs ?? 12 * HOUR_MS;
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
    this.leaseRetryMs = options.leaseRetryMs ?? 60_000;
    this.orderer = new AcmeOrderer(options.settings, options.store, options.challenges, this.now);
  }

  /**
   * Serves the certificates the store kept, then orders what is missing in the
   * background; resolves once the kept ones are served.
   */
  static async start(options: AcmeManagerOptions): Promise<AcmeManager> {
    const manager = new AcmeManager(options);
    const names = manager.wanted();
    const kept = await manager.loadStored();
    options.log.info(
      `kurz: certificates from ${options.settings.acmeDirectory} for ${names.join(', ') || 'no name'} (${kept} kept in the database)`,
      { acme_directory: options.settings.acmeDirectory, names: names.join(' ') },
    );
    manager.unsubscribe.push(
      options.onNamesChange(() => {
        manager.dropUnwanted();
        manager.wake();
      }),
      options.store.watchCertificates(() => {
        manager.loadStored().then(
          () => manager.wake(),
          () => manager.wake(),
        );
      }),
    );
    manager.wake();
    return manager;
  }

  /** What each name has, for logs and metrics. */
  status(): AcmeStatus {
    return {
      names: this.wanted().map((name) => {
        const failure = this.failures.get(name);
        return {
          name,
          notAfter: this.options.certificates.get(name)?.notAfter.getTime(),
          failures: failure?.count ?? 0,
          retryAt: failure?.retryAt,
          lastError: failure?.reason,
        };
      }),
      orders: { ...this.counts },
    };
  }

  /**
   * Stops ordering. An order under way is waited for a few seconds at most (polling a
   * slow ACME server may take minutes); one that ends later is dropped, its lease left
   * to run out.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const stop of this.unsubscribe) stop();
    let timeout: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.running,
      new Promise((resolve) => {
        timeout = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timeout);
    this.orderer.close();
  }

  /** The names wanted now; a host left out is logged once, with the reason. */
  private wanted(): string[] {
    const { names, skipped } = certificateNames(this.options.names());
    for (const { host, reason } of skipped) {
      if (this.skippedLogged.has(host)) continue;
      this.skippedLogged.add(host);
      this.options.log.info(`kurz: no certificate for ${host}: ${reason}`, { host });
    }
    return names;
  }

  /**
   * Serves every kept certificate of a wanted name that is better than the one served:
   * any rather than none, one of this directory rather than another's, a later one.
   */
  private async loadStored(): Promise<number> {
    const names = new Set(this.wanted());
    const directory = this.options.settings.acmeDirectory;
    let kept = 0;
    for (const stored of await this.options.store.listCertificates()) {
      if (!names.has(stored.name)) continue;
      kept++;
      const current = this.options.certificates.get(stored.name);
      const ours = stored.directory === directory;
      const servedOurs = this.issuedBy.get(stored.name) === directory;
      if (
        current === undefined ||
        (ours && !servedOurs) ||
        (ours === servedOurs && current.notAfter.getTime() < stored.notAfter)
      ) {
        this.serve(stored);
      }
    }
    return kept;
  }

  private serve(stored: StoredCertificate): void {
    this.options.certificates.put(served(stored));
    this.issuedBy.set(stored.name, stored.directory);
    if (stored.directory === this.options.settings.acmeDirectory) this.failures.delete(stored.name);
  }

  /** Whether `name` needs an order: no certificate, one due for renewal, or another directory's. */
  private due(name: string, now: number): boolean {
    return (
      needsOrder(this.options.certificates.get(name), now) ||
      this.issuedBy.get(name) !== this.options.settings.acmeDirectory
    );
  }

  /** A domain removed: its certificate is no longer served. */
  private dropUnwanted(): void {
    const names = new Set(this.wanted());
    for (const cert of this.options.certificates.all()) {
      if (!names.has(cert.name)) this.options.certificates.remove(cert.name);
    }
  }

  /** Runs a round after `delayMs` (at once by default), instead of any round planned. */
  private wake(delayMs = 0): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.round();
          this.roundFailures = 0;
          this.roundRetryAt = 0;
        } catch (error) {
          // The store failed (an order's own failures are handled in orderOne).
          this.roundFailures++;
          const delay = retryDelay(this.roundFailures, this.backoff);
          this.roundRetryAt = this.now() + delay;
          this.options.log.error(
            `kurz: certificates could not be checked: ${reasonOf(error)}; trying again in ${describeDelay(delay)}`,
          );
        }
      } while (this.again && !this.stopped);
    })();
    await this.running;
    this.running = undefined;
    this.plan();
  }

  /** Orders, holding the lease, every wanted name that is due and not waiting after a failure. */
  private async round(): Promise<void> {
    const now = this.now();
    const { store } = this.options;
    const due = this.wanted().filter(
      (name) => this.due(name, now) && (this.failures.get(name)?.retryAt ?? 0) <= now,
    );
    if (due.length === 0 || now < this.leaseRetryAt) return;
    if (!(await store.takeOrderLease(this.holder, now, now + this.leaseMs))) {
      this.leaseRetryAt = now + this.leaseRetryMs;
      if (!this.leaseWaitLogged) {
        this.leaseWaitLogged = true;
        this.options.log.info(
          'kurz: another instance is ordering certificates; this one serves what it obtains',
        );
      }
      return;
    }
    this.leaseRetryAt = 0;
    this.leaseWaitLogged = false;
    try {
      for (const name of due) {
        if (this.stopped) return;
        const at = this.now();
        if (!(await store.takeOrderLease(this.holder, at, at + this.leaseMs))) return;
        // Another instance may have saved one since this one last heard.
        const stored = await store.certificate(name);
        if (
          stored?.directory === this.options.settings.acmeDirectory &&
          !needsOrder(served(stored), at)
        ) {
          this.serve(stored);
          continue;
        }
        await this.orderOne(name);
      }
    } finally {
      await store.releaseOrderLease(this.holder).catch(() => {});
    }
  }

  private async orderOne(name: string): Promise<void> {
    const renewal = this.options.certificates.get(name) !== undefined;
    try {
      const issued = await this.orderer.order(name);
      const stored: StoredCertificate = {
        name,
        directory: this.options.settings.acmeDirectory,
        certPem: issued.certPem,
        keyPem: issued.keyPem,
        notBefore: issued.notBefore.getTime(),
        notAfter: issued.notAfter.getTime(),
        updatedAt: this.now(),
      };
      await this.options.store.saveCertificate(stored);
      this.serve(stored);
      this.counts.issued++;
      this.options.log.info(
        `kurz: certificate for ${name} ${renewal ? 'renewed' : 'obtained'}, valid until ${issued.notAfter.toISOString()}`,
        { name, not_after: issued.notAfter.toISOString() },
      );
    } catch (error) {
      if (this.stopped) return;
      const count = (this.failures.get(name)?.count ?? 0) + 1;
      const delay = retryDelay(count, this.backoff);
      const reason = reasonOf(error);
      this.failures.set(name, { count, retryAt: this.now() + delay, reason });
      this.counts.failed++;
      this.options.log.error(
        `kurz: no certificate for ${name} (attempt ${count}): ${reason}; trying again in ${describeDelay(delay)}`,
        { name, attempt: count, reason },
      );
    }
  }

  /** Plans the next round: the earliest renewal, retry or lease retry, or the regular check. */
  private plan(): void {
    if (this.stopped) return;
    const now = this.now();
    let next = now + this.checkIntervalMs;
    for (const name of this.wanted()) {
      const cert = this.options.certificates.get(name);
      const failure = this.failures.get(name);
      const at = Math.max(
        cert === undefined || this.issuedBy.get(name) !== this.options.settings.acmeDirectory
          ? now
          : renewalTime(cert),
        failure?.retryAt ?? now,
        this.leaseRetryAt,
        this.roundRetryAt,
      );
      next = Math.min(next, at);
    }
    this.wake(Math.max(MIN_WAIT_MS, next - now));
  }
}

function describeDelay(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < HOUR_MS) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round((ms / HOUR_MS) * 10) / 10} h`;
}
