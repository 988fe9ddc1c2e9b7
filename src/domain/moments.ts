// Moments as the API writes them (ms since the epoch in, ISO 8601 UTC out): pure, so
// every layer that shows a moment, from the store's webhook payloads up, writes it alike.

/** A moment as the API writes it, ISO 8601 UTC with milliseconds; null stays null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
