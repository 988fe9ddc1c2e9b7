// The checkpoint thread of a SQLite store, on its own connection: every tick it copies
// the WAL of the database and of the counts database into their files (PASSIVE), so the
// event loop never waits on a checkpoint's fsyncs. A PASSIVE checkpoint never takes a
// write lock and never blocks the writer. The click rollup is not here: it runs on the
// event loop in short slices (click-counts.ts), since on one core a thread of its own
// only competed with the event loop in long bursts.
//
// The counts WAL is copied only after the rollup wrote to it, and once wholly copied,
// this thread writes to it first: the first write after a full checkpoint restarts a
// WAL and fsyncs its header, and the rollup writes the counts file once a second, so
// that fsync would otherwise fall on the event loop at nearly every rollup. The frame
// written here stays uncopied until the rollup writes again, so the rollup's commits
// always append.
// Built into the executable as a second entrypoint (see the build script).

import { Database, type Statement } from 'bun:sqlite';
import { attachCounts } from './click-counts.ts';

declare const self: Worker;

export type MaintenanceMessage =
  | { start: { path: string; countsPath: string; intervalMs: number } }
  | 'stop';

let db: Database | undefined;
let checkpoints: Statement<{ busy: number; log: number; checkpointed: number }>[] = [];
let restartCounts: Statement | undefined;
let countsVersion: Statement<{ data_version: number }> | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

self.onmessage = (event: MessageEvent<MaintenanceMessage>) => {
  if (event.data === 'stop') {
    clearInterval(timer);
    // Every statement finalized, so that close really releases the files (a handle with
    // live statements lingers, holding locks and keeping the WAL from being removed).
    for (const statement of [...checkpoints, restartCounts, countsVersion]) statement?.finalize();
    db?.close(true);
    postMessage('stopped');
    return;
  }
  const { path, countsPath, intervalMs } = event.data.start;
  db = new Database(path);
  db.run('PRAGMA busy_timeout = 1000');
  attachCounts(db, countsPath);
  checkpoints = [
    db.prepare('PRAGMA main.wal_checkpoint(PASSIVE)'),
    db.prepare('PRAGMA counts.wal_checkpoint(PASSIVE)'),
  ];
  // Writes page 1 and nothing else of meaning (the counts file has no use for user_version).
  restartCounts = db.prepare('PRAGMA counts.user_version = 0');
  // Changes when another connection (the rollup) commits to the counts file.
  countsVersion = db.prepare('PRAGMA counts.data_version');
  let copiedVersion = -1;
  const tick = () => {
    try {
      checkpoints[0]?.get();
      const version = countsVersion?.get()?.data_version ?? 0;
      if (version !== copiedVersion) {
        const counts = checkpoints[1]?.get();
        if (counts && counts.busy === 0 && counts.checkpointed === counts.log) {
          if (counts.log > 0) restartCounts?.run();
          copiedVersion = version;
        }
      }
    } catch {
      // Busy or briefly unavailable: the next tick tries again, and the writers' own
      // automatic checkpoints are the backstop.
    }
  };
  tick();
  timer = setInterval(tick, intervalMs);
  postMessage('started');
};
