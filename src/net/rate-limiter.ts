// In-memory rate limits: a token bucket per key (a client address, an e-mail, a user),
// holding at most `count` tokens and refilled evenly over `windowMs`. Memory is bounded:
// a bucket that has refilled completely says nothing a new bucket would not, so it is
// dropped; past `maxKeys` the oldest buckets go first.

import type { RateLimit } from '../config/config.ts';
import { tooManyRequests } from '../domain/errors.ts';

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in milliseconds. */
  at: number;
}

export interface RateLimiterOptions {
  /** Buckets kept at most (each is a few dozen bytes). */
  maxKeys?: number;
  now?: () => number;
}

export const DEFAULT_MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  /** Tokens regained per millisecond. */
  private readonly rate: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(
    readonly limit: RateLimit,
    options: RateLimiterOptions = {},
  ) {
    this.rate = limit.count / limit.windowMs;
    this.maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Spends one request of `key`'s allowance. Returns 0 when it may pass, else the whole
   * seconds until one may (for Retry-After); a refused request spends nothing.
   */
  take(key: string): number {
    const wait = this.wait(key);
    if (wait === 0) (this.buckets.get(key) as Bucket).tokens -= 1;
    return wait;
  }

  /**
   * Spends up to `n` requests of `key`'s allowance at once (the items of a bulk create):
   * as many as it holds. Returns how many were spent, and the whole seconds until one
   * more may pass (0 when some are left).
   */
  takeUpTo(key: string, n: number): { taken: number; wait: number } {
    this.wait(key);
    const bucket = this.buckets.get(key) as Bucket;
    const taken = Math.max(0, Math.min(n, Math.floor(bucket.tokens)));
    bucket.tokens -= taken;
    return { taken, wait: this.wait(key) };
  }

  /** Like take(), but throws 429 Too many requests when refused. */
  enforce(key: string): void {
    const wait = this.take(key);
    if (wait > 0) throw tooManyRequests(wait);
  }

  /** 0 when `key` has allowance left, else the whole seconds until it will; spends nothing. */
  left(key: string): number {
    return this.wait(key);
  }

  /** Throws 429 when `key` has no allowance left, without spending any. */
  enforceLeft(key: string): void {
    const wait = this.wait(key);
    if (wait > 0) throw tooManyRequests(wait);
  }

  /** Forgets `key`, giving it its whole allowance again (e.g. after a successful login). */
  reset(key: string): void {
    this.buckets.delete(key);
  }

  /** Buckets held now (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /** 0 when `key` has a whole token, else the seconds until it will; keeps its bucket current. */
  private wait(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.limit.count, at: now };
      this.add(key, bucket);
    } else {
      bucket.tokens = Math.min(this.limit.count, bucket.tokens + (now - bucket.at) * this.rate);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) return 0;
    // Milliseconds until a whole token, computed from the limit itself (dividing by the
    // rate would add a rounding error that ceil turns into a second).
    const ms = ((1 - bucket.tokens) * this.limit.windowMs) / this.limit.count;
    return Math.max(1, Math.ceil(Math.round(ms) / 1000));
  }

  private add(key: string, bucket: Bucket): void {
    if (this.buckets.size >= this.maxKeys) this.sweep(bucket.at);
    this.buckets.set(key, bucket);
  }

  /** Drops refilled buckets; if none is, the oldest tenth, so a flood of keys stays bounded. */
  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.rate >= this.limit.count) {
        this.buckets.delete(key);
      }
    }
    if (this.buckets.size < this.maxKeys) return;
    let drop = Math.ceil(this.maxKeys / 10);
    for (const key of this.buckets.keys()) {
      if (drop-- === 0) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The key a client address is limited under: an IPv4 address itself, an IPv6 address by
 * its /64 network (one subscriber typically holds a whole /64, so per-address buckets
 * would let one client take 2^64 allowances).
 */
export function addressKey(address: string): string {
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : Math.max(0, 8 - left.length - right.length);
  return [...left, ...Array(zeros).fill('0'), ...right]
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':');
}
