// The upkeep of the trigram indexes (migration 0008) on PostgreSQL. A GIN index takes
// new entries into a pending list, cheaply, and merges that list into the index once it
// passes gin_pending_list_limit (4 MB): the insert that passes it pays the merge. A bulk
// call of 1,000 links adds about 1.6 MB, so every second or third one waited 25 ms more
// for the merge of the lists before it (measured: 1,000 links took 30 ms, or 55–60 ms
// when they merged). A text search reads the whole pending list too. So, a second after
// links were made, kurz merges the lists itself, off any request's path
// (gin_clean_pending_list); the inserts then find a short list. Several instances may
// each do it: a merge under way makes another wait for it, not repeat it.

import type { SQL } from 'bun';
import type { Logger } from '../../logger.ts';

/** The trigram indexes whose pending lists are merged, when migration 0008 could make them. */
const INDEXES = ['links_url_trgm', 'links_code_trgm'];
/** How long after links were made their trigrams are merged. */
export const MERGE_DELAY_MS = 1000;

export class TrigramUpkeep {
  /** The indexes present, once read; empty when pg_trgm could not be installed. */
  private present: Promise<string[]> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Set when merging was refused (not the indexes' owner): it is not tried again. */
  private refused = false;
  /** Merges done, for tests. */
  merges = 0;

  constructor(
    private readonly client: SQL,
    private readonly log: Logger,
    private readonly delayMs = MERGE_DELAY_MS,
  ) {}

  /** Told of links made (committed): their trigrams are merged within delayMs. */
  created(): void {
    if (this.timer !== undefined || this.stopped || this.refused) return;
    this.timer = setTimeout(() => void this.merge(), this.delayMs);
    this.timer.unref?.();
  }

  /** Merges the pending lists now; a failure is left to the next time links are made. */
  async merge(): Promise<void> {
    this.timer = undefined;
    try {
      this.present ??= this.client`
        SELECT indexname FROM pg_indexes
        WHERE schemaname = current_schema() AND indexname IN ${this.client(INDEXES)}`.then(
        (rows: { indexname: string }[]) => rows.map((row) => row.indexname),
      );
      const indexes = await this.present;
      if (indexes.length === 0 || this.stopped) return;
      await this.client.unsafe(
        `SELECT ${indexes.map((_, i) => `gin_clean_pending_list($${i + 1}::regclass)`).join(', ')}`,
        indexes,
      );
      this.merges++;
    } catch (error) {
      this.present = undefined;
      if ((error as { errno?: string }).errno === '42501') {
        this.refused = true;
        this.log.info(
          "kurz: the trigram indexes' pending lists are left to autovacuum: this database user does not own them",
        );
      }
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
