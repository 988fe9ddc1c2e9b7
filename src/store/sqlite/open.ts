// Opening a SQLite store: the file (owner-only), its PRAGMAs and migrations, the counts
// file and the rollup that folds the click log into it, the checkpoint thread, and the
// guards every operation runs through (what a SQLite error means, writes refused while
// the disk or the file cannot take them).

import { Database, SQLiteError } from 'bun:sqlite';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../../domain/errors.ts';
import { consoleLogger, type Logger } from '../../logger.ts';
import type { Wrapper } from '../guarded.ts';
import { reconcileCounts } from './analytics.ts';
import { attachCounts, ClickRollup, countsPathOf, type RollupOptions } from './click-counts.ts';
import type { MaintenanceMessage } from './maintenance.ts';
import { applyMigrations } from './migrate.ts';
import { WriteGuard } from './write-guard.ts';

export interface SqliteOptions {
  /** A file path (its folder is created) or `:memory:`. */
  path: string;
  /** `normal` survives process crashes; `full` survives power loss too. */
  durability: 'normal' | 'full';
  /** Free bytes the file system must keep: below it writes are refused (0: no floor). */
  minFreeDiskBytes?: number;
  /** Where changes of the store's state (disk full, file removed, …) are told; once per change. */
  log?: Logger;
  /**
   * The click rollup: milliseconds between cycles (0: none on a timer; tests drive
   * `rollup.step()`), and the size of its slices.
   */
  rollup?: RollupOptions & { intervalMs?: number };
  /** Days click records are kept (day rollups stay); 0 or absent: forever. */
  clickRetentionDays?: number;
  /** false: the log is not moved into records and rollups by itself (tools such as `kurz copy`). */
  moveClicks?: boolean;
}

/** SQLite result codes that mean the database itself is unusable, not that the query was wrong. */
const UNAVAILABLE_CODES =
  /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL|NOMEM|PERM|AUTH)/;
/** Codes of a write the disk or file refused: they make the store unavailable until a write succeeds. */
const WRITE_FAULT_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM)/;

export function isBusyCause(cause: unknown): boolean {
  return cause instanceof SQLiteError && /^SQLITE_(BUSY|LOCKED)/.test(cause.code ?? '');
}

export function classify(error: unknown): unknown {
  if (error instanceof SQLiteError && UNAVAILABLE_CODES.test(error.code ?? '')) {
    return new StoreUnavailableError({ cause: error });
  }
  // bun:sqlite's message once the handle is closed.
  if (error instanceof Error && /closed database/i.test(error.message)) {
    return new StoreUnavailableError({ cause: error });
  }
  return error;
}

/** How often the maintenance thread checkpoints the WALs. */
const MAINTENANCE_INTERVAL_MS = 100;
/**
 * How often a rollup cycle starts (then runs in slices, one per event-loop turn): a
 * longer interval folds more clicks per link into one counter write (measured: 8x fewer
 * page writes with 50,000 links clicked than every 100 ms), at the price of a longer log
 * tail for reads to add (about 1 s of clicks).
 */
const ROLLUP_INTERVAL_MS = 1000;
/**
 * WAL pages after which the writer checkpoints by itself: a backstop, since under
 * continuous writes the maintenance thread never catches up to the last frame and only
 * the writer can then restart the WAL. By then nearly all of it has been copied.
 */
const WRITER_CHECKPOINT_PAGES = 4096;

/** A SQLite database opened and migrated, with its engine's background work running. */
export interface OpenedSqlite {
  sqlite: Database;
  log: Logger;
  /** Folds the click log into counts, in slices on the event loop. */
  rollup: ClickRollup;
  /** Free space, file identity and writability of a file database (none in memory). */
  writes: WriteGuard | undefined;
  /** Milliseconds between rollup cycles (0: none on a timer). */
  intervalMs: number;
  /** Stops the checkpoint thread and the counts rollup (folding what is left). */
  stop: () => Promise<void>;
}

