// Writes links (and with `clicks`, their click records) as kurz's export: JSON Lines or
// CSV. Links are read a chunk at a time in the list's newest-first order (keyset pages,
// one short read each), so any number of links is written in flat memory, and a kurz
// serving the same database is never held up by a long read. Each link names its domain
// by host (null for the default one), so an import puts it back on the same domain.

import type { ClickRow } from '../domain/clicks.ts';
import { DEFAULT_DOMAIN, type LinkCursor, type LinkDetail, type Store } from '../store/store.ts';
import { csvLine } from './csv.ts';
import { CSV_COLUMNS, clickRecord, csvValues, exportHeader, linkRecord } from './kurz-format.ts';

export type ExportFormat = 'jsonl' | 'csv';

export interface ExportOptions {
  format: ExportFormat;
  /** Each link's click records after its line (JSON Lines only). */
  clicks: boolean;
  /** Only this account's links; null: every link. */
  owner: number | null;
}

/** Where the export goes: a file or stdout; awaited after each chunk, so memory stays flat. */
export interface ExportSink {
  write(text: string): Promise<void>;
}

/** Links read per chunk. */
const LINK_CHUNK = 1000;
/** Click records read per query. */
const CLICK_CHUNK = 5000;
/** Before the newest link: ids are PostgreSQL integers. */
const START: LinkCursor = { createdAt: Number.MAX_SAFE_INTEGER, id: 2 ** 31 - 1 };

export async function exportLinks(
  store: Store,
  options: ExportOptions,
  sink: ExportSink,
): Promise<{ links: number; clicks: number }> {
  const owners = new Map((await store.listUsers()).map((u) => [u.id, u.email]));
  const ownerOf = (link: LinkDetail) =>
    link.userId === null ? null : (owners.get(link.userId) ?? null);
  const domains = await domainHosts(store);
  const counts = { links: 0, clicks: 0 };
  await sink.write(
    options.format === 'csv'
      ? csvLine(CSV_COLUMNS)
      : `${JSON.stringify(exportHeader(options.clicks))}\n`,
  );
  let after = START;
  for (;;) {
    const links = await store.listLinkDetailsAfter({
      owner: options.owner,
      after,
      limit: LINK_CHUNK,
    });
    let text = '';
    for (const link of links) {
      const domain = await domains.of(link.domainId);
      // Its domain was removed since the page was read, and the link with it.
      if (domain === undefined) continue;
      const record = linkRecord(link, ownerOf(link), domain);
      counts.links++;
      if (options.format === 'csv') {
        text += csvLine(csvValues(record));
        continue;
      }
      text += `${JSON.stringify(record)}\n`;
      if (!options.clicks) continue;
      // A link's records are written as they are read: one link may have millions.
      await sink.write(text);
      text = '';
      counts.clicks += await exportClicks(store, link, domain, sink);
    }
    await sink.write(text);
    const last = links.at(-1);
    if (last === undefined || links.length < LINK_CHUNK) return counts;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/**
 * The host of each domain by id (null for the default one), read again when a link names
 * one added since; undefined for one that is gone.
 */
async function domainHosts(store: Store) {
  const read = async () => new Map((await store.listDomains()).map((d) => [d.id, d.host]));
  let hosts = await read();
  return {
    async of(id: number): Promise<string | null | undefined> {
      if (id === DEFAULT_DOMAIN) return null;
      if (!hosts.has(id)) hosts = await read();
      return hosts.get(id);
    },
  };
}

async function exportClicks(
  store: Store,
  link: LinkDetail,
  domain: string | null,
  sink: ExportSink,
): Promise<number> {
  let written = 0;
  let afterId = 0;
  for (;;) {
    const rows = await store.clickRows(link.id, afterId, CLICK_CHUNK);
    if (rows.length > 0) {
      await sink.write(
        rows.map((row) => `${JSON.stringify(clickRecord(link.shortCode, domain, row))}\n`).join(''),
      );
      written += rows.length;
      afterId = (rows.at(-1) as ClickRow).id;
    }
    if (rows.length < CLICK_CHUNK) return written;
  }
}
