// A worker thread that keeps the WAL short: it checkpoints from a second connection at
// a steady pace, so the event loop never copies pages into the database file or waits
// on the fsyncs a checkpoint makes. PASSIVE checkpoints never block the writer.
// Built into the executable as a second entrypoint (see the build script).

import { Database } from 'bun:sqlite';

declare const self: Worker;

export type CheckpointerMessage = { start: { path: string; intervalMs: number } } | 'stop';

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  if (event.data === 'stop') {
    clearInterval(timer);
    db?.close();
    postMessage('stopped');
    return;
  }
  db = new Database(event.data.start.path);
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // Busy or briefly unavailable: the next tick tries again; the writer's own
      // automatic checkpoint is the backstop.
    }
  }, event.data.start.intervalMs);
  postMessage('started');
};
