// The maintenance thread of a SQLite store, on its own connection: every tick it folds
// the click log into the counts database (click-counts.ts) and checkpoints the WAL, so
// the event loop never copies pages into the database file, waits on a checkpoint's
// fsyncs, or rewrites counters. Nothing here takes the main database's write lock:
// PASSIVE checkpoints never block the writer, and the rollup writes only `counts`.
// Built into the executable as a second entrypoint (see the build script).

import { Database, type Statement } from 'bun:sqlite';
import { attachCounts, ClickRollup } from './click-counts.ts';

declare const self: Worker;

export type MaintenanceMessage =
  | { start: { path: string; countsPath: string; intervalMs: number; rollupEvery: number } }
  | 'stop';

let db: Database | undefined;
let rollup: ClickRollup | undefined;
let checkpoint: Statement | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (event: MessageEvent<MaintenanceMessage>) => {
  if (event.data === 'stop') {
    clearInterval(timer);
    // Every statement finalized, so that close really releases the files (a handle with
    // live statements lingers, holding locks and keeping the WAL from being removed).
    rollup?.finalize();
    checkpoint?.finalize();
    db?.close(true);
    postMessage('stopped');
    return;
  }
  const { path, countsPath, intervalMs, rollupEvery } = event.data.start;
  db = new Database(path);
  db.run('PRAGMA busy_timeout = 1000');
  attachCounts(db, countsPath);
  rollup = new ClickRollup(db);
  checkpoint = db.prepare('PRAGMA main.wal_checkpoint(PASSIVE)');
  let ticks = 0;
  const tick = () => {
    try {
      if (ticks++ % rollupEvery === 0) rollup?.step();
      checkpoint?.get();
    } catch {
      // Busy or briefly unavailable: the next tick tries again. Reads stay exact
      // meanwhile (they add the log's tail), and the writer's own automatic
      // checkpoint is the backstop for the WAL.
    }
  };
  tick();
  timer = setInterval(tick, intervalMs);
  postMessage('started');
};