/** Opens (creating when needed) and migrates a SQLite database and its counts file. */
export function openDatabase(options: SqliteOptions): OpenedSqlite {
  const inFile = options.path !== ':memory:';
  const log = options.log ?? consoleLogger;
  const countsPath = countsPathOf(options.path);
  if (inFile) {
    // Owner-only: the database holds password hashes and the token key.
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    for (const path of [options.path, countsPath]) ownerOnly(path, log);
  }
  const sqlite = new Database(options.path, { create: true, strict: true });
  try {
    sqlite.run('PRAGMA journal_mode = WAL');
    sqlite.run(`PRAGMA synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    sqlite.run('PRAGMA busy_timeout = 5000');
    sqlite.run('PRAGMA foreign_keys = ON');
    // No memory map (SQLite's default; said because it was once 256 MiB). Every page read
    // through a map stays in kurz's RSS, so RSS grew with the database up to the map's
    // size, though the pages are only the kernel's file cache, which read() uses too.
    // Measured back to back with a 256 MiB map: redirects with 1M links alike (12.9 vs
    // 13.2 µs CPU each, 50,000 codes hot: the link cache answers them), RSS 313 vs 122
    // MiB; the soak's RSS +1 MiB per MiB the database grew vs flat. Only deep OFFSET
    // pages were faster: offset 500,000 of 1M p50 25 vs 59 ms.
    sqlite.run('PRAGMA mmap_size = 0');
    applyMigrations(sqlite);
    attachCounts(sqlite, countsPath);
    reconcileCounts(sqlite);
    const writes = inFile
      ? new WriteGuard(options.path, options.minFreeDiskBytes ?? 0, log)
      : undefined;
    const { intervalMs = ROLLUP_INTERVAL_MS, ...slices } = options.rollup ?? {};
    const counts = inFile ? openCountsWriter(countsPath) : sqlite;
    const rollup = new ClickRollup(sqlite, counts, slices);
    const stopRollup = rollUpInSlices(rollup, intervalMs);
    const stopCheckpoints = inFile
      ? startMaintenance(sqlite, options.path, countsPath)
      : async () => {};
    const stop = async () => {
      await stopCheckpoints();
      stopRollup();
    };
    return { sqlite, log, rollup, writes, intervalMs, stop };
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

/**
 * The rollup's own connection to the counts file, so that its counts transaction can stay
 * open across slices while the store's connection commits click batches. It never waits
 * for a lock (a busy counts file holds the cycle back until the next interval) and never
 * checkpoints: the maintenance thread does, and 4,096 pages is only a backstop.
 */
function openCountsWriter(countsPath: string): Database {
  const counts = new Database(':memory:', { strict: true });
  attachCounts(counts, countsPath);
  counts.run('PRAGMA busy_timeout = 0');
  counts.run(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
  return counts;
}

/** The side files SQLite keeps beside a database file. */
const SIDE_FILES = ['-wal', '-shm'];

/**
 * Makes a database file and its side files readable by the owner only: a new file is
 * created 0600 before SQLite opens it (SQLite gives the WAL and shared-memory files the
 * mode of their database); an existing one that others could read is tightened, and said.
 */
function ownerOnly(path: string, log: Logger): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, ...SIDE_FILES.map((side) => path + side)]) {
    const mode = statSync(file, { throwIfNoEntry: false })?.mode;
    if (mode === undefined || (mode & 0o077) === 0) continue;
    chmodSync(file, mode & 0o700);
    log.info(
      `kurz: ${file} was readable by other users (mode ${(mode & 0o777).toString(8)}); made owner-only (600)`,
    );
  }
}
/** Stops background work on a store; resolves once it has stopped. */
type Maintenance = () => Promise<void>;

/** The checkpoint thread for a file database; until it runs, and if it fails, the writer checkpoints as usual. */
function startMaintenance(sqlite: Database, path: string, countsPath: string): Maintenance {
  // In the executable the thread is the build's second entrypoint, named by its path under
  // src/; a URL made from import.meta.url would name the file in the checkout it was built
  // from (the bundler writes that path in), which is missing wherever the executable is
  // copied. The build defines Bun.isStandaloneExecutable, so the other branch, and the
  // checkout's path with it, is left out of the executable.
  const worker = new Worker(
    Bun.isStandaloneExecutable
      ? './store/sqlite/maintenance.ts'
      : new URL('./maintenance.ts', import.meta.url).href,
  );
  worker.onmessage = (event) => {
    if (event.data === 'started') {
      sqlite.run(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
    }
  };
  worker.onerror = () => {
    try {
      sqlite.run('PRAGMA wal_autocheckpoint = 1000');
    } catch {
      // Already closed: nothing left to checkpoint.
    }
  };
  worker.postMessage({
    start: {
      path,
      countsPath,
      intervalMs: MAINTENANCE_INTERVAL_MS,
    },
  } satisfies MaintenanceMessage);
  // The thread must not keep the process alive on its own.
  worker.unref();
  return () =>
    new Promise((resolve) => {
      const timeout = setTimeout(() => {
        worker.terminate();
        resolve();
      }, 1000);
      worker.onmessage = (event) => {
        if (event.data !== 'stopped') return;
        clearTimeout(timeout);
        worker.terminate();
        resolve();
      };
      worker.postMessage('stop' satisfies MaintenanceMessage);
    });
}

/**
 * Starts a rollup cycle every `intervalMs` and runs it one slice per event-loop turn
 * (setImmediate: after the turn's I/O, between click batches), so no request waits
 * behind more than one slice. A failed slice stops the cycle until the next interval (a
 * refused lock keeps it whole; after any other failure the next cycle reads its clicks
 * back from the log). Returns the stop, which folds what is left and closes.
 */
function rollUpInSlices(rollup: ClickRollup, intervalMs: number): () => void {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  const slice = () => {
    immediate = undefined;
    let more = false;
    try {
      more = rollup.step();
    } catch {
      // Busy or unavailable: tried again at the next interval; reads add the log's tail.
    }
    if (more) immediate = setImmediate(slice);
  };
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          if (immediate !== undefined) return;
          // Clicks another process appended (`kurz import`) are folded too: one read
          // of the log's last id, only while this process has nothing to fold.
          if (!rollup.busy) catchUp(rollup);
          if (rollup.busy) slice();
        }, intervalMs)
      : undefined;
  timer?.unref();
  return () => {
    clearInterval(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    try {
      rollup.flush();
    } catch {
      rollup.cancel();
    }
    rollup.close();
  };
}

/** Takes in clicks appended to the log by another process since the rollup last looked. */
function catchUp(rollup: ClickRollup): void {
  try {
    rollup.catchUp();
  } catch {
    // Closed or unavailable: the next interval tries again.
  }
}

/** How often a watcher looks for commits by another process (see watchDataVersion). */
const WATCH_INTERVAL_MS = 250;

/**
 * Calls `changed` within WATCH_INTERVAL_MS of a commit by another connection (SQLite's
 * data_version changes then, and not for this connection's own). Returns the stop.
 */
export function watchDataVersion(sqlite: Database, changed: () => void): () => void {
  const version = sqlite.prepare<{ data_version: number }, []>('PRAGMA data_version');
  let seen = version.get()?.data_version;
  const timer = setInterval(() => {
    try {
      const now = version.get()?.data_version;
      if (now !== seen) {
        seen = now;
        changed();
      }
    } catch {
      // Closed, or the file is unavailable: the next request says so.
    }
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    version.finalize();
  };
}

/**
 * The guards of a store's operations: a closed store answers unavailable, SQLite's
 * errors are classified, and a write is refused while the disk is below its floor, the
 * file is read-only, or the file was removed or replaced (checked once per call, that
 * is once per batch). A failure of the disk marks the store unavailable until a write
 * works again.
 */
export function sqliteGuards(writes: WriteGuard | undefined) {
  let closed = false;
  const read: Wrapper = <T>(work: () => T | Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new StoreUnavailableError());
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(classify(error));
    }
  };
  const write: Wrapper = <T>(work: () => T | Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new StoreUnavailableError());
    const refusal = writes?.refusal();
    if (refusal !== undefined) {
      return Promise.reject(new StoreUnavailableError({ cause: `writes refused: ${refusal}` }));
    }
    try {
      const result = work();
      writes?.succeeded();
      return Promise.resolve(result);
    } catch (error) {
      const code = error instanceof SQLiteError ? (error.code ?? '') : '';
      if (WRITE_FAULT_CODES.test(code)) writes?.failed(code);
      return Promise.reject(classify(error));
    }
  };
  return {
    read,
    write,
    get closed() {
      return closed;
    },
    close() {
      closed = true;
    },
  };
}

/**
 * `work` as a write transaction that takes the write lock first (BEGIN IMMEDIATE). A
 * write that reads before it writes, run by a tool beside a serving kurz (`kurz import`,
 * `kurz domain`, `kurz user`), would as a deferred one fail at once (SQLITE_BUSY, the busy
 * timeout not waited) when the server commits between its read and its write. In the
 * server, the one writer, it costs nothing more.
 */
export function writeTransaction<A extends unknown[], R>(
  sqlite: Database,
  work: (...args: A) => R,
): (...args: A) => R {
  const transaction = sqlite.transaction(work);
  return (...args: A) => transaction.immediate(...args) as R;
}
