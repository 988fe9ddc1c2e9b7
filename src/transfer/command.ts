// `kurz export` and `kurz import`: the command lines of moving links out and in, on the
// database --db names, safe while kurz serves it (reads are short keyset pages; writes
// are batches of one transaction each, which a serving kurz hears of as of any change).
// Data goes to stdout (export to -) or a file; everything said goes to stderr, but
// import's summary, its result, which goes to stdout. An import whose file names its
// links' domains reads it through first, and refuses it whole when one of them is
// neither a domain of this kurz nor mapped by --domain-map.

import { accessSync, constants, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ToolCommand } from '../config/tools.ts';
import { parseEmail } from '../domain/accounts.ts';
import { describeDatabase, isPostgresUrl } from '../domain/database-url.ts';
import { ApiError, StoreUnavailableError } from '../domain/errors.ts';
import { printable } from '../domain/printable.ts';
import { blocklistOf, eitherBlocklist } from '../domain/targets.ts';
import type { Logger } from '../logger.ts';
import { openStore } from '../store/open.ts';
import type { Store, User } from '../store/store.ts';
import { COLUMNS, FORMATS, type FormatName } from './columns.ts';
import {
  DomainMap,
  DomainMapError,
  type DomainPairs,
  describeUnplaced,
  parseDomainMap,
  unplacedDomains,
} from './domain-map.ts';
import { type Input, InputError } from './entries.ts';
import { type ExportFormat, type ExportSink, exportLinks } from './exporter.ts';
import { readInput } from './formats.ts';
import { fileSource, type ImportSource, type ReadCount, stdinSource } from './import-source.ts';
import { describeSummary, Importer } from './importer.ts';
import { importProgress } from './progress.ts';

/** Where the commands write what they say (stderr), and what they read (stdin); tests give their own. */
export interface TransferIo {
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: () => ReadableStream<Uint8Array>;
  stdout: () => ExportSink & { end(): Promise<void> };
}

const processIo: TransferIo = {
  stderr: process.stderr,
  stdin: () => Bun.stdin.stream(),
  stdout: () => {
    const sink = Bun.stdout.writer();
    return {
      async write(text) {
        sink.write(text);
        await sink.flush();
      },
      async end() {
        await sink.flush();
      },
    };
  },
};

/** A refusal said in one line: exit 1, or 2 for a command line that cannot be run. */
class TransferError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

function emailOption(options: ToolCommand['options'], command: string): string | undefined {
  const raw = options.get('--owner');
  if (raw === undefined) return undefined;
  try {
    return parseEmail(String(raw));
  } catch (error) {
    if (error instanceof ApiError) {
      throw new TransferError(`${command} --owner "${raw}": ${error.message}`, 2);
    }
    throw error;
  }
}

/**
 * Opens the store as the other tools do: no background work of its own, and no
 * deadline (a batch of a few thousand links may take longer than a request may).
 */
async function open(command: ToolCommand, log: Logger): Promise<Store> {
  try {
    return await openStore(command.config, log, { background: false, deadlineMs: 0 });
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause ?? '');
    throw new TransferError(
      `the database ${describeDatabase(command.config.db)} cannot be reached (${cause})`,
    );
  }
}

async function ownerOf(store: Store, email: string | undefined): Promise<User | undefined> {
  if (email === undefined) return undefined;
  const user = await store.findUserByEmail(email);
  if (user === undefined) throw new TransferError(`no user ${email} (make it with kurz user add)`);
  return { id: user.id, email: user.email };
}

/** Runs a command's work, saying a refusal in one line; the store is closed in every case. */
async function runTool(
  command: ToolCommand,
  log: Logger,
  work: (open: () => Promise<Store>) => Promise<number>,
): Promise<number> {
  let store: Store | undefined;
  try {
    return await work(async () => {
      store = await open(command, log);
      return store;
    });
  } catch (error) {
    if (!(error instanceof TransferError)) throw error;
    log.error(`kurz: ${printable(error.message)}`);
    return error.exitCode;
  } finally {
    await store?.close();
  }
}

