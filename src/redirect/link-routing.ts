// A link's rules and variants compiled once, when the link is cached, into what the
// redirect runs per visit: the first rule whose conditions all match gives the target,
// else a variant by weight (kept by a cookie), else the link's own target. What a visit
// tells (its agent, language, country, query) is read only when a condition asks for it,
// and once: a link without rules and variants has no routing at all and pays nothing.

import { describeAgent } from '../analytics/user-agents.ts';
import type { Browser, Condition, Rule, System, Variant } from '../domain/link-routing.ts';
import { remembered } from '../domain/remembered.ts';
import { toLocationHeader } from '../domain/urls.ts';

/** What served a visit, kept with its click: `rule:N`, `variant:N` (0-based) or `default`. */
export type RouteName = `rule:${number}` | `variant:${number}` | 'default';

/** What a visit is checked against; each part is read on first use. */
export interface Visit {
  request: Request;
  /** The client's address as the trusted-proxy rules give it. */
  address: () => string | null;
  /** Milliseconds since the epoch; Date.now() when absent. */
  now?: number;
}

export interface Routed {
  /** The Location header. */
  location: string;
  route: RouteName;
  /** A Set-Cookie header assigning a new visitor to a variant. */
  cookie?: string;
  /** The answer's headers, made once per target by whoever answers (the link cache). */
  headers?: Headers;
}

export interface LinkRouting {
  route(visit: Visit): Routed;
}

export interface RoutingOptions {
  /** The link's own target: where a visit goes when nothing else applies. */
  target: string;
  /** The link's path (`/promo`): the variant cookie is scoped to it. */
  path: string;
  /** Whether the link's domain is served over https (the cookie is then Secure). */
  secure: boolean;
  countryOf: (address: string) => string | null;
  /** A number in [0, 1) (Math.random; tests pass their own). */
  random?: () => number;
}

/** The variant cookie's name; it is scoped to one link's path. */
export const VARIANT_COOKIE = 'kurz_variant';
/** How long a visitor keeps their variant. */
export const VARIANT_COOKIE_DAYS = 30;

/** The routing of a link with rules or variants; undefined for a link with neither. */
export function compileRouting(
  rules: readonly Rule[] | null,
  variants: readonly Variant[] | null,
  options: RoutingOptions,
): LinkRouting | undefined {
  if (rules === null && variants === null) return undefined;
  const compiled = (rules ?? []).map((rule, i) => ({
    location: toLocationHeader(rule.url),
    route: `rule:${i}` as const,
    matches: all(rule.conditions.map((c) => compileCondition(c, options.countryOf))),
  }));
  const split = variants === null ? undefined : compileSplit(variants, options);
  const fallback: Routed = { location: toLocationHeader(options.target), route: 'default' };
  return {
    route(visit: Visit): Routed {
      const facts = new Facts(visit);
      for (const rule of compiled) {
        if (rule.matches(facts)) return rule;
      }
      return split?.(visit.request) ?? fallback;
    },
  };
}

type Check = (facts: Facts) => boolean;

function all(checks: Check[]): Check {
  return (facts) => {
    for (const check of checks) if (!check(facts)) return false;
    return true;
  };
}

function compileCondition(
  condition: Condition,
  countryOf: (address: string) => string | null,
): Check {
  switch (condition.type) {
    case 'device': {
      const wanted = condition.value;
      return (f) => f.agent().device === wanted;
    }
    case 'os': {
      const wanted = condition.value;
      return (f) => systemOf(f.agent().os) === wanted;
    }
    case 'browser': {
      const wanted = condition.value;
      return (f) => browserOf(f.agent().browser) === wanted;
    }
    case 'bot': {
      const wanted = condition.value;
      return (f) => f.agent().bot === wanted;
    }
    case 'language': {
      const wanted = condition.value;
      return (f) => f.language() === wanted;
    }
    case 'country': {
      const wanted = condition.value;
      return (f) => f.country(countryOf) === wanted;
    }
    case 'query': {
      const { name, value } = condition;
      return value === undefined
        ? (f) => f.query().has(name)
        : (f) => f.query().getAll(name).includes(value);
    }
    case 'after': {
      const at = Date.parse(condition.value);
      return (f) => f.now >= at;
    }
    case 'before': {
      const at = Date.parse(condition.value);
      return (f) => f.now < at;
    }
  }
}

/** What one visit tells, each part worked out at most once. */
class Facts {
  private agentInfo: ReturnType<typeof describeAgent> | undefined;
  private languageTag: string | null | undefined;
  private countryCode: string | null | undefined;
  private params: URLSearchParams | undefined;
  private at: number | undefined;

  constructor(private readonly visit: Visit) {}

  get now(): number {
    this.at ??= this.visit.now ?? Date.now();
    return this.at;
  }

  agent() {
    this.agentInfo ??= describeAgent(this.visit.request.headers.get('user-agent'));
    return this.agentInfo;
  }

  language(): string | null {
    if (this.languageTag === undefined) {
      this.languageTag = rememberedLanguage(this.visit.request.headers.get('accept-language'));
    }
    return this.languageTag;
  }

