// When old rows are removed: soon after start, then every hour, whatever is older than
// so many days (click records for --click-retention-days, webhook messages delivered or
// given up).

const DAY_MS = 86_400_000;
/** The first run waits a little, so that start-up is not slowed by it. */
const FIRST_RUN_MS = 10_000;
const INTERVAL_MS = 3_600_000;

/**
 * Calls `prune(before)` with the moment records older than `days` began, soon after
 * start and every hour; nothing when `days` is 0. Returns the stop.
 */
export function scheduleRetention(days: number, prune: (before: number) => void): () => void {
  if (days <= 0) return () => {};
  const run = () => prune(Date.now() - days * DAY_MS);
  const first = setTimeout(run, FIRST_RUN_MS);
  const timer = setInterval(run, INTERVAL_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