export function exportCommand(
  command: ToolCommand,
  log: Logger,
  io: TransferIo = processIo,
): Promise<number> {
  return runTool(command, log, async (openIt) => {
    const file = command.args[0] ?? '-';
    const format = exportFormat(command.options.get('--format'), file);
    const clicks = command.options.has('--clicks');
    if (clicks && format === 'csv') {
      throw new TransferError('--clicks needs JSON Lines: the CSV export holds links only', 2);
    }
    const email = emailOption(command.options, 'export');
    const db = command.config.db;
    // Opening a SQLite path creates it: a mistyped one would export an empty database.
    if (!isPostgresUrl(db) && db !== ':memory:' && !existsSync(db)) {
      throw new TransferError(`the database ${db} does not exist`);
    }
    const store = await openIt();
    const owner = await ownerOf(store, email);
    const target = file === '-' ? undefined : file;
    const { sink, finish, abandon } = target === undefined ? toStdout(io) : toFile(target);
    let counts: { links: number; clicks: number };
    try {
      counts = await exportLinks(store, { format, clicks, owner: owner?.id ?? null }, sink);
      await finish();
    } catch (error) {
      abandon();
      throw error;
    }
    const what = `${counts.links} ${counts.links === 1 ? 'link' : 'links'}${clicks ? ` and ${counts.clicks} click records` : ''}`;
    const whose = owner === undefined ? '' : ` of ${owner.email}`;
    io.stderr.write(
      `${printable(`kurz: exported ${what}${whose} as ${format === 'csv' ? 'CSV' : 'JSON Lines'} to ${target ?? 'stdout'}`)}\n`,
    );
    return 0;
  });
}

/** --format, else the file's extension, else JSON Lines. */
function exportFormat(flag: string | true | undefined, file: string): ExportFormat {
  if (flag !== undefined) {
    if (flag === 'jsonl' || flag === 'csv') return flag;
    throw new TransferError(`--format must be jsonl or csv (got "${flag}")`, 2);
  }
  return /\.csv$/i.test(file) ? 'csv' : 'jsonl';
}

function toStdout(io: TransferIo) {
  const out = io.stdout();
  return { sink: out, finish: () => out.end(), abandon: () => {} };
}

/**
 * A file written under a temporary name beside it and renamed once complete: a failed
 * export leaves no half file under the name asked for. Created owner-only (kurz's umask):
 * it holds password hashes.
 */
