// The readers and the writer of `kurz import` and `kurz export` against the libraries that
// could replace them, in process (no database):
//   bun bench/parsers.ts [--rows 100000] [--rounds 5]
// Speed: kurz's csvRecords against csv-parse (a Node stream, the options kurz would need)
// and papaparse (its Node stream); jsonLines and jsonObjects against @streamparser/json;
// csvLine against csv-stringify with kurz's formula guard. The text is bench/import.ts's
// YOURLS table and kurz's export of the same links, in 64 KiB chunks as a file is read;
// medians of the rounds, and the ratio to kurz's own reader measured in the same run.
// Then exactness: each reader on what files in the wild hold, beside kurz's answer. The
// libraries are devDependencies, here only; the executable embeds none of them.

import { Readable } from 'node:stream';
import { JSONParser } from '@streamparser/json';
import { parse as csvParse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import Papa from 'papaparse';
import { csvLine, csvRecords } from '../src/transfer/csv.ts';
import { jsonLines, jsonObjects } from '../src/transfer/json-objects.ts';
import { MAX_RECORD_CHARS } from '../src/transfer/record-limit.ts';
import { fmt, numberFlag } from './harness.ts';
import { median } from './wrk.ts';

const argv = process.argv.slice(2);
const ROWS = numberFlag(argv, '--rows', 100_000);
const ROUNDS = numberFlag(argv, '--rounds', 5);
const CHUNK = 64 * 1024;
const T0 = Date.UTC(2023, 0, 1);

const csvLines = ['keyword,url,title,timestamp,ip,clicks'];
const links: Record<string, unknown>[] = [];
for (let i = 0; i < ROWS; i++) {
  const at = new Date(T0 + i * 1000);
  const url = `https://example.com/articles/${i}?utm_source=news&ref=${(i * 7919) % 10007}`;
  csvLines.push(
    `y${i.toString(36)},${url},"Article ${i}, part ${i % 9}",${at.toISOString().slice(0, 19).replace('T', ' ')},192.0.2.${i % 250},${i % 1000}`,
  );
  links.push({
    code: `y${i.toString(36)}`,
    url,
    created_at: at.toISOString(),
    owner: null,
    source: null,
    expires_at: null,
    max_clicks: null,
    limited_clicks: 0,
    password_hash: null,
  });
}
const CSV = `${csvLines.join('\n')}\n`;
const JSONL = `${links.map((l) => JSON.stringify(l)).join('\n')}\n`;
const DOCUMENT = JSON.stringify({ data: links }, null, 2);

async function* chunks(text: string, size = CHUNK): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** csv-parse with what kurz's reader does: lenient quotes, any line break, the 1 MiB limit. */
const csvParseOptions = {
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  max_record_size: MAX_RECORD_CHARS,
  info: true,
};

async function csvParseRecords(text: string, options = csvParseOptions): Promise<unknown[]> {
  const out: unknown[] = [];
  try {
    for await (const { record } of Readable.from(chunks(text)).pipe(csvParse(options))) {
      out.push(record);
    }
  } catch (error) {
    out.push(`stopped: ${(error as Error).message.slice(0, 70)}`);
  }
  return out;
}

async function papaRecords(text: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const stream = Papa.parse(Papa.NODE_STREAM_INPUT, { skipEmptyLines: true });
  for await (const row of Readable.from(chunks(text)).pipe(stream)) out.push(row);
  return out;
}

async function oursCsv(text: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const r of csvRecords(chunks(text)))
    out.push(r.tooLong ? 'bad row: too long' : r.fields);
  return out;
}

function streamparserValues(text: string, paths: string[], separator?: string): unknown[] {
  const out: unknown[] = [];
  const parser = new JSONParser({ paths, keepStack: false, separator });
  parser.onValue = ({ value }) => {
    out.push(value);
  };
  try {
    for (let i = 0; i < text.length; i += CHUNK) parser.write(text.slice(i, i + CHUNK));
  } catch (error) {
    out.push(`stopped: ${(error as Error).message.slice(0, 70)}`);
  }
  return out;
}

async function oursJson(text: string, lines: boolean): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of (lines ? jsonLines : jsonObjects)(chunks(text))) {
    out.push('value' in item ? item.value : `bad row: ${item.error.slice(0, 40)}`);
  }
  return out;
}

