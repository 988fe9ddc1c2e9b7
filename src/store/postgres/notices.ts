// LISTEN/NOTIFY: how the instances sharing a database tell each other of links created,
// changed and deleted (their codes, on LINKS_CHANNEL, sent by the changes' own
// statements or transactions, so delivered when they commit), and how one instance
// waits until it has heard of every change committed before a moment (settle).

import type { SQL } from 'bun';
import { domainCode, parseDomainCode } from '../../domain/codes.ts';
import type { Logger } from '../../logger.ts';
import type { Wrapper } from '../guarded.ts';
import type { LinkChanged } from '../store.ts';

/** The channel on which instances tell each other of links created, changed and deleted. */
export const LINKS_CHANNEL = 'kurz_links';
/** The notice on LINKS_CHANNEL of a change to the domains (no code starts with `/`). */
export const DOMAINS_NOTICE = '/domains';
/** The notice on LINKS_CHANNEL of a change to the database blocklist. */
export const BLOCKLIST_NOTICE = '/blocklist';
/** The notice on LINKS_CHANNEL of a certificate saved (--tls auto). */
export const CERTIFICATES_NOTICE = '/certificates';

/**
 * The notice of a link's change: domainCode's text, so a notice of a link on the
 * default domain is its code alone, as before domains.
 */
export const linkNotice = domainCode;

/** The prefix of each instance's own channel, on which it sends itself settle() markers. */
const SETTLE_CHANNEL_PREFIX = 'kurz_settle_';

export class PostgresNotices {
  private readonly listeners = new Set<LinkChanged>();
  private readonly resetListeners = new Set<() => void>();
  private readonly domainListeners = new Set<() => void>();
  private readonly blocklistListeners = new Set<() => void>();
  private readonly certificateListeners = new Set<() => void>();
  private readonly subscriptions: SQL.ListenSubscription[] = [];
  /** This instance's own channel: only it listens there. */
  private readonly settleChannel =
    SETTLE_CHANNEL_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  /** The settle() marker to be sent next, which calls made since the last one share. */
  private nextMarker: { token: string; done: Promise<void> } | undefined;
  /** Markers sent and not yet heard back, by token. */
  private readonly markers = new Map<string, () => void>();
  private markerCount = 0;

  constructor(
    private readonly client: SQL,
    private readonly log: Logger,
    /** The store's deadline, which a settle() marker is held to. */
    private readonly run: Wrapper,
  ) {}

  /**
   * Calls `changed` with the code of each link created, changed or deleted by any
   * instance on this database, this one's own included, and `reset` when notices may
   * have been missed (the listening connection was lost and is back), so that caches
   * forget what they believed.
   */
  watchLinks(changed: LinkChanged, reset: () => void): () => void {
    this.listeners.add(changed);
    this.resetListeners.add(reset);
    return () => {
      this.listeners.delete(changed);
      this.resetListeners.delete(reset);
    };
  }

  /** Calls `changed` when any instance changes the domains, or notices may have been missed. */
  watchDomains(changed: () => void): () => void {
    this.domainListeners.add(changed);
    return () => this.domainListeners.delete(changed);
  }

  /** Calls `changed` when any instance changes the blocklist, or notices may have been missed. */
  watchBlocklist(changed: () => void): () => void {
    this.blocklistListeners.add(changed);
    return () => this.blocklistListeners.delete(changed);
  }

  /** Calls `changed` when any instance saves a certificate, or notices may have been missed. */
  watchCertificates(changed: () => void): () => void {
    this.certificateListeners.add(changed);
    return () => this.certificateListeners.delete(changed);
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
        (notice) => {
          if (notice === DOMAINS_NOTICE) {
            for (const listener of this.domainListeners) listener();
            return;
          }
          if (notice === BLOCKLIST_NOTICE) {
            for (const listener of this.blocklistListeners) listener();
            return;
          }
          if (notice === CERTIFICATES_NOTICE) {
            for (const listener of this.certificateListeners) listener();
            return;
          }
          const { domainId, code } = parseDomainCode(notice);
          for (const listener of this.listeners) listener(code, domainId);
        },
        () => {
          if (first) {
            first = false;
            return;
          }
          this.log.info('kurz: listening to other instances again; link caches emptied');
          for (const reset of this.resetListeners) reset();
          for (const changed of this.domainListeners) changed();
          for (const changed of this.blocklistListeners) changed();
          for (const changed of this.certificateListeners) changed();
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

  /** Stops listening. */
  async close(): Promise<void> {
    try {
      for (const subscription of this.subscriptions) await subscription.unlisten();
    } catch {
      // The connection is gone already.
    }
  }
}
