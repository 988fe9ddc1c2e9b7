// Short-code rules: what a custom code may be, which words are reserved, and how
// codes are generated.

import { badRequest, Messages } from './errors.ts';

export const CODE_MAX_LENGTH = 32;
export const GENERATED_CODE_LENGTH = 7;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const CODE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** Generated codes collide about once in 10^12 draws; a few draws per link are plenty. */
export const GENERATE_ATTEMPTS = 8;

/**
 * Top-level names the service serves or keeps for itself, compared case-insensitively.
 * Anything added at the top level of the URL space must be listed here.
 */
export const RESERVED_CODES: ReadonlySet<string> = new Set([
  'api',
  'health',
  'admin',
  'static',
  'assets',
  // Used by the web UI and the API docs, or kept for them.
  'docs',
  'openapi',
  'favicon',
  'robots',
]);

export function isReservedCode(code: string): boolean {
  return RESERVED_CODES.has(code.toLowerCase());
}

/** True when a request path segment could be a code at all (no lookup needed otherwise). */
export function isCodeShaped(segment: string): boolean {
  return CODE_PATTERN.test(segment);
}

/**
 * Parses the optional `custom_code` of a create request: `undefined` or `null` mean
 * "generate one"; anything else must follow the code rules and not be reserved.
 */
export function parseCustomCode(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !CODE_PATTERN.test(value)) throw badRequest(Messages.codeRule);
  if (isReservedCode(value)) throw badRequest(Messages.codeReserved);
  return value;
}

/** A random code of 7 characters from [A-Za-z0-9], uniform (rejection sampling, no modulo bias). */
export function generateCode(length = GENERATED_CODE_LENGTH): string {
  let code = '';
  // 248 = 4 * 62: bytes at or above it would favour the first letters, so they are drawn again.
  const bytes = new Uint8Array(length * 2);
  while (code.length < length) {
    crypto.getRandomValues(bytes);
    for (let i = 0; i < bytes.length && code.length < length; i++) {
      const byte = bytes[i] as number;
      if (byte < 248) code += ALPHABET[byte % 62];
    }
  }
  return code;
}

/**
 * A code with its short domain, as one string: the code alone on the default domain
 * (domain 0, so the common case builds no string), `domainId/code` on another (no code
 * holds a `/`). The redirect cache's key, and the notice of a link's change.
 */
export function domainCode(domainId: number, code: string): string {
  return domainId === 0 ? code : `${domainId}/${code}`;
}

/** The domain and code of a domainCode. */
export function parseDomainCode(text: string): { domainId: number; code: string } {
  const slash = text.indexOf('/');
  if (slash === -1) return { domainId: 0, code: text };
  return { domainId: Number(text.slice(0, slash)), code: text.slice(slash + 1) };
}
