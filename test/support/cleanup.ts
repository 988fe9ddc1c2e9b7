// Everything a test leaves on the machine goes through here: temporary folders and
// child processes are registered when made, and removed or killed when the run ends
// (test/support/preload.ts, named in bunfig.toml), even when a test failed halfway.
// Tests still stop what they start; this is the net under them.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';

const folders = new Set<string>();
const processes = new Set<Subprocess>();
const hooks: (() => Promise<void>)[] = [];

/** Work to do when the run ends, after processes are gone (e.g. dropping a database). */
export function atCleanUp(hook: () => Promise<void>): void {
  hooks.push(hook);
}

/** A fresh folder under the system's temporary folder, removed when the run ends. */
export function tempDir(prefix = 'kurz-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  return dir;
}

/** Registers a child process, to be killed when the run ends if it is still running. */
export function track<P extends Subprocess>(proc: P): P {
  processes.add(proc);
  void proc.exited.then(() => processes.delete(proc));
  return proc;
}

/** Kills every registered process still running, waits for it, then removes every folder. */
export async function cleanUp(): Promise<void> {
  const running = [...processes];
  for (const proc of running) proc.kill('SIGKILL');
  // A killed process may still hold files open in its folder: remove folders after it is gone.
  await Promise.all(running.map((proc) => proc.exited));
  // Last registered first: a store opened on a database closes before the database goes.
  for (const hook of hooks.splice(0).reverse()) await hook();
  removeFolders();
}

/** The same, synchronously, for process exit (no awaiting there). */
export function cleanUpNow(): void {
  for (const proc of processes) proc.kill('SIGKILL');
  removeFolders();
}

function removeFolders() {
  for (const dir of folders) {
    rmSync(dir, { recursive: true, force: true });
    folders.delete(dir);
  }
}