/** kurz's export rule: a field a spreadsheet would run is prefixed with '. */
const guard = (value: string) => (/^[=+\-@\t\r']/.test(value) ? `'${value}` : value);

async function timed(run: () => Promise<number> | number): Promise<{ ms: number; n: number }> {
  const times: number[] = [];
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    Bun.gc(true);
    const started = performance.now();
    n = await run();
    times.push(performance.now() - started);
  }
  return { ms: median(times), n };
}

async function compare(
  title: string,
  entries: [string, () => Promise<number> | number][],
  unit = 'records',
): Promise<void> {
  console.log(title);
  let base = 0;
  for (const [label, run] of entries) {
    const { ms, n } = await timed(run);
    if (base === 0) base = ms;
    console.log(
      `  ${label.padEnd(34)} ${fmt(ms).padStart(6)} ms  ${fmt(ms / base, 1).padStart(5)}x  (${fmt(n)} ${unit})`,
    );
  }
}

console.log(`${fmt(ROWS)} rows, median of ${ROUNDS} rounds, ${CHUNK / 1024} KiB chunks`);
await compare('CSV, reading (YOURLS table)', [
  ['kurz csvRecords', async () => (await oursCsv(CSV)).length],
  ['csv-parse 7, stream', async () => (await csvParseRecords(CSV)).length],
  ['papaparse 5, stream', async () => (await papaRecords(CSV)).length],
]);
await compare('JSON Lines, reading (kurz export)', [
  ['kurz jsonLines', async () => (await oursJson(JSONL, true)).length],
  ['@streamparser/json', () => streamparserValues(JSONL, ['$'], '\n').length],
]);
await compare('JSON document, reading ({"data": [...]}, indented)', [
  ['kurz jsonObjects', async () => (await oursJson(DOCUMENT, false)).length],
  ['@streamparser/json', () => streamparserValues(DOCUMENT, ['$.data.*']).length],
]);
const rows = links.map((l) => [String(l.code), String(l.url), String(l.created_at), '', '', '0']);
const written = rows.map(csvLine).join('');
const byLibrary = stringify(
  rows.map((row) => row.map(guard)),
  { record_delimiter: '\r\n', quoted_match: /[;\r]/ },
);
await compare(
  `CSV, writing (kurz export; same text: ${written === byLibrary})`,
  [
    ['kurz csvLine', () => rows.map(csvLine).join('').length],
    [
      'csv-stringify 6, sync',
      () =>
        stringify(
          rows.map((row) => row.map(guard)),
          { record_delimiter: '\r\n', quoted_match: /[;\r]/ },
        ).length,
    ],
  ],
  'characters',
);

// Exactness: what each reader makes of what files in the wild hold.
const long = 'x'.repeat(MAX_RECORD_CHARS + 10);
const show = (records: unknown[]) => {
  const text = JSON.stringify(records);
  return text.length > 150 ? `${text.slice(0, 150)}…` : text;
};
const csvCases: [string, string][] = [
  ['CRLF, LF and a lone CR in one file', 'a,b\r\nc,d\ne,f\rg,h\n'],
  ['a quote inside an unquoted field', 'a,b"c,d\ne,f,g\n'],
  ['a record over 1 MiB between two', `a,b\nc,${long}\ne,f\n`],
];
console.log('\nCSV, exactness (kurz first)');
for (const [label, text] of csvCases) {
  console.log(`  ${label}`);
  console.log(`    kurz       ${show(await oursCsv(text))}`);
  console.log(`    csv-parse  ${show(await csvParseRecords(text))}`);
  let skipped = 0;
  const skipping = await csvParseRecords(text, {
    ...csvParseOptions,
    skip_records_with_error: true,
    on_skip: () => {
      skipped++;
    },
  } as typeof csvParseOptions);
  console.log(
    `    csv-parse, skip_records_with_error: ${show(skipping)}; on_skip called ${fmt(skipped)} times`,
  );
  console.log(`    papaparse  ${show(await papaRecords(text))}`);
}
const jsonCases: [string, string, string[]][] = [
  ['a broken object in a list', '{"data":[{"a":1},\n{"b": tru},\n{"c":3}]}', ['$.data.*']],
  ['an object over 1 MiB in a list', `[{"a":1},{"b":"${long}"},{"c":3}]`, ['$.*']],
];
console.log('\nJSON documents, exactness (kurz first)');
for (const [label, text, paths] of jsonCases) {
  console.log(`  ${label}`);
  console.log(`    kurz                ${show(await oursJson(text, false))}`);
  console.log(`    @streamparser/json  ${show(streamparserValues(text, paths))}`);
}
