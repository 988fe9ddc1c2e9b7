// The database's part of the blocklist, kept in memory: the target checks of every new
// link and change ask it synchronously, beside the --blocklist file. It is read at start
// and again whenever the store says the list changed (this instance's own change, or
// another's: PostgreSQL's notice arrives as the change commits, so an instance sees an
// addition within milliseconds; a lost connection reads it again too).

import { type Blocklist, blocklistOf, eitherBlocklist } from '../domain/targets.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';

export class BlockedHosts {
  private list: Blocklist = blocklistOf(new Set());
  /** The last read begun, and the next one while it waits for it. */
  private running: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | undefined;
  private readonly stop: () => void;

  constructor(
    private readonly store: Pick<Store, 'listBlockedHosts' | 'watchBlockedHosts'>,
    private readonly log: Logger,
  ) {
    this.stop = store.watchBlockedHosts(() => {
      this.reload().catch(() => {});
    });
  }

  /** A cache that has read the list once. */
  static async open(
    store: Pick<Store, 'listBlockedHosts' | 'watchBlockedHosts'>,
    log: Logger,
  ): Promise<BlockedHosts> {
    const hosts = new BlockedHosts(store, log);
    await hosts.reload();
    return hosts;
  }

  /** The list as last read. */
  current(): Blocklist {
    return this.list;
  }

  /** The file's list (when given) and the database's, as the target checks take them. */
  joined(file: () => Blocklist | undefined): () => Blocklist | undefined {
    return () => eitherBlocklist(file(), this.list);
  }

  /**
   * Reads the list again; resolves once a read that began after the call is done (so a
   * caller that just changed the list sees its change). Calls made while a read waits to
   * begin share it. A failed read keeps the list in force and is logged.
   */
  reload(): Promise<void> {
    if (this.waiting !== undefined) return this.waiting;
    const next = this.running
      .catch(() => {})
      .then(() => {
        this.waiting = undefined;
        return this.read();
      });
    this.waiting = next;
    this.running = next;
    return next;
  }

  private async read(): Promise<void> {
    try {
      const hosts = await this.store.listBlockedHosts();
      this.list = blocklistOf(new Set(hosts.map((h) => h.host)));
    } catch (error) {
      this.log.error(`kurz: the blocklist's database entries were not read again: ${error}`);
      throw error;
    }
  }

  close(): void {
    this.stop();
  }
}
