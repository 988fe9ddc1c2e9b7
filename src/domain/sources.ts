// Click-source labels: given at creation, or (accounts mode) as `?source=` on a redirect.

import { badRequest, Messages } from './errors.ts';

export const SOURCE_MAX_LENGTH = 255;
export const CLICK_HEADER_MAX_LENGTH = 512;

/** Parses the optional `source` of a create request; `null` is taken as absent. */
export function parseSource(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || codePointLength(value) > SOURCE_MAX_LENGTH) {
    throw badRequest(Messages.sourceRule);
  }
  return value;
}

/** Cuts a value to at most `max` code points, never splitting a surrogate pair. */
export function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  return Array.from(value).slice(0, max).join('');
}

export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
