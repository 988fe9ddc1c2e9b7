// The abuse limits of kurz, one rate limiter per kind of request, and the one way the
// HTTP modules learn a request's client address. With rate limits off there are no
// limiters at all, so nothing is paid for them.

import type { RateLimits } from '../config/config.ts';
import type { TrustedProxies } from '../config/values.ts';
import { clientAddress } from './client-address.ts';
import { addressKey, RateLimiter } from './rate-limiter.ts';

export interface AbuseLimits {
  /** Failed logins per client address. */
  login: RateLimiter;
  /** Failed logins per e-mail. */
  loginEmail: RateLimiter;
  /** Registrations per client address. */
  register: RateLimiter;
  /** Creates per user (accounts mode) or per client address (open mode). */
  create: RateLimiter;
  /** Requests for unknown codes per client address. */
  unknownCode: RateLimiter;
  /** Wrong passwords per protected link and client address. */
  linkPassword: RateLimiter;
  /** Reports of abusive links per client address. */
  report: RateLimiter;
}

export function createAbuseLimits(limits: RateLimits | undefined): AbuseLimits | undefined {
  if (limits === undefined) return undefined;
  return {
    login: new RateLimiter(limits.login),
    loginEmail: new RateLimiter(limits.loginEmail),
    register: new RateLimiter(limits.register),
    create: new RateLimiter(limits.create),
    unknownCode: new RateLimiter(limits.unknownCode),
    linkPassword: new RateLimiter(limits.linkPassword),
    report: new RateLimiter(limits.report),
  };
}

/** What a request's socket tells of its peer; Bun's server, or null in-process. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

/** The socket peer of a request, when known (tests in-process may supply their own). */
export type PeerOf = (request: Request, server: PeerSource | null) => string | undefined;

export const socketPeer: PeerOf = (request, server) =>
  server?.requestIP(request)?.address ?? undefined;

/** A request's client address, as every per-client rule of kurz reads it. */
export type ClientOf = (request: Request, server: PeerSource | null) => string;

export function clientResolver(trusted: TrustedProxies, peerOf: PeerOf = socketPeer): ClientOf {
  return (request, server) => clientAddress(peerOf(request, server), request.headers, trusted);
}

/** The rate-limit key of a request's client: its address, or its /64 for IPv6. */
export function clientKey(clientOf: ClientOf, request: Request, server: PeerSource | null) {
  return addressKey(clientOf(request, server));
}

/**
 * A route hook that spends one request of the client's allowance under `limiter`, or
 * answers 429. Nothing when rate limits are off.
 */
export function perClient(limiter: RateLimiter | undefined, clientOf: ClientOf) {
  return ({ request, server }: { request: Request; server: PeerSource | null }): void => {
    limiter?.enforce(clientKey(clientOf, request, server));
  };
}

/**
 * A route hook that answers 429 when the client has no allowance left under `limiter`,
 * without spending any: the handler spends it when the request fails (failed logins).
 */
export function perClientLeft(limiter: RateLimiter | undefined, clientOf: ClientOf) {
  return ({ request, server }: { request: Request; server: PeerSource | null }): void => {
    limiter?.enforceLeft(clientKey(clientOf, request, server));
  };
}