function toFile(path: string) {
  const partial = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  let writer: ReturnType<ReturnType<typeof Bun.file>['writer']>;
  try {
    writer = Bun.file(partial).writer();
  } catch (error) {
    throw new TransferError(`cannot write ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  return {
    sink: {
      async write(text: string) {
        writer.write(text);
        await writer.flush();
      },
    },
    async finish() {
      await writer.end();
      renameSync(partial, path);
    },
    abandon() {
      try {
        writer.end();
      } catch {
        // Already failed: nothing more to close.
      }
      rmSync(partial, { force: true });
    },
  };
}

export function importCommand(
  command: ToolCommand,
  log: Logger,
  io: TransferIo = processIo,
): Promise<number> {
  return runTool(command, log, async (openIt) => {
    const file = command.args[0] as string;
    const fromFlag = command.options.get('--from');
    if (fromFlag !== undefined && !(FORMATS as readonly unknown[]).includes(fromFlag)) {
      throw new TransferError(`--from must be one of ${FORMATS.join(', ')} (got "${fromFlag}")`, 2);
    }
    const from = fromFlag as FormatName | undefined;
    const email = emailOption(command.options, 'import');
    const dryRun = command.options.has('--dry-run');
    const renameConflicts = command.options.has('--rename-conflicts');
    const pairs = domainPairs(command.lists.get('--domain-map') ?? []);
    const name = file === '-' ? 'stdin' : file;
    const source = file === '-' ? stdinSource(io.stdin) : fileSource(file, readableSize(file));
    try {
      const store = await openIt();
      const owner = await ownerOf(store, email);
      const config = command.config;
      const baseUrl = config.baseUrl ?? `http://localhost:${config.port}`;
      const domains = await domainMap(store, baseUrl, pairs);
      let read: ReadCount = { bytes: 0 };
      let input = await openInput(source, name, read, from);
      const whose =
        owner !== undefined
          ? `to ${owner.email}`
          : input.format === 'kurz'
            ? 'to their owners'
            : 'to no one';
      io.stderr.write(
        `${printable(`kurz: reading ${name} as ${input.description}; links go ${whose}${dryRun ? ' (dry run: nothing is stored)' : ''}`)}\n`,
      );
      // Read through once for the domains, so that a file with a link on a domain of
      // none here is refused before a batch is stored; then read again to import.
      if (namesDomains(input.format)) {
        const unplaced = await unplacedDomains(input.domains, domains);
        if (unplaced.size > 0) {
          throw new TransferError(`cannot import ${name}: ${describeUnplaced(unplaced)}`);
        }
        read = { bytes: 0 };
        input = await openInput(source, name, read, input.format);
      }
      const progress = importProgress(io.stderr, { totalBytes: source.size() });
      const importer = new Importer(
        store,
        {
          owner,
          dryRun,
          renameConflicts,
          baseUrl,
          domains,
          // The file's entries and the database's, as the server checks new links.
          blocklist: eitherBlocklist(
            config.blocklist?.list,
            blocklistOf(new Set((await store.listBlockedHosts()).map((entry) => entry.host))),
          ),
        },
        {
          // A report quotes the file, which may hold control characters.
          row: (line, message) => progress.say(printable(`kurz: line ${line}: ${message}`)),
          progress: (rows) => progress.update(rows, read.bytes),
        },
      );
      const summary = await importer.run(input.entries);
      progress.done();
      log.info(`kurz: ${describeSummary(summary, dryRun)}`);
      return 0;
    } finally {
      source.close();
    }
  });
}

/** Reads --domain-map's pairs; a wrong one is a command line that cannot be run. */
function domainPairs(values: readonly string[]): DomainPairs {
  try {
    return parseDomainMap(values);
  } catch (error) {
    if (error instanceof DomainMapError) throw new TransferError(error.message, 2);
    throw error;
  }
}

/** This kurz's domains and --domain-map's pairs; a TO that is none of them is refused. */
async function domainMap(store: Store, baseUrl: string, pairs: DomainPairs): Promise<DomainMap> {
  try {
    return await DomainMap.open(store, baseUrl, pairs);
  } catch (error) {
    if (error instanceof DomainMapError)
      throw new TransferError(error.message, error.usage ? 2 : 1);
    throw error;
  }
}

/** A file's input, or the one-line refusal of a file kurz cannot read. */
async function openInput(
  source: ImportSource,
  name: string,
  count: ReadCount,
  from: FormatName | undefined,
): Promise<Input> {
  try {
    return await readInput(source.text(count), from);
  } catch (error) {
    if (error instanceof InputError) {
      throw new TransferError(`cannot import ${name}: ${error.message}`);
    }
    throw error;
  }
}

/** Whether a format's rows name a domain: a domain column, or short URLs whose host is one. */
function namesDomains(format: FormatName): boolean {
  return COLUMNS[format].domain !== undefined || COLUMNS[format].shortUrl !== undefined;
}

/** A file's size, once it is known to be a readable file; a one-line refusal otherwise. */
function readableSize(path: string): number {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new TransferError(`cannot read ${path}: not a file`);
    accessSync(path, constants.R_OK);
    size = stat.size;
  } catch (error) {
    if (error instanceof TransferError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new TransferError(
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'error')}`,
    );
  }
  return size;
}
