// Redirect rules and A/B variants: their parsing (every rule, with the place of the first
// broken one), and their evaluation as the redirect runs it (each condition type, the
// first matching rule, language q-values, the split's proportions and stickiness), checked
// against a plain reference evaluation for random rules and visits (fast-check).

import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { describeAgent } from '../../src/analytics/user-agents.ts';
import { ApiError } from '../../src/domain/errors.ts';
import {
  type Condition,
  parseRules,
  parseVariants,
  type Rule,
  type Variant,
} from '../../src/domain/link-routing.ts';
import {
  browserOf,
  compileRouting,
  preferredLanguage,
  type RoutingOptions,
  systemOf,
  VARIANT_COOKIE,
} from '../../src/redirect/link-routing.ts';

const ok = () => {};
const TARGET = 'https://example.com/default';
const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  samsung:
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  opera:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/109.0.0.0',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  ubuntu: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  chromeos:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
} as const;

/** The 400 message `read` throws. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
  throw new Error('no refusal');
}

interface VisitOf {
  ua?: string;
  language?: string;
  address?: string;
  query?: string;
  cookie?: string;
  now?: number;
}

function visit({ ua, language, address, query, cookie, now }: VisitOf = {}) {
  const headers: Record<string, string> = {};
  if (ua !== undefined) headers['user-agent'] = ua;
  if (language !== undefined) headers['accept-language'] = language;
  if (cookie !== undefined) headers.cookie = cookie;
  return {
    request: new Request(`https://go.example/promo${query ?? ''}`, { headers }),
    address: () => address ?? null,
    now: now ?? Date.parse('2026-11-26T12:00:00Z'),
  };
}

const COUNTRIES: Record<string, string> = { '203.0.113.7': 'DE', '198.51.100.9': 'FR' };
const options = (extra: Partial<RoutingOptions> = {}): RoutingOptions => ({
  target: TARGET,
  path: '/promo',
  secure: true,
  countryOf: (address) => COUNTRIES[address] ?? null,
  ...extra,
});

const rule = (url: string, ...conditions: Condition[]): Rule => ({ url, conditions });

describe('parsing rules', () => {
  test('each condition type, normalised as kept', () => {
    const rules = parseRules(
      [
        {
          url: 'https://apps.apple.com/app',
          conditions: [
            { type: 'device', value: 'mobile' },
            { type: 'os', value: 'ios' },
            { type: 'browser', value: 'safari' },
            { type: 'language', value: 'DE' },
            { type: 'country', value: 'de' },
            { type: 'query', name: 'ref' },
            { type: 'query', name: 'ref', value: 'mail' },
            { type: 'after', value: '2026-12-01T00:00:00+01:00' },
            { type: 'before', value: '2027-01-01T00:00:00Z' },
            { type: 'bot', value: false },
          ],
        },
      ],
      ok,
    );
    expect(rules).toEqual([
      {
        url: 'https://apps.apple.com/app',
        conditions: [
          { type: 'device', value: 'mobile' },
          { type: 'os', value: 'ios' },
          { type: 'browser', value: 'safari' },
          { type: 'language', value: 'de' },
          { type: 'country', value: 'DE' },
          { type: 'query', name: 'ref' },
          { type: 'query', name: 'ref', value: 'mail' },
          { type: 'after', value: '2026-11-30T23:00:00.000Z' },
          { type: 'before', value: '2027-01-01T00:00:00.000Z' },
          { type: 'bot', value: false },
        ],
      },
    ]);
  });

  test('absent is undefined; null and [] clear', () => {
    expect(parseRules(undefined, ok)).toBeUndefined();
    expect(parseRules(null, ok)).toBeNull();
    expect(parseRules([], ok)).toBeNull();
  });

  test('each broken rule is refused with its place', () => {
    const one = (conditions: unknown, url: unknown = 'https://example.com/') =>
      refusal(() =>
        parseRules(
          [
            { url: 'https://example.com/ok', conditions: [{ type: 'bot', value: true }] },
            { url, conditions },
          ],
          ok,
        ),
      );
    expect(refusal(() => parseRules('x', ok))).toBe(
      'rules must be a list of at most 20 rules, each with url and conditions',
    );
    const many = Array.from({ length: 21 }, () => ({
      url: 'https://example.com/',
      conditions: [{ type: 'bot', value: true }],
    }));
    expect(refusal(() => parseRules(many, ok))).toBe(
      'rules must be a list of at most 20 rules, each with url and conditions',
    );
    expect(refusal(() => parseRules([1], ok))).toBe(
      'rules[0]: a rule must be an object with url and conditions',
    );
    expect(one([{ type: 'bot', value: true }], 'ftp://x')).toBe(
      'rules[1].url: URL must start with http:// or https://',
    );
    expect(one([{ type: 'bot', value: true }], null)).toBe('rules[1].url: url is required');
    expect(one([])).toBe('rules[1].conditions: conditions must be a list of 1 to 10 conditions');
    expect(one(Array.from({ length: 11 }, () => ({ type: 'bot', value: true })))).toBe(
      'rules[1].conditions: conditions must be a list of 1 to 10 conditions',
    );
    const cases: [unknown, string][] = [
      ['x', 'a condition must be an object with a type'],
      [
        { type: 'weather', value: 'sunny' },
        'type must be device, os, browser, language, country, query, after, before or bot',
      ],
      [{ type: 'device', value: 'phone' }, 'device must be mobile, tablet or desktop'],
      [{ type: 'os', value: 'iOS' }, 'os must be ios, android, windows, macos or linux'],
      [
        { type: 'browser', value: 'netscape' },
        'browser must be chrome, safari, firefox, edge, opera or samsung',
      ],
      [
        { type: 'language', value: 'de-DE' },
        'language must be a primary language tag of 2 or 3 letters, such as de',
      ],
      [
        { type: 'country', value: 'XX' },
        'country must be a two-letter ISO 3166 country code, such as DE',
      ],
      [
        { type: 'country', value: 'DEU' },
        'country must be a two-letter ISO 3166 country code, such as DE',
      ],
      [
        { type: 'query', name: '' },
        'query needs a name of 1 to 100 characters and, if given, a value of at most 200',
      ],
      [
        { type: 'query', name: 'a', value: 3 },
        'query needs a name of 1 to 100 characters and, if given, a value of at most 200',
      ],
      [
        { type: 'query', name: 'a'.repeat(101) },
        'query needs a name of 1 to 100 characters and, if given, a value of at most 200',
      ],
      [
        { type: 'after', value: '2026-12-01' },
        'after and before must be ISO 8601 date-times with a time zone, such as 2026-12-31T23:59:59Z',
      ],
      [
        { type: 'before', value: '2026-02-30T00:00:00Z' },
        'after and before must be ISO 8601 date-times with a time zone, such as 2026-12-31T23:59:59Z',
      ],
      [{ type: 'bot', value: 'yes' }, 'bot must be true or false'],
    ];
    for (const [condition, message] of cases) {
      expect(one([{ type: 'bot', value: true }, condition])).toBe(
        `rules[1].conditions[1]: ${message}`,
      );
    }
  });

  test("a rule's url meets the link's own target rules", () => {
    const refuseSelf = (url: string) => {
      if (url.includes('go.example')) throw new ApiError(400, 'URL must not point to this service');
    };
    expect(
      refusal(() =>
        parseRules(
          [{ url: 'https://go.example/x', conditions: [{ type: 'bot', value: true }] }],
          refuseSelf,
        ),
      ),
    ).toBe('rules[0].url: URL must not point to this service');
  });
});

describe('parsing variants', () => {
  test('2 to 4 targets whose whole weights add up to 100', () => {
    const two = [
      { url: 'https://example.com/a', weight: 30 },
      { url: 'https://example.com/b', weight: 70 },
    ];
    expect(parseVariants(two, ok)).toEqual(two);
    expect(parseVariants(undefined, ok)).toBeUndefined();
    expect(parseVariants(null, ok)).toBeNull();
    const rule = 'variants must be a list of 2 to 4 variants whose weights add up to 100';
    expect(refusal(() => parseVariants([{ url: 'https://example.com/', weight: 100 }], ok))).toBe(
      rule,
    );
    const five = Array.from({ length: 5 }, () => ({ url: 'https://example.com/', weight: 20 }));
    expect(refusal(() => parseVariants(five, ok))).toBe(rule);
    expect(refusal(() => parseVariants([two[0], { ...two[1], weight: 60 }], ok))).toBe(rule);
    expect(refusal(() => parseVariants([two[0], 'x'], ok))).toBe(
      'variants[1]: a variant must be an object with url and weight',
    );
    expect(refusal(() => parseVariants([two[0], { url: 'nope', weight: 70 }], ok))).toBe(
      'variants[1].url: URL must start with http:// or https://',
    );
    for (const weight of [0, 101, 69.5, '70']) {
      expect(refusal(() => parseVariants([two[0], { ...two[1], weight }], ok))).toBe(
        'variants[1].weight: weight must be a whole number from 1 to 100',
      );
    }
  });
});

describe('evaluating rules', () => {
  const at = (rules: Rule[], v: VisitOf) => compileRouting(rules, null, options())?.route(visit(v));

  test('a link with neither rules nor variants has no routing', () => {
    expect(compileRouting(null, null, options())).toBeUndefined();
  });

  test('each condition type', () => {
    const check = (condition: Condition, yes: VisitOf, no: VisitOf) => {
      const rules = [rule('https://example.com/hit', condition)];
      expect(at(rules, yes)).toMatchObject({
        location: 'https://example.com/hit',
        route: 'rule:0',
      });
      expect(at(rules, no)).toMatchObject({ location: TARGET, route: 'default' });
    };
    check({ type: 'device', value: 'mobile' }, { ua: UA.iphone }, { ua: UA.ipad });
    check({ type: 'device', value: 'tablet' }, { ua: UA.ipad }, { ua: UA.mac });
    check({ type: 'device', value: 'desktop' }, { ua: UA.mac }, { ua: UA.android });
    check({ type: 'os', value: 'ios' }, { ua: UA.ipad }, { ua: UA.mac });
    check({ type: 'os', value: 'android' }, { ua: UA.samsung }, { ua: UA.iphone });
    check({ type: 'os', value: 'windows' }, { ua: UA.edge }, { ua: UA.ubuntu });
    check({ type: 'os', value: 'macos' }, { ua: UA.mac }, { ua: UA.iphone });
    check({ type: 'os', value: 'linux' }, { ua: UA.ubuntu }, { ua: UA.chromeos });
    check({ type: 'browser', value: 'chrome' }, { ua: UA.android }, { ua: UA.edge });
    check({ type: 'browser', value: 'edge' }, { ua: UA.edge }, { ua: UA.opera });
    check({ type: 'browser', value: 'opera' }, { ua: UA.opera }, { ua: UA.edge });
    check({ type: 'browser', value: 'samsung' }, { ua: UA.samsung }, { ua: UA.android });
    check({ type: 'browser', value: 'safari' }, { ua: UA.iphone }, { ua: UA.ubuntu });
    check({ type: 'browser', value: 'firefox' }, { ua: UA.ubuntu }, {});
    check({ type: 'bot', value: true }, { ua: UA.googlebot }, { ua: UA.iphone });
    check({ type: 'bot', value: false }, { ua: UA.iphone }, { ua: UA.googlebot });
    check({ type: 'language', value: 'de' }, { language: 'de-CH, en;q=0.5' }, { language: 'en' });
    check(
      { type: 'country', value: 'DE' },
      { address: '203.0.113.7' },
      { address: '198.51.100.9' },
    );
    check({ type: 'country', value: 'FR' }, { address: '198.51.100.9' }, {});
    check({ type: 'query', name: 'ref' }, { query: '?ref' }, { query: '?refx=1' });
    check(
      { type: 'query', name: 'ref', value: 'mail' },
      { query: '?a=1&ref=x&ref=mail' },
      { query: '?ref=Mail' },
    );
    const t = Date.parse('2026-12-01T00:00:00Z');
    check({ type: 'after', value: '2026-12-01T00:00:00.000Z' }, { now: t }, { now: t - 1 });
    check({ type: 'before', value: '2026-12-01T00:00:00.000Z' }, { now: t - 1 }, { now: t });
  });

  test('every condition of a rule must match; the first matching rule wins', () => {
    const rules = [
      rule(
        'https://example.com/ios-de',
        { type: 'os', value: 'ios' },
        { type: 'language', value: 'de' },
      ),
      rule('https://example.com/ios', { type: 'os', value: 'ios' }),
      rule('https://example.com/de', { type: 'language', value: 'de' }),
    ];
    expect(at(rules, { ua: UA.iphone, language: 'de' })?.route).toBe('rule:0');
    expect(at(rules, { ua: UA.iphone, language: 'en' })?.route).toBe('rule:1');
    expect(at(rules, { ua: UA.android, language: 'de' })?.route).toBe('rule:2');
    expect(at(rules, { ua: UA.android, language: 'en' })?.route).toBe('default');
  });

  test("the language is the visitor's most preferred, by q-value", () => {
    expect(preferredLanguage('de-DE,de;q=0.9,en;q=0.8')).toBe('de');
    expect(preferredLanguage('fr;q=0.9, de;q=0.8')).toBe('fr');
    expect(preferredLanguage('en;q=0.5, de')).toBe('de');
    expect(preferredLanguage('de;q=0, en;q=0.1')).toBe('en');
    expect(preferredLanguage('*, fr;q=0.5')).toBe('fr');
    expect(preferredLanguage('de;q=2, it')).toBe('it');
    expect(preferredLanguage('ES-mx;Q=0.7')).toBe('es');
    expect(preferredLanguage('')).toBeNull();
    expect(preferredLanguage(null)).toBeNull();
    expect(preferredLanguage('de;q=0')).toBeNull();
  });

  test('parser names map onto the condition values', () => {
    expect(systemOf('Mac OS')).toBe('macos');
    expect(systemOf('Fedora')).toBe('linux');
    expect(systemOf('Chrome OS')).toBeUndefined();
    expect(browserOf('Mobile Chrome')).toBe('chrome');
    expect(browserOf('Samsung Internet')).toBe('samsung');
    expect(browserOf('Unknown')).toBeUndefined();
  });
});

describe('A/B variants', () => {
  const split: Variant[] = [
    { url: 'https://example.com/a', weight: 20 },
    { url: 'https://example.com/b', weight: 30 },
    { url: 'https://example.com/c', weight: 50 },
  ];

  test('10,000 first visits split within 2 points of the weights', () => {
    const routing = compileRouting(null, split, options());
    const seen = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) {
      const routed = routing?.route(visit());
      const n = Number(routed?.route.split(':')[1]);
      seen[n] = (seen[n] ?? 0) + 1;
      expect(routed?.cookie).toBeDefined();
    }
    split.forEach((v, i) => {
      expect(Math.abs(((seen[i] as number) / 10_000) * 100 - v.weight)).toBeLessThanOrEqual(2);
    });
  });

  test('a visitor keeps their variant; a changed split assigns again; rules come first', () => {
    const draws = [0.9, 0.1];
    const routing = compileRouting(null, split, options({ random: () => draws.shift() ?? 0 }));
    const first = routing?.route(visit());
    expect(first).toMatchObject({ location: 'https://example.com/c', route: 'variant:2' });
    const cookie = first?.cookie as string;
    expect(cookie).toMatch(
      new RegExp(
        `^${VARIANT_COOKIE}=[0-9a-z]+\\.2; Path=/promo; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$`,
      ),
    );
    const pair = cookie.split(';')[0] as string;
    const again = routing?.route(visit({ cookie: `other=1; ${pair}` }));
    expect(again).toEqual({ location: 'https://example.com/c', route: 'variant:2' });
    // Another split (new weights): its own cookie name, so the visitor is drawn again.
    const changed = compileRouting(
      null,
      [
        { url: 'https://example.com/a', weight: 50 },
        { url: 'https://example.com/b', weight: 50 },
      ],
      options({ random: () => 0.1, secure: false }),
    );
    const redrawn = changed?.route(visit({ cookie: pair }));
    expect(redrawn?.route).toBe('variant:0');
    expect(redrawn?.cookie).not.toContain('Secure');
    // A rule that matches goes before the split.
    const both = compileRouting(
      [rule('https://example.com/bots', { type: 'bot', value: true })],
      split,
      options(),
    );
    expect(both?.route(visit({ ua: UA.googlebot }))).toMatchObject({ route: 'rule:0' });
    expect(both?.route(visit({ ua: UA.iphone }))?.route).toMatch(/^variant:/);
  });
});

// The reference: every fact worked out first, each condition read plainly.
function reference(rules: Rule[], v: VisitOf): string {
  const agent = describeAgent(v.ua ?? null);
  const facts = {
    device: agent.device,
    os: systemOf(agent.os),
    browser: browserOf(agent.browser),
    bot: agent.bot,
    language: preferredLanguage(v.language ?? null),
    country: v.address === undefined ? null : (COUNTRIES[v.address] ?? null),
    query: new URLSearchParams(v.query ?? ''),
    now: v.now ?? Date.parse('2026-11-26T12:00:00Z'),
  };
  const holds = (c: Condition): boolean => {
    if (c.type === 'device') return facts.device === c.value;
    if (c.type === 'os') return facts.os === c.value;
    if (c.type === 'browser') return facts.browser === c.value;
    if (c.type === 'bot') return facts.bot === c.value;
    if (c.type === 'language') return facts.language === c.value;
    if (c.type === 'country') return facts.country === c.value;
    if (c.type === 'query') {
      return c.value === undefined
        ? facts.query.has(c.name)
        : facts.query.getAll(c.name).includes(c.value);
    }
    if (c.type === 'after') return facts.now >= Date.parse(c.value);
    return facts.now < Date.parse(c.value);
  };
  const index = rules.findIndex((r) => r.conditions.every(holds));
  return index === -1 ? 'default' : `rule:${index}`;
}

describe('the compiled evaluation', () => {
  test('equals the reference for random rules and visits', () => {
    const instants = [
      '2026-11-01T00:00:00.000Z',
      '2026-11-26T12:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ];
    const condition = fc.oneof(
      fc.record({
        type: fc.constant('device' as const),
        value: fc.constantFrom('mobile', 'tablet', 'desktop'),
      }),
      fc.record({
        type: fc.constant('os' as const),
        value: fc.constantFrom('ios', 'android', 'windows', 'macos', 'linux'),
      }),
      fc.record({
        type: fc.constant('browser' as const),
        value: fc.constantFrom('chrome', 'safari', 'firefox', 'edge', 'opera', 'samsung'),
      }),
      fc.record({ type: fc.constant('bot' as const), value: fc.boolean() }),
      fc.record({
        type: fc.constant('language' as const),
        value: fc.constantFrom('de', 'en', 'fr'),
      }),
      fc.record({
        type: fc.constant('country' as const),
        value: fc.constantFrom('DE', 'FR', 'US'),
      }),
      fc.record({ type: fc.constant('query' as const), name: fc.constantFrom('ref', 'utm') }),
      fc.record({
        type: fc.constant('query' as const),
        name: fc.constantFrom('ref', 'utm'),
        value: fc.constantFrom('a', 'b'),
      }),
      fc.record({
        type: fc.constantFrom('after' as const, 'before' as const),
        value: fc.constantFrom(...instants),
      }),
    ) as fc.Arbitrary<Condition>;
    const rules = fc.array(
      fc.record({
        url: fc.constantFrom('https://example.com/1', 'https://example.com/2'),
        conditions: fc.array(condition, { minLength: 1, maxLength: 4 }),
      }),
      { maxLength: 6 },
    );
    const visits = fc.record({
      ua: fc.option(fc.constantFrom(...Object.values(UA)), { nil: undefined }),
      language: fc.option(fc.constantFrom('de', 'en-US,en;q=0.8', 'fr;q=0.9, de;q=0.8', '*'), {
        nil: undefined,
      }),
      address: fc.option(fc.constantFrom('203.0.113.7', '198.51.100.9', '192.0.2.1'), {
        nil: undefined,
      }),
      query: fc.option(fc.constantFrom('?ref=a', '?utm=b&ref', '?x=1', ''), { nil: undefined }),
      now: fc.constantFrom(
        ...instants.map((i) => Date.parse(i)),
        Date.parse(instants[1] as string) - 1,
      ),
    });
    fc.assert(
      fc.property(rules, visits, (drawn, v) => {
        const routed = compileRouting(drawn, null, options())?.route(visit(v));
        expect(String(routed?.route ?? 'default')).toBe(reference(drawn, v));
      }),
      { numRuns: 2000 },
    );
  });
});
