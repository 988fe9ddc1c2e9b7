// Sends the webhook outbox. It claims due messages a few at a time (each claim one short
// transaction, leased so no other instance sends them meanwhile), signs and POSTs each
// within a deadline, and records what came of it: delivered; tried again after an
// exponential backoff; given up a day after the event. It runs in the server's process
// beside the requests, with a bounded number of calls in flight, and nothing on the
// redirect or click path waits for it: the outbox, written in the changes' own
// transactions, is all that ties them.

import { scheduleRetention } from '../clicks/retention.ts';
import type { DomainOf } from '../links/link-json.ts';
import { type Logger, throttled } from '../logger.ts';
import { abortable } from '../net/abortable.ts';
import type { DeliveryOutcome, DueDelivery, Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import { messageBody, messageId } from './payloads.ts';
import { signature } from './signature.ts';
import { pinnedTarget, type TargetPolicy, TargetRefused } from './targets.ts';

/** When failed messages are tried again. */
export interface RetrySchedule {
  /** The wait after the first failed attempt; it doubles after each further one. */
  firstMs: number;
  /** The longest wait between two attempts. */
  maxMs: number;
  /** How long after its event a message is tried at all: past it, it is given up. */
  giveUpMs: number;
}

/** 5 s, 10 s, 20 s … an hour at most, for a day: about 30 attempts. */
export const DEFAULT_SCHEDULE: RetrySchedule = {
  firstMs: 5_000,
  maxMs: 3_600_000,
  giveUpMs: 86_400_000,
};

export interface DispatcherOptions {
  store: Store;
  /** The host and base URL of a link's domain, for the `domain` and `short_url` of link events. */
  domainOf: DomainOf;
  log: Logger;
  policy: TargetPolicy;
  schedule?: RetrySchedule;
  /** How often the outbox is looked at for messages this instance was not told of. */
  pollMs?: number;
  /** Calls in flight at most. */
  concurrency?: number;
  /** How long one attempt may take, from the DNS lookup to the answer's status. */
  timeoutMs?: number;
  /** Days delivered and given-up messages are kept for their owners to see. */
  keepDays?: number;
}

/** Characters of a failing answer's body kept in its message's last_error. */
const ERROR_BODY_CHARS = 200;
/** A lease outlasts the attempt's deadline by this much, for recording the outcome. */
const LEASE_MARGIN_MS = 20_000;

/** When a message that failed its `attempts`-th attempt at `now` is tried again; null: given up. */
export function nextAttemptAt(
  createdAt: number,
  attempts: number,
  now: number,
  schedule: RetrySchedule,
): number | null {
  const wait = Math.min(schedule.firstMs * 2 ** (attempts - 1), schedule.maxMs);
  // ±20%, so that receivers that failed together are not called again all at once.
  const next = Math.round(now + wait * (0.8 + Math.random() * 0.4));
  return next > createdAt + schedule.giveUpMs ? null : next;
}

export class WebhookDispatcher {
  readonly policy: TargetPolicy;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly faults: Logger;
  private readonly schedule: RetrySchedule;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly keepDays: number;
  private running = false;
  private poll: ReturnType<typeof setInterval> | undefined;
  private stopPruning = () => {};
  /** The claim under way, and whether another was asked for meanwhile. */
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  /** Attempts in flight, each with the controller that abandons it at shutdown. */
  private readonly sending = new Map<Promise<void>, AbortController>();

  constructor(private readonly options: DispatcherOptions) {
    this.store = options.store;
    this.log = options.log;
    this.faults = throttled(options.log);
    this.policy = options.policy;
    this.schedule = options.schedule ?? DEFAULT_SCHEDULE;
    this.pollMs = options.pollMs ?? 1000;
    this.concurrency = options.concurrency ?? 8;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.keepDays = options.keepDays ?? 7;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.poll = setInterval(() => this.wake(), this.pollMs);
    this.poll.unref();
    this.stopPruning = scheduleRetention(this.keepDays, (before) => {
      this.store.pruneDeliveries(before).catch(() => {
        // Tried again at the next run.
      });
    });
    const release = this.store.releaseDeliveries?.(Date.now());
    if (release === undefined) {
      this.wake();
      return;
    }
    // A sender that died (kill -9, power loss) left its leases: on a store only this
    // process sends from, they are its own, and nothing waits for them to run out.
    release.then(
      () => this.wake(),
      () => this.wake(),
    );
  }

  /** Looks at the outbox now: a change of this instance just put a message there. */
  wake(): void {
    if (!this.running) return;
    if (this.claiming !== undefined) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claim().finally(() => {
      this.claiming = undefined;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.wake();
      }
    });
  }

  /**
   * Stops claiming and abandons the attempts in flight (their leases pass and they are
   * sent again, by this instance after a restart or by another): resolves once nothing
   * of it touches the store any more, so the store may close.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.poll);
    this.stopPruning();
    for (const controller of this.sending.values()) controller.abort();
    await this.claiming;
    await Promise.allSettled(this.sending.keys());
  }

  /** Claims what there is room for, as long as full claims come back. */
  private async claim(): Promise<void> {
    while (this.running) {
      const room = this.concurrency - this.sending.size;
      if (room <= 0) return;
      let due: DueDelivery[];
      try {
        due = await this.store.claimDeliveries(Date.now(), room, this.timeoutMs + LEASE_MARGIN_MS);
      } catch (error) {
        this.faults.error(`kurz: webhook deliveries wait: ${errorText(error)}`);
        return;
      }
      for (const message of due) this.send(message);
      if (due.length < room) return;
    }
  }

  private send(message: DueDelivery): void {
    const controller = new AbortController();
    const sent: Promise<void> = this.attempt(message, controller.signal)
      .then((outcome) => (outcome === undefined ? undefined : this.record(message, outcome)))
      .catch((error) => this.faults.error(`kurz: webhook delivery failed: ${errorText(error)}`))
      .finally(() => {
        this.sending.delete(sent);
        // Room for another.
        this.wake();
      });
    this.sending.set(sent, controller);
  }

  private async record(message: DueDelivery, outcome: DeliveryOutcome): Promise<void> {
    await this.store.finishDelivery(outcome);
    if (!outcome.delivered && outcome.nextAttemptAt === null) {
      this.log.info(
        `kurz: webhook ${message.webhookId} message ${messageId(message)} given up after ${message.attempts + 1} attempts (${outcome.error})`,
      );
    }
  }

  /** One attempt; undefined when abandoned by stop(). */
  private async attempt(
    message: DueDelivery,
    stopped: AbortSignal,
  ): Promise<DeliveryOutcome | undefined> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([stopped, deadline]);
    const outcome = (status: number | null, error: string | null): DeliveryOutcome => {
      const at = Date.now();
      const delivered = error === null;
      return {
        id: message.id,
        at,
        status,
        error,
        delivered,
        nextAttemptAt: delivered
          ? null
          : nextAttemptAt(message.createdAt, message.attempts + 1, at, this.schedule),
      };
    };
    try {
      const target = await abortable(pinnedTarget(new URL(message.url), this.policy), signal);
      const id = messageId(message);
      const timestamp = Math.floor(Date.now() / 1000);
      const body = messageBody(message, this.options.domainOf);
      const response = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `kurz/${VERSION} (webhooks)`,
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature(message.secret, id, timestamp, body),
          ...(target.host !== undefined ? { host: target.host } : {}),
        },
        body,
        // A redirect is a failure: the owner should change the URL (Standard Webhooks).
        redirect: 'manual',
        signal,
        ...(target.serverName !== undefined ? { tls: { serverName: target.serverName } } : {}),
      });
      const status = response.status;
      if (status >= 200 && status < 300) {
        await response.body?.cancel();
        return outcome(status, null);
      }
      const said = await startOf(response, ERROR_BODY_CHARS);
      const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
      return outcome(status, `HTTP ${status}${redirect}${said ? `: ${said}` : ''}`);
    } catch (error) {
      if (stopped.aborted) return undefined;
      if (error instanceof TargetRefused) return outcome(null, `refused: ${error.reason}`);
      if (deadline.aborted) return outcome(null, `no answer within ${this.timeoutMs / 1000} s`);
      return outcome(null, errorText(error));
    }
  }
}

/** The first `chars` characters of an answer's body, on one line; the rest is not read. */
async function startOf(response: Response, chars: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < chars) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // What arrived is enough to say.
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, chars).replace(/\s+/g, ' ').trim();
}

/**
 * An error in words, with any URL in it cut to its origin: a webhook's path or query may
 * hold its receiver's own secret, which must not reach the log.
 */
export function errorText(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
      : String(error);
  return text.replace(/\b(https?:\/\/[^\s"'/?#]+)[^\s"']*/g, '$1');
}
