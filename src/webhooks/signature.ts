// Webhook secrets and signatures by the Standard Webhooks scheme
// (https://www.standardwebhooks.com): a `whsec_` secret of random bytes in base64, and
// `v1,<base64 HMAC-SHA256>` over `{id}.{timestamp}.{body}` with the decoded secret, so
// receivers can verify kurz's calls with any Standard Webhooks library.

import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** 256 bits: the spec asks for at least 24 bytes. */
const SECRET_BYTES = 32;

/** A new signing secret, shown to its owner once. */
export function newWebhookSecret(): string {
  return (
    SECRET_PREFIX +
    Buffer.from(crypto.getRandomValues(new Uint8Array(SECRET_BYTES))).toString('base64')
  );
}

/** The `webhook-signature` header of one attempt: `v1,` and the HMAC in base64. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}
