// `kurz backup FILE`: a consistent copy of a SQLite database that a kurz may be serving,
// written whole under a temporary name and then put in place; PostgreSQL is pointed to
// its own tools.

import { Database } from 'bun:sqlite';
import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { describeDatabase, isPostgresUrl } from '../domain/database-url.ts';
import { printable } from '../domain/printable.ts';
import type { Logger } from '../logger.ts';

export interface BackupRequest {
  /** The --db value, as parseDatabase leaves it: a SQLite path or a PostgreSQL URL. */
  db: string;
  /** The file to write; it must not exist. */
  file: string;
}

/**
 * Files SQLite (and kurz, for the counts) would take as belonging to a database at FILE:
 * a stale one beside a new backup would be read with it (a WAL replayed onto it, counts
 * of another database shown), so their presence refuses the backup as FILE's does.
 */
const SIDE_FILES = ['-wal', '-shm', '-journal', '-counts', '-counts-wal', '-counts-shm'];

/** Exit status of a bad invocation (a PostgreSQL database), as for a bad flag. */
const USAGE_ERROR = 2;

export function backupCommand({ db, file }: BackupRequest, log: Logger): number {
  if (isPostgresUrl(db)) {
    log.error(
      printable(
        `kurz backup: ${describeDatabase(db)} is PostgreSQL, which kurz backup does not copy: use pg_dump --format=custom --file ${file} "$DATABASE_URL", and pg_restore --dbname=URL ${file} into an empty database to bring it back (see docs/production.md, "Backups")`,
      ),
    );
    return USAGE_ERROR;
  }
  // Opening a missing path would create an empty database, and back that up.
  if (db === ':memory:' || !existsSync(db)) {
    log.error(printable(`kurz backup: the database ${db} does not exist`));
    return 1;
  }
  const taken = [file, ...SIDE_FILES.map((side) => file + side)].find((path) => existsSync(path));
  if (taken !== undefined) {
    log.error(printable(`kurz backup: ${taken} already exists; remove it or choose another FILE`));
    return 1;
  }
  const folder = dirname(file);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    log.error(printable(`kurz backup: the folder ${folder} does not exist`));
    return 1;
  }

  const partial = `${file}.partial`;
  const started = performance.now();
  try {
    // Made here, empty and owner-only, so the copy never exists with a wider mode
    // (it holds password hashes and the token key); `wx`: a backup to the same FILE
    // running now, or one cut short, is not overwritten.
    closeSync(openSync(partial, 'wx', 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    log.error(
      code === 'EEXIST'
        ? `kurz backup: ${partial} exists: a backup to ${file} is running, or one was cut short (then remove it)`
        : `kurz backup: cannot write in ${folder} (${code ?? String(error)})`,
    );
    return 1;
  }
  try {
    copyInto(db, partial);
    if (!putInPlace(partial, file)) {
      log.error(
        printable(`kurz backup: ${file} appeared while the copy was made; it was left as it is`),
      );
      return 1;
    }
  } catch (error) {
    log.error(
      printable(`kurz backup: ${describeDatabase(db)} could not be copied (${reason(error)})`),
    );
    return 1;
  } finally {
    rmSync(partial, { force: true });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log.info(
    printable(
      `kurz backup: wrote ${file} (${mib(statSync(file).size)}) from ${db} in ${seconds} s`,
    ),
  );
  return 0;
}

/**
 * Copies the database into `into` (an empty file) with `VACUUM INTO`, and makes it durable.
 *
 * Why VACUUM INTO: it reads the whole database in one read transaction, so the copy is
 * one snapshot (a click batch and a link made after it are both absent, never one
 * without the other), and in WAL mode a reader never blocks the writer: kurz keeps
 * committing while it runs (its WAL grows until the copy ends). The result is a plain
 * database file, complete without a -wal, and compacted. bun:sqlite has no binding of
 * the backup API (sqlite3_backup_*), and `serialize()` would hold the whole database in
 * memory. SQLite does not fsync what VACUUM INTO writes, so this does.
 *
 * The connection is bun:sqlite's own, read-only, with none of kurz's migrations: a
 * database of an older or newer kurz is copied as it is.
 */
function copyInto(db: string, into: string): void {
  const source = new Database(db, { readonly: true, strict: true });
  try {
    // A reader of a WAL database waits only for rare moments of another connection (the
    // WAL recovered at its start, or reset); kurz's own writes never hold it up.
    source.run('PRAGMA busy_timeout = 10000');
    source.run('VACUUM INTO ?', [into]);
  } finally {
    source.close();
  }
  const fd = openSync(into, 'r+');
  try {
    fchmodSync(fd, 0o600);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives the complete copy its name without ever replacing a file: a hard link fails if
 * the name exists (rename would overwrite it). On a file system without hard links, the
 * name is checked and the file renamed. Returns false when `file` exists.
 */
function putInPlace(partial: string, file: string): boolean {
  try {
    linkSync(partial, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    if (existsSync(file)) return false;
    renameSync(partial, file);
  }
  syncFolder(dirname(file));
  return true;
}

/** The new name survives a power loss only once its folder is synced. */
function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
