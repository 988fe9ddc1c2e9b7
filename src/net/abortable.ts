// Waiting on work that cannot be cancelled (a DNS lookup) no longer than a signal allows.

/** `work`, or the signal's reason once it aborts (DNS lookups cannot be cancelled, only left). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
