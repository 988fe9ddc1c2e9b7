// `preview: "auto"`: the card of a link's target page, read once in the background after
// the link (or its new target) is committed, and kept with the link; a page that cannot
// be read leaves the preview empty, with the reason shown in the link's details. A few
// pages are read at once; a link changed meanwhile (another target, another preview) is
// left as it now is. The instance that made the change reads the page.

import { previewText, type StoredPreview, storedPreview } from '../domain/link-preview.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';
import type { TargetPolicy } from '../webhooks/targets.ts';
import { fetchPreview, PreviewFailed } from './fetch-preview.ts';

/** A link whose auto preview waits to be read. */
export interface PendingPreview {
  code: string;
  domainId: number;
  /** The target the preview is read from. */
  originalUrl: string;
}

export interface AutoPreviewOptions {
  store: Store;
  policy: TargetPolicy;
  log: Logger;
  /** Told once a link's preview is stored (the redirect's cache forgets the link). */
  changed: (code: string, domainId: number) => void;
  /** Pages read at once. */
  concurrency?: number;
  /** For tests: fetchPreview's own options. */
  fetch?: typeof fetch;
  deadlineMs?: number;
}

export class AutoPreviews {
  private readonly queue: PendingPreview[] = [];
  private running = 0;
  private readonly idle = new Set<() => void>();

  constructor(private readonly options: AutoPreviewOptions) {}

  /** Reads the page of a committed link whose preview is `auto` and pending. */
  schedule(link: PendingPreview): void {
    this.queue.push(link);
    this.next();
  }

  /** Resolves once nothing is queued or being read (tests; shutdown). */
  settled(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  private next(): void {
    const limit = this.options.concurrency ?? 2;
    while (this.running < limit && this.queue.length > 0) {
      const link = this.queue.shift() as PendingPreview;
      this.running++;
      void this.read(link).finally(() => {
        this.running--;
        this.next();
        if (this.running === 0 && this.queue.length === 0) {
          for (const resolve of this.idle) resolve();
          this.idle.clear();
        }
      });
    }
  }

  private async read(link: PendingPreview): Promise<void> {
    const { store, policy, log } = this.options;
    let preview: StoredPreview;
    try {
      const card = await fetchPreview(link.originalUrl, {
        policy,
        fetch: this.options.fetch,
        deadlineMs: this.options.deadlineMs,
      });
      preview = { mode: 'auto', status: 'ready', ...card, error: null };
    } catch (error) {
      const reason = error instanceof PreviewFailed ? error.message : 'the page could not be read';
      if (!(error instanceof PreviewFailed)) {
        log.error(`kurz: reading a preview failed: ${nameOf(error)}`);
      }
      preview = {
        mode: 'auto',
        status: 'failed',
        title: null,
        description: null,
        image: null,
        error: reason,
      };
    }
    try {
      // The link as it is now: another target or preview since means this read is stale.
      const current = await store.findLinkDetail(link.code, link.domainId);
      const kept = storedPreview(current?.preview ?? null);
      if (
        current === undefined ||
        current.originalUrl !== link.originalUrl ||
        kept?.mode !== 'auto' ||
        kept.status !== 'pending'
      ) {
        return;
      }
      await store.updateLink(current.id, { preview: previewText(preview) });
      this.options.changed(link.code, link.domainId);
    } catch (error) {
      log.error(`kurz: storing a preview failed: ${nameOf(error)}`);
    }
  }
}

/** An error's kind, for the log: its message may carry the target's URL. */
function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
