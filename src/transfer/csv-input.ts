// A CSV export: its format told from its header (or, for YOURLS, from a first row without
// one), each record's columns read by the roles their names give them.

import {
  COLUMNS,
  type FormatName,
  NAMES,
  normalize,
  type Role,
  recognise,
  WHAT_EACH_NEEDS,
  YOURLS_POSITIONS,
} from './columns.ts';
import { type CsvRecord, csvRecords, fromCsvField } from './csv.ts';
import {
  type BadEntry,
  type Entry,
  type Field,
  type Input,
  InputError,
  linkEntry,
  rowDomain,
} from './entries.ts';
import { tooLong } from './record-limit.ts';

export async function readCsv(
  delimiter: string,
  text: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  const records = csvRecords(text, delimiter);
  const first = await records.next();
  if (first.done) throw new InputError('the file is empty');
  const headerRecord = first.value;
  if (headerRecord.tooLong !== undefined)
    throw new InputError(`line 1: ${tooLongReason(headerRecord)}`);
  const names = headerRecord.fields.map(normalize);
  let format = from ?? recognise(new Set(names));
  let header = true;
  const looksLikeYourlsRow =
    headerRecord.fields.length >= 2 && /^https?:\/\//i.test(headerRecord.fields[1] ?? '');
  if (format === undefined && looksLikeYourlsRow) format = 'yourls';
  if (format === 'yourls' && !names.includes('keyword') && !names.includes('url')) header = false;
  if (format === undefined) {
    throw new InputError(
      `the format was not recognised from the first line (${headerRecord.fields.slice(0, 8).join(', ')}); give --from`,
    );
  }
  const chosen = format;
  const columns = COLUMNS[chosen];
  const positions = new Map<string, number>();
  (header ? names : YOURLS_POSITIONS).forEach((name, i) => {
    if (!positions.has(name)) positions.set(name, i);
  });
  const hasColumn = (role: Role) => (columns[role] ?? []).some((name) => positions.has(name));
  if (!hasColumn('url') || (!hasColumn('code') && !hasColumn('shortUrl') && chosen !== 'yourls')) {
    throw new InputError(
      `the first line must name the columns of a ${NAMES[chosen]} CSV (${WHAT_EACH_NEEDS[chosen]}); found: ${headerRecord.fields.slice(0, 10).join(', ')}`,
    );
  }
  const width = header ? names.length : undefined;
  /** Each role's columns (by index), in the order of their names' preference. */
  const columnsOf: Partial<Record<Role, number[]>> = {};
  for (const [role, aliases] of Object.entries(columns) as [Role, string[]][]) {
    const at = aliases.flatMap((name) => {
      const i = positions.get(name);
      return i === undefined ? [] : [i];
    });
    if (at.length > 0) columnsOf[role] = at;
  }
  /** Each record: a bad row, or its fields by role. */
  async function* rows(): AsyncGenerator<BadEntry | { line: number; field: Field }> {
    for await (const record of header ? records : prepend(headerRecord, records)) {
      const { line, fields } = record;
      if (record.tooLong !== undefined) {
        yield { kind: 'bad', line, reason: tooLongReason(record) };
        continue;
      }
      if (width !== undefined && fields.length !== width) {
        yield {
          kind: 'bad',
          line,
          reason: `${fields.length} ${fields.length === 1 ? 'field' : 'fields'} where the header has ${width}`,
        };
        continue;
      }
      yield {
        line,
        field: (role) => {
          const at = columnsOf[role];
          if (at === undefined) return undefined;
          for (const i of at) {
            const raw = fields[i] as string;
            if (raw.trim() !== '') return chosen === 'kurz' ? fromCsvField(raw) : raw;
          }
          return null;
        },
      };
    }
  }
  async function* entries(): AsyncGenerator<Entry> {
    for await (const row of rows())
      yield 'field' in row ? linkEntry(row.line, chosen, row.field) : row;
  }
  async function* domains(): AsyncGenerator<string | null> {
    for await (const row of rows()) if ('field' in row) yield rowDomain(row.field);
  }
  const description = `${chosen === 'kurz' ? 'kurz export' : NAMES[chosen]} CSV${header ? '' : ' without a header'}`;
  return { format: chosen, description, entries: entries(), domains: domains() };
}

function tooLongReason(record: CsvRecord): string {
  const reason = tooLong('record');
  // Past an opening quote that is never closed, the rest of the file is one record.
  return record.tooLong === 'quoted'
    ? `${reason}, inside a quoted field (a quote left open?)`
    : reason;
}

async function* prepend<T>(first: T, rest: AsyncIterable<T>): AsyncGenerator<T> {
  yield first;
  yield* rest;
}
