// A webhook receiver for tests: Bun.serve on 127.0.0.1 that records every call and
// answers as the test says; and the Standard Webhooks signature check, written here
// from the specification (standard-webhooks.md, "Verifying signatures"), so that it
// checks kurz's signing rather than repeating it.

import { onTestFinished } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'bun';
import { atCleanUp } from './cleanup.ts';

export interface Call {
  headers: Headers;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  json: any;
}

/** How the receiver answers its n-th call (from 0). */
export type Answer = (call: Call, n: number) => Response | Promise<Response>;

export class Receiver {
  readonly calls: Call[] = [];
  private answer: Answer = () => new Response(null, { status: 204 });

  private constructor(private readonly server: Server<undefined>) {}

  /** A receiver on `port` (0: any free one), stopped when the test or the run ends. */
  static start(port = 0): Receiver {
    let receiver: Receiver | undefined;
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port,
      fetch: async (request) => {
        const body = await request.text();
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const call = { headers: request.headers, body, json };
        const self = receiver as Receiver;
        self.calls.push(call);
        return self.answer(call, self.calls.length - 1);
      },
    });
    receiver = new Receiver(server);
    const stop = async () => {
      await server.stop(true);
    };
    try {
      onTestFinished(stop);
    } catch {
      // Not in a test.
    }
    atCleanUp(stop);
    return receiver;
  }

  get port(): number {
    return this.server.port as number;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  answerWith(answer: Answer): void {
    this.answer = answer;
  }

  async stop(): Promise<void> {
    await this.server.stop(true);
  }

  /** The bodies received, once per message (a message sent again counts once), in arrival order. */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  messages(): any[] {
    const seen = new Map<string, unknown>();
    for (const call of this.calls) {
      const id = call.headers.get('webhook-id') as string;
      if (!seen.has(id)) seen.set(id, call.json);
    }
    return [...seen.values()];
  }
}

/** A port that was free a moment ago and has nothing listening on it now. */
export async function closedPort(): Promise<number> {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = server.port as number;
  await server.stop(true);
  return port;
}

/** Seconds a message's timestamp may be off from now, as the specification suggests. */
const TOLERANCE_S = 5 * 60;

/**
 * Verifies a call by the Standard Webhooks specification: the signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}`, the key the base64 after `whsec_`, and one
 * of the space-separated `v1,<base64 HMAC-SHA256>` signatures must match, compared in
 * constant time, with a timestamp within the tolerance.
 */
export function verifyStandardWebhook(secret: string, call: Call, now = Date.now()): boolean {
  const id = call.headers.get('webhook-id');
  const timestamp = call.headers.get('webhook-timestamp');
  const signatures = call.headers.get('webhook-signature');
  if (id === null || timestamp === null || signatures === null) return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_S) {
    return false;
  }
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${call.body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
