// What /health checks, the same on every store: the store answers (ping: it reads, and
// says whether its engine could take a write now), and at most once a second a real
// write proves it (the health_probe setting); between probes the last one's outcome
// stands, so a flood of health checks costs no writes, and a failure is seen without
// traffic and recovery without a restart.

import { StoreUnavailableError } from '../domain/errors.ts';
import type { Store } from '../store/store.ts';

/** The settings row /health writes; not data (`kurz copy` leaves it behind). */
export const HEALTH_PROBE_KEY = 'health_probe';
/** How often /health may write its probe row. */
export const HEALTH_PROBE_INTERVAL_MS = 1000;

export class HealthCheck {
  private last = { at: 0, ok: true };

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when the database can be read and written; throws StoreUnavailableError otherwise. */
  async check(): Promise<void> {
    const now = this.now();
    // The write first: a store that marked itself failing after a failed write learns
    // from this one that writing works again, before ping() reports its state.
    if (now - this.last.at >= HEALTH_PROBE_INTERVAL_MS) {
      this.last = { at: now, ok: true };
      try {
        await this.store.replaceSetting(HEALTH_PROBE_KEY, new Date(now).toISOString());
      } catch (error) {
        this.last.ok = false;
        throw error;
      }
    }
    await this.store.ping();
    if (!this.last.ok) throw new StoreUnavailableError();
  }
}
