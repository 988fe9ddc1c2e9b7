// Decides whether a database file may be written, before SQLite meets a full disk, a
// read-only file, or a file deleted under the running server (whose writes would be
// acknowledged into an unlinked inode and lost at the next start). The costly checks
// run on a timer; a write batch reads their cached answer and stats the file once.

import { accessSync, constants, type Stats, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../logger.ts';

/** How often free space and writability are measured (a syscall or two, off the request path). */
export const DISK_CHECK_INTERVAL_MS = 500;

/** Why writes are refused (for the log); undefined when they are allowed. */
type Refusal =
  | 'free disk space below --min-free-disk'
  | 'database file not writable'
  | 'database file removed or replaced'
  | undefined;

export class WriteGuard {
  private readonly dev: number;
  private readonly ino: number;
  private lowSpace = false;
  private notWritable = false;
  private replaced = false;
  /** The code of the last failed write (SQLITE_FULL, …) until a write succeeds again. */
  private failure: string | undefined;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly path: string,
    private readonly minFreeBytes: number,
    private readonly log: Logger,
  ) {
    const stats = statSync(path);
    this.dev = stats.dev;
    this.ino = stats.ino;
    this.measure();
    this.timer = setInterval(() => this.measure(), DISK_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Free bytes on the database's file system, for the space floor. */
  freeBytes(): number {
    const fs = statfsSync(dirname(this.path));
    return fs.bavail * fs.bsize;
  }

  /** The timer's work: free space against the floor, and whether the file is still writable. */
  measure(): void {
    try {
      const free = this.minFreeBytes > 0 ? this.freeBytes() : Number.POSITIVE_INFINITY;
      const low = free < this.minFreeBytes;
      if (low !== this.lowSpace) {
        this.lowSpace = low;
        this.log.error(
          low
            ? `kurz: only ${mib(free)} free on the disk of ${this.path} (--min-free-disk ${mib(this.minFreeBytes)}): writes answer 503 until space is freed`
            : `kurz: ${mib(free)} free again on the disk of ${this.path}: writes resume`,
        );
      }
    } catch {
      // statfs failing says nothing about space; the write itself will tell.
    }
    this.checkIdentity();
    if (this.replaced) return;
    let writable = true;
    try {
      // Root ignores file modes but not an immutable file or a read-only mount.
      accessSync(this.path, constants.W_OK);
    } catch {
      writable = false;
    }
    if (writable === this.notWritable) {
      this.notWritable = !writable;
      this.log.error(
        writable
          ? `kurz: ${this.path} is writable again: writes resume`
          : `kurz: ${this.path} cannot be written (read-only file or file system): writes answer 503`,
      );
    }
  }

  /** Why a write must not happen now; stats the file, so call it once per write batch. */
  refusal(): Refusal {
    this.checkIdentity();
    if (this.replaced) return 'database file removed or replaced';
    if (this.lowSpace) return 'free disk space below --min-free-disk';
    if (this.notWritable) return 'database file not writable';
    return undefined;
  }

  get failing(): boolean {
    return this.failure !== undefined;
  }

  /** A write failed for a reason of the disk or file: the store is unavailable until one succeeds. */
  failed(code: string): void {
    if (this.failure === code) return;
    this.failure = code;
    this.log.error(
      `kurz: writing ${this.path} failed (${code}): answering 503 until a write succeeds`,
    );
  }

  succeeded(): void {
    if (this.failure === undefined) return;
    this.failure = undefined;
    this.log.error(`kurz: writing ${this.path} works again`);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private checkIdentity(): void {
    if (this.replaced) return;
    let stats: Stats | undefined;
    try {
      stats = statSync(this.path, { throwIfNoEntry: false });
    } catch {
      return;
    }
    if (stats !== undefined && stats.dev === this.dev && stats.ino === this.ino) return;
    this.replaced = true;
    this.log.error(
      `kurz: ${this.path} was ${stats === undefined ? 'removed' : 'replaced by another file'} while kurz ran: writes answer 503 until kurz is restarted (nothing more is acknowledged into the old file)`,
    );
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
