// `kurz export` and `kurz import` in process, on any store: an export as text, and an
// import of text with the lines it reported and its summary.

import type { Store } from '../../src/store/store.ts';
import type { FormatName } from '../../src/transfer/columns.ts';
import { type ExportOptions, exportLinks } from '../../src/transfer/exporter.ts';
import { readInput } from '../../src/transfer/formats.ts';
import {
  emptySummary,
  Importer,
  type ImportOptions,
  type ImportSummary,
} from '../../src/transfer/importer.ts';

export async function exportText(
  store: Store,
  options: Partial<ExportOptions> = {},
): Promise<string> {
  let text = '';
  await exportLinks(
    store,
    { format: 'jsonl', clicks: false, owner: null, ...options },
    {
      async write(chunk) {
        text += chunk;
      },
    },
  );
  return text;
}

export interface Imported {
  summary: ImportSummary;
  /** What was said of rows, `line N: …`, in the order said. */
  reports: string[];
}

/** Text cut in small chunks, as a file or a pipe gives it. */
async function* chunks(text: string): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += 4096) yield text.slice(i, i + 4096);
}

export async function importText(
  store: Store,
  text: string,
  options: Partial<ImportOptions> & { from?: FormatName } = {},
): Promise<Imported> {
  const { from, ...rest } = options;
  const input = await readInput(chunks(text), from);
  const reports: string[] = [];
  const importer = new Importer(
    store,
    {
      owner: undefined,
      dryRun: false,
      renameConflicts: false,
      baseUrl: 'https://kurz.test',
      blocklist: undefined,
      ...rest,
    },
    { row: (line, message) => reports.push(`line ${line}: ${message}`), progress() {} },
  );
  return { summary: await importer.run(input.entries), reports };
}

/** A summary with nothing in it but what `counts` says. */
export function summaryOf(
  counts: Partial<Omit<ImportSummary, 'clicks'>> & {
    clicks?: Partial<ImportSummary['clicks']>;
  },
): ImportSummary {
  const { clicks, ...rest } = counts;
  const empty = emptySummary();
  return { ...empty, ...rest, clicks: { ...empty.clicks, ...clicks } };
}