  country(countryOf: (address: string) => string | null): string | null {
    if (this.countryCode === undefined) {
      const address = this.visit.address();
      this.countryCode = address === null ? null : countryOf(address);
    }
    return this.countryCode;
  }

  query(): URLSearchParams {
    if (this.params === undefined) {
      const url = this.visit.request.url;
      const at = url.indexOf('?');
      this.params = new URLSearchParams(at === -1 ? '' : url.slice(at));
    }
    return this.params;
  }
}

/** Accept-Language headers remembered: browsers send the same few strings. */
const LANGUAGE_CACHE_SIZE = 1000;
const languageOf = remembered(LANGUAGE_CACHE_SIZE, (header) => preferredLanguage(header));

/** preferredLanguage, remembered for the last LANGUAGE_CACHE_SIZE headers seen. */
function rememberedLanguage(header: string | null): string | null {
  return header === null ? null : languageOf(header);
}

/**
 * The primary subtag of the visitor's most preferred language: the range of the highest
 * q (the first of equals), q=0 meaning "not acceptable" and `*` naming no language.
 * `fr;q=0.9, de;q=0.8` prefers French, so a rule for German does not take it.
 */
export function preferredLanguage(header: string | null): string | null {
  if (header === null) return null;
  let best: string | null = null;
  let bestQ = 0;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const tag = range.trim().toLowerCase();
    if (tag === '' || tag === '*') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key?.trim().toLowerCase() === 'q') {
        q = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value?.trim() ?? '') ? Number(value) : 0;
      }
    }
    if (q > bestQ) {
      best = tag.split('-')[0] ?? null;
      bestQ = q;
    }
  }
  return best;
}

/** The system a parser name stands for, as conditions name it. */
const SYSTEM_NAMES = new Map<string, System>([
  ['ios', 'ios'],
  ['android', 'android'],
  ['windows', 'windows'],
  ['mac os', 'macos'],
  ['macos', 'macos'],
  ...[
    'linux',
    'ubuntu',
    'kubuntu',
    'xubuntu',
    'lubuntu',
    'debian',
    'fedora',
    'arch',
    'mint',
    'gentoo',
    'centos',
    'redhat',
    'red hat',
    'suse',
    'opensuse',
    'slackware',
    'mandriva',
    'manjaro',
    'deepin',
    'elementary os',
    'mageia',
    'pclinuxos',
    'raspbian',
  ].map((name) => [name, 'linux'] as [string, System]),
]);

export function systemOf(name: string): System | undefined {
  return SYSTEM_NAMES.get(name.toLowerCase());
}

/** The browser a parser name stands for ("Mobile Chrome" is Chrome; Edge before Chrome). */
export function browserOf(name: string): Browser | undefined {
  const lower = name.toLowerCase();
  if (lower.includes('edge')) return 'edge';
  if (lower.includes('samsung')) return 'samsung';
  if (lower.includes('opera')) return 'opera';
  if (lower.includes('firefox')) return 'firefox';
  if (lower.includes('chrome') || lower.includes('chromium')) return 'chrome';
  if (lower.includes('safari')) return 'safari';
  return undefined;
}

/**
 * The A/B split: a visitor with this split's cookie keeps their variant; a new one is
 * assigned by weight and given the cookie. The cookie names the split (a hash of its
 * targets and weights), so a changed split assigns everyone again.
 */
function compileSplit(
  variants: readonly Variant[],
  options: RoutingOptions,
): (request: Request) => Routed {
  const random = options.random ?? Math.random;
  const split = splitId(variants);
  const routes = variants.map(
    (v, i): Routed => ({
      location: toLocationHeader(v.url),
      route: `variant:${i}`,
    }),
  );
  const bounds: number[] = [];
  let sum = 0;
  for (const v of variants) {
    sum += v.weight;
    bounds.push(sum);
  }
  const attributes = `Path=${options.path}; Max-Age=${VARIANT_COOKIE_DAYS * 86_400}; HttpOnly; SameSite=Lax${options.secure ? '; Secure' : ''}`;
  const prefix = `${split}.`;
  return (request) => {
    const kept = keptVariant(request.headers.get('cookie'), prefix, routes.length);
    if (kept !== undefined) return routes[kept] as Routed;
    const draw = random() * 100;
    let chosen = bounds.findIndex((bound) => draw < bound);
    if (chosen === -1) chosen = routes.length - 1;
    return {
      ...(routes[chosen] as Routed),
      cookie: `${VARIANT_COOKIE}=${prefix}${chosen}; ${attributes}`,
    };
  };
}

/** The variant a Cookie header keeps for this split, if it names one. */
function keptVariant(header: string | null, prefix: string, count: number): number | undefined {
  if (header === null) return undefined;
  for (const pair of header.split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name !== VARIANT_COOKIE || value === undefined || !value.startsWith(prefix)) continue;
    const index = Number(value.slice(prefix.length));
    if (Number.isInteger(index) && index >= 0 && index < count) return index;
  }
  return undefined;
}

/** A short name of a split: a hash of its targets and weights (FNV-1a, base 36). */
function splitId(variants: readonly Variant[]): string {
  let hash = 0x811c9dc5;
  for (const char of JSON.stringify(variants)) {
    hash ^= char.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}
