// Where a link sends each visitor, beyond its one target: redirect rules (the first rule
// whose conditions all match gives the target) and A/B variants (a visitor assigned by
// weight). Each parser takes the JSON value of a create or PATCH body: undefined when the
// field is absent, null (or `[]`) when it clears the setting, else the value as
// kept, or a 400 whose message names the place of the first broken rule
// (`rules[2].conditions[0]: …`). Targets are checked by `checkUrl`, the rules of the
// link's own `url`.

import { ApiError, badRequest, type Message, Messages, placedRequest } from './errors.ts';
import { parseInstant } from './link-settings.ts';
import { codePointLength } from './sources.ts';
import { parseTargetUrl } from './urls.ts';

export const MAX_RULES = 20;
export const MAX_CONDITIONS = 10;
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 4;
export const QUERY_NAME_MAX = 100;
export const QUERY_VALUE_MAX = 200;

export const DEVICES = ['mobile', 'tablet', 'desktop'] as const;
export const SYSTEMS = ['ios', 'android', 'windows', 'macos', 'linux'] as const;
export const BROWSERS = ['chrome', 'safari', 'firefox', 'edge', 'opera', 'samsung'] as const;
export const CONDITION_TYPES = [
  'device',
  'os',
  'browser',
  'language',
  'country',
  'query',
  'after',
  'before',
  'bot',
] as const;

export type Device = (typeof DEVICES)[number];
export type System = (typeof SYSTEMS)[number];
export type Browser = (typeof BROWSERS)[number];

/** A condition as the API shows it and the store keeps it (instants as ISO 8601 UTC). */
export type Condition =
  | { type: 'device'; value: Device }
  | { type: 'os'; value: System }
  | { type: 'browser'; value: Browser }
  /** A primary language subtag, lower-cased (`de`). */
  | { type: 'language'; value: string }
  /** An ISO 3166-1 alpha-2 code, upper-cased (`DE`). */
  | { type: 'country'; value: string }
  /** The parameter is present (no value), or equals the value. */
  | { type: 'query'; name: string; value?: string }
  | { type: 'after'; value: string }
  | { type: 'before'; value: string }
  | { type: 'bot'; value: boolean };

export interface Rule {
  url: string;
  conditions: Condition[];
}

export interface Variant {
  url: string;
  weight: number;
}

/** Checks a target beyond its form (not kurz itself, not blocked); throws its 400. */
export type CheckUrl = (url: string) => void;

/** A region code's English name, or undefined for a code that names no region. */
const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * `rules`: undefined when absent; null and `[]` both clear them (kept as null). Each
 * rule is checked in order, its `url` first, then each condition.
 */
export function parseRules(value: unknown, checkUrl: CheckUrl): Rule[] | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Array.isArray(value) || value.length > MAX_RULES) throw badRequest(Messages.rulesRule);
  if (value.length === 0) return null;
  return value.map((rule, i) => parseRule(rule, `rules[${i}]`, checkUrl));
}

function parseRule(value: unknown, place: string, checkUrl: CheckUrl): Rule {
  if (!isObject(value)) throw placedRequest(place, Messages.ruleShape);
  const url = at(`${place}.url`, () => checkedUrl(value.url, checkUrl));
  const conditions = value.conditions;
  if (!Array.isArray(conditions) || conditions.length === 0 || conditions.length > MAX_CONDITIONS) {
    throw placedRequest(`${place}.conditions`, Messages.ruleConditions);
  }
  return {
    url,
    conditions: conditions.map((condition, k) =>
      at(`${place}.conditions[${k}]`, () => parseCondition(condition)),
    ),
  };
}

/** One condition, read by its type's rule. */
export function parseCondition(value: unknown): Condition {
  if (!isObject(value)) throw badRequest(Messages.conditionShape);
  const type = value.type;
  switch (type) {
    case 'device':
      return { type, value: oneOf(value.value, DEVICES, Messages.conditionDevice) };
    case 'os':
      return { type, value: oneOf(value.value, SYSTEMS, Messages.conditionOs) };
    case 'browser':
      return { type, value: oneOf(value.value, BROWSERS, Messages.conditionBrowser) };
    case 'language':
      return { type, value: parseLanguage(value.value) };
    case 'country':
      return { type, value: parseCountry(value.value) };
    case 'query':
      return parseQuery(value);
    case 'after':
    case 'before': {
      const at = typeof value.value === 'string' ? parseInstant(value.value) : undefined;
      if (at === undefined) throw badRequest(Messages.conditionInstant);
      return { type, value: new Date(at).toISOString() };
    }
    case 'bot':
      if (typeof value.value !== 'boolean') throw badRequest(Messages.conditionBot);
      return { type, value: value.value };
    default:
      throw badRequest(Messages.conditionType);
  }
}

/** A primary language subtag: 2 or 3 letters (ISO 639), kept lower-cased. */
function parseLanguage(value: unknown): string {
  if (typeof value !== 'string' || !/^[a-z]{2,3}$/i.test(value)) {
    throw badRequest(Messages.conditionLanguage);
  }
  return value.toLowerCase();
}

/** A country: two letters naming a region (ISO 3166-1 alpha-2), kept upper-cased. */
function parseCountry(value: unknown): string {
  const code = typeof value === 'string' ? value.toUpperCase() : '';
  if (!/^[A-Z]{2}$/.test(code) || REGIONS.of(code) === undefined) {
    throw badRequest(Messages.conditionCountry);
  }
  return code;
}

function parseQuery(value: Record<string, unknown>): Condition {
  const { name, value: wanted } = value;
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    codePointLength(name) > QUERY_NAME_MAX ||
    !name.isWellFormed() ||
    (wanted !== undefined &&
      (typeof wanted !== 'string' ||
        codePointLength(wanted) > QUERY_VALUE_MAX ||
        !wanted.isWellFormed()))
  ) {
    throw badRequest(Messages.conditionQuery);
  }
  return wanted === undefined ? { type: 'query', name } : { type: 'query', name, value: wanted };
}

/**
 * `variants`: undefined when absent, null and `[]` clear them; else 2 to 4 targets with
 * whole weights from 1 to 100 adding up to 100.
 */
export function parseVariants(value: unknown, checkUrl: CheckUrl): Variant[] | null | undefined {
  if (value === undefined || value === null) return value;
  if (Array.isArray(value) && value.length === 0) return null;
  if (!Array.isArray(value) || value.length < MIN_VARIANTS || value.length > MAX_VARIANTS) {
    throw badRequest(Messages.variantsRule);
  }
  const variants = value.map((variant, i): Variant => {
    const place = `variants[${i}]`;
    if (!isObject(variant)) throw placedRequest(place, Messages.variantShape);
    const url = at(`${place}.url`, () => checkedUrl(variant.url, checkUrl));
    const weight = variant.weight;
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > 100) {
      throw placedRequest(`${place}.weight`, Messages.variantWeight);
    }
    return { url, weight };
  });
  if (variants.reduce((sum, v) => sum + v.weight, 0) !== 100) {
    throw badRequest(Messages.variantsRule);
  }
  return variants;
}

function checkedUrl(value: unknown, checkUrl: CheckUrl): string {
  const url = parseTargetUrl(value);
  checkUrl(url);
  return url;
}

/** Runs `read`, placing its 400 at `place`. */
function at<T>(place: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      throw placedRequest(place, error.message);
    }
    throw error;
  }
}

function oneOf<const T extends readonly string[]>(
  value: unknown,
  allowed: T,
  message: Message,
): T[number] {
  if (typeof value !== 'string' || !allowed.includes(value)) throw badRequest(message);
  return value as T[number];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rules or variants as the store keeps them: JSON text, null for none. */
export function routingText(value: readonly Rule[] | readonly Variant[] | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
