// Generated requests for fuzzing kurz, and the invariants every answer must keep. Shared
// by test/http/fuzz.test.ts (in-process, a few thousand cases) and bench/fuzz.ts (the
// compiled binary over real sockets, 100,000 cases). Requests are built from the
// endpoints' own rules (valid-shaped bodies) and from hostile shapes: wrong JSON types,
// deep nesting, bodies around and past the 64 KiB limit, invalid UTF-8, NUL, duplicate
// keys, prototype keys, odd Content-Types, chunked bodies, odd paths, methods and tokens.

import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { RESERVED_CODES } from '../../src/domain/codes.ts';
import { Messages } from '../../src/domain/errors.ts';
import { MAX_BODY_BYTES } from '../../src/http/body.ts';

/** Links the runner creates before fuzzing (owned by its user in accounts mode), so redirects and QR codes succeed. */
export const KNOWN_CODES = ['fz-a', 'fz-B', 'fz_c9', 'Z'] as const;

/** How a request authenticates (accounts mode reads it; open mode must ignore it). */
export type AuthKind =
  | 'valid'
  | 'none'
  | 'garbage'
  | 'forged-none'
  | 'forged-key'
  | 'unknown-user'
  | 'expired'
  | 'bad-sub'
  | 'not-bearer';

/** One generated request. Header values are printable ASCII; the wire twists add the rest. */
export interface FuzzCase {
  /** What the request aims at, for the figures: `POST /api/shorten`, `GET /{code}`, … */
  endpoint: string;
  method: string;
  /** Path and query as sent (the in-process client lets the URL parser escape what it must). */
  target: string;
  headers: [string, string][];
  auth: AuthKind;
  /** The header value of a `garbage` token. */
  garbage: string;
  body?: Uint8Array;
  /** Sent without Content-Length, in pieces. */
  chunked: boolean;
  /** A raw-socket distortion (bench only; the in-process client sends `none`). */
  twist: WireTwist;
}

/** Tokens a runner resolves an AuthKind to; see `forgeTokens`. */
export interface Tokens {
  valid: string;
  forgedNone: string;
  forgedKey: string;
  unknownUser: string;
  expired: string;
  badSub: string;
}

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
const concat = (...parts: (string | Uint8Array)[]) =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? bytes(p) : p))));

// ---- tokens -----------------------------------------------------------------------

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signHs256(payload: unknown, secret: string, header: unknown = { alg: 'HS256' }) {
  const unsigned = `${b64url(header)}.${b64url(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** Tokens that must all be refused, next to the runner's valid one; `secret` is the server's key. */
export function forgeTokens(secret: string, valid: string, userId: number): Tokens {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: String(userId), iat: now, exp: now + 3600 };
  return {
    valid,
    forgedNone: `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`,
    forgedKey: signHs256(claims, 'not-the-server-key-not-the-server-key'),
    unknownUser: signHs256({ ...claims, sub: '987654321' }, secret),
    expired: signHs256({ ...claims, iat: now - 7200, exp: now - 3600 }, secret),
    badSub: signHs256({ ...claims, sub: '__proto__' }, secret),
  };
}

/** The Authorization header of a case, or undefined for none. */
export function authorization(c: FuzzCase, tokens: Tokens): string | undefined {
  switch (c.auth) {
    case 'none':
      return undefined;
    case 'garbage':
      return c.garbage;
    case 'not-bearer':
      return `Basic ${Buffer.from('ann:pw').toString('base64')}`;
    case 'valid':
      return `Bearer ${tokens.valid}`;
    case 'forged-none':
      return `Bearer ${tokens.forgedNone}`;
    case 'forged-key':
      return `Bearer ${tokens.forgedKey}`;
    case 'unknown-user':
      return `Bearer ${tokens.unknownUser}`;
    case 'expired':
      return `Bearer ${tokens.expired}`;
    case 'bad-sub':
      return `Bearer ${tokens.badSub}`;
  }
}

// ---- field values ------------------------------------------------------------------

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((n) => String.fromCharCode(n)),
  maxLength: 80,
});
const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
/** A run of `n` characters, cheap at any size. */
const long = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.constantFrom('a', 'é', '😀', '%', ' ', '\u0000'))
    .map(([n, ch]) => ch.repeat(n));
/** Lengths that sit on the limits: 8 KiB URLs, 255-character sources, 64 KiB bodies. */
const boundary = fc.constantFrom(
  255,
  256,
  1024,
  1025,
  8191,
  8192,
  8193,
  65_000,
  MAX_BODY_BYTES,
  MAX_BODY_BYTES + 1,
  100_000,
);

const goodUrl = fc.webUrl({ withQueryParameters: true, withFragments: true });
const urlValue = fc.oneof(
  { weight: 5, arbitrary: goodUrl },
  fc.constantFrom(
    'javascript:alert(1)',
    'ftp://example.com/',
    'HTTP://EXAMPLE.COM/',
    'https://',
    'http://a b.com/',
    'https://user:pw@example.com/',
    'https://exa\\mple.com/',
    'https://kurz.test/abc',
    'http://127.0.0.1/',
    'https://[::1]/',
    'https://example.com/\u0000',
    'https://example.com/\ud800',
    'https://例え.jp/パス',
    '',
  ),
  boundary.map((n) => `https://example.com/${'a'.repeat(Math.max(0, n - 20))}`),
  anyText,
  goodUrl.map((u) => ` ${u}\n`),
);
const reserved = fc
  .tuple(fc.constantFrom(...RESERVED_CODES), fc.boolean())
  .map(([w, upper]) => (upper ? w.toUpperCase() : w));
const codeValue = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/) },
  fc.constantFrom(...KNOWN_CODES),
  reserved,
  fc.stringMatching(/^[A-Za-z0-9_-]{33,40}$/),
  fc.constantFrom('', ' ', 'a b', 'a/b', '..', 'ü', 'a\u0000', '\ud800'),
  anyText,
);
const sourceValue = fc.oneof(fc.string({ maxLength: 255 }), long(250, 300), anyText);
const emailValue = fc.oneof(
  { weight: 4, arbitrary: fc.emailAddress() },
  fc.emailAddress().map((e) => ` ${e.toUpperCase()} `),
  fc.constantFrom('a@b', '@example.com', 'a@@b.com', 'a b@c.de', 'user1@example.com'),
  long(250, 300).map((s) => `${s}@example.com`),
  anyText,
);
const passwordValue = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 8, maxLength: 64 }) },
  fc.string({ maxLength: 7 }),
  long(1020, 1030),
  fc.string({ unit: 'grapheme', minLength: 8, maxLength: 20 }),
  fc.constantFrom('\ud800'.repeat(8), '\u0000'.repeat(8), 'correct horse 42'),
);

/** JSON values of the wrong type for a field. */
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
const field = (good: fc.Arbitrary<unknown>) =>
  fc.option(fc.oneof({ weight: 6, arbitrary: good }, wrongType), { freq: 6, nil: undefined });

const shortenFields = fc.record({
  url: fc.oneof({ weight: 8, arbitrary: urlValue }, wrongType),
  custom_code: field(fc.oneof(codeValue, fc.constant(null))),
  source: field(fc.oneof(sourceValue, fc.constant(null))),
});
const credentialFields = fc.record({ email: field(emailValue), password: field(passwordValue) });

// ---- bodies ------------------------------------------------------------------------

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate, truncated, beyond U+10FFFF. */
const BAD_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf0, 0x9f, 0x98],
  [0xe2, 0x82],
].map((b) => new Uint8Array(b));

/** `[[[…]]]` or `{"a":{"a":…}}` (or a mix), `depth` levels deep. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed', inner: string): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"url":';
    close = (array ? ']' : '}') + close;
  }
  return open + inner + close;
}

export interface Body {
  kind: string;
  bytes: Uint8Array;
}

/** Bodies for an endpoint whose valid-shaped objects come from `fields`. */
function bodyArb(fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Body> {
  const text = (kind: string) => (t: string) => ({ kind, bytes: bytes(t) });
  const json = (v: unknown) => JSON.stringify(v);
  return fc.oneof(
    { weight: 12, arbitrary: fields.map((f) => text('valid-shaped')(json(f))) },
    {
      weight: 3,
      arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => text('any-json')(json(v) ?? 'null')),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 1, max: 32_000 }),
          fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
        )
        .map(([depth, kind]) => text('deep')(nested(depth, kind, '"https://example.com/"'))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fields,
          fc.constantFrom('url', 'custom_code', 'source', 'email', 'password', 'pad'),
          boundary,
        )
        .map(([f, key, n]) => text('huge')(json({ ...f, [key]: 'x'.repeat(n) }))),
    },
    {
      weight: 1,
      // Exactly at and one byte past the limit, made of whitespace after a valid object.
      arbitrary: fc.tuple(fields, fc.integer({ min: -2, max: 2 })).map(([f, d]) => {
        const head = json(f);
        return text('at-limit')(
          head + ' '.repeat(Math.max(0, MAX_BODY_BYTES + d - Buffer.byteLength(head))),
        );
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('url', 'custom_code', 'source', 'email', 'password'),
          fc.constantFrom(...BAD_UTF8),
          fc.boolean(),
        )
        .map(([key, bad, inKey]) => ({
          kind: 'invalid-utf8',
          bytes: inKey
            ? concat('{"', bad, '":1,"url":"https://example.com/"}')
            : concat(`{"url":"https://example.com/","${key}":"ab`, bad, 'c"}'),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"url":"https://example.com/\u0000"}',
          '{"url":"https://example.com/\\u0000"}',
          '{"url":"https://example.com/","custom_code":"a\\u0000b"}',
          '{"email":"a\\u0000@b.co","password":"\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000"}',
          '\u0000',
          '{"url\u0000":"https://example.com/"}',
        )
        .map(text('nul')),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fields, fields).map(([a, b]) => {
        // Every key twice, as raw text (JSON.stringify cannot write it).
        const pairs = [...Object.entries(a), ...Object.entries(b)].map(
          ([k, v]) => `${json(k)}:${json(v) ?? 'null'}`,
        );
        return text('duplicate-keys')(
          `{"url":"a",${pairs.join(',')},"url":"https://example.com/dup"}`,
        );
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fields,
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
        )
        .map(([f, key]) =>
          text('prototype-keys')(
            `{${json(key)}:{"url":"https://evil.example/","isAdmin":true,"prototype":{"polluted":1}},${json(f).slice(1)}`.replace(
              /,}$/,
              '}',
            ),
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '1e309',
          '-1e309',
          '1e-400',
          '123456789012345678901234567890',
          '-0',
          'NaN',
          'Infinity',
          '0x10',
          '1_000',
        )
        .map((n) =>
          text('numbers')(
            `{"url":${n},"custom_code":${n},"source":${n},"email":${n},"password":${n}}`,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('\\ud800', '\\udc00', '\\ud800\\ud800', '\\udfff\\ud800', 'a\\ud83d')
        .map((s) =>
          text('lone-surrogate')(
            `{"url":"https://example.com/${s}","custom_code":"${s}","source":"${s}","email":"a${s}@b.co","password":"${s.repeat(8)}"}`,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 512 }).map((b) => ({ kind: 'random-bytes', bytes: b })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          ' ',
          'null',
          '[]',
          '"https://example.com/"',
          '{',
          '{"url":"https://example.com/"',
          '{"url":"https://example.com/"} trailing',
          '{"url":"https://example.com/"}{"url":"https://example.com/"}',
          "{'url':'https://example.com/'}",
          '{url:"https://example.com/"}',
          '\ufeff{"url":"https://example.com/"}',
          'url=https%3A%2F%2Fexample.com%2F&custom_code=abc',
          '--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://example.com/\r\n--x--\r\n',
          '<?xml version="1.0"?><url>https://example.com/</url>',
        )
        .map(text('malformed')),
    },
  );
}

const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=latin1',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'multipart/form-data',
    'application/octet-stream',
    'application/xml',
    '',
    '*/*',
  ),
  { freq: 4, nil: undefined },
);

// ---- paths and queries -------------------------------------------------------------

const percentBytes = fc
  .uint8Array({ minLength: 1, maxLength: 12 })
  .map((b) => [...b].map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN_CODES) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/) },
  reserved,
  percentBytes,
  fc.constantFrom(
    '',
    '.',
    '..',
    '%2e%2e',
    '%2F',
    'a%2Fb',
    '%00',
    'a%00',
    '%ZZ',
    '%',
    '~',
    "!$&'()*+,;=:@",
    'fz-a.',
    'FZ-A',
    'fz-a%20',
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  printable.map((s) => s.replace(/[#?/\\]/g, '')),
  fc.integer({ min: 33, max: 10_000 }).map((n) => 'a'.repeat(n)),
);

const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 1005 }).map(String),
  fc.constantFrom(
    '',
    '0',
    '1000',
    '1001',
    '-0',
    '+1',
    ' 1',
    '1.5',
    '1e3',
    '0x10',
    '1e309',
    '99999999999999999999',
    'NaN',
    'Infinity',
    '%ZZ',
    '%00',
    '%FF',
    'a&b',
    '__proto__',
  ),
  percentBytes,
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  long(250, 2000).map(encodeURIComponent),
);
const queryKey = fc.constantFrom(
  'limit',
  'offset',
  'source',
  'limit[]',
  '__proto__',
  'constructor',
  'x',
  '',
  '%ZZ',
  'LIMIT',
);
/** `?k=v&…`, sometimes with bare keys, repeated keys or a stray `?`. */
const query = fc
  .array(fc.tuple(queryKey, fc.option(queryValue, { nil: undefined })), { maxLength: 4 })
  .chain((pairs) =>
    fc
      .constantFrom('', '?')
      .map((lead) =>
        pairs.length === 0
          ? lead
          : `?${pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&')}`,
      ),
  );

// ---- headers -----------------------------------------------------------------------

const extraHeaders = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ['origin', 'https://evil.example'],
      ['origin', 'null'],
      ['sec-fetch-site', 'cross-site'],
      ['sec-fetch-site', 'same-origin'],
      ['x-forwarded-for', '1.2.3.4, not-an-address'],
      ['forwarded', 'for="[::1]";proto=https'],
      ['accept-encoding', 'gzip, br'],
      ['if-none-match', '*'],
      ['expect', '100-continue'],
      ['content-encoding', 'gzip'],
      ['accept', 'text/html'],
      ['cookie', 'a=b'],
      ['x-http-method-override', 'DELETE'],
      ['range', 'bytes=0-10'],
    ),
    printable.map((v): [string, string] => ['referer', v]),
    printable.map((v): [string, string] => ['user-agent', v]),
    fc.integer({ min: 500, max: 8000 }).map((n): [string, string] => ['user-agent', 'u'.repeat(n)]),
  ),
  { maxLength: 3 },
);

// ---- endpoints ---------------------------------------------------------------------

/** What a raw-socket case does to its request beyond the generated parts. */
const TWISTS = [
  'duplicate-content-type',
  'duplicate-authorization',
  'raw-utf8-target',
  'invalid-utf8-target',
  'conflicting-content-length',
  'short-content-length',
  'long-content-length',
  'negative-content-length',
  'chunked-and-length',
  'bad-chunk-size',
  'bare-lf',
  'http10',
  'no-host',
  'absolute-form',
  'ctl-in-header',
  'obs-fold',
  'many-headers',
  'odd-method',
  'garbage-request-line',
  'pipelined',
] as const;

export type WireTwist = 'none' | (typeof TWISTS)[number];

/** Twists after which the request is no longer well-formed HTTP: Bun may answer (or close) before kurz sees it. */
export const FRAMING_TWISTS: ReadonlySet<WireTwist> = new Set([
  'invalid-utf8-target',
  'raw-utf8-target',
  'conflicting-content-length',
  'short-content-length',
  'long-content-length',
  'negative-content-length',
  'chunked-and-length',
  'bad-chunk-size',
  'bare-lf',
  'no-host',
  'ctl-in-header',
  'obs-fold',
  'many-headers',
  'odd-method',
  'garbage-request-line',
]);

const authKind = fc.constantFrom<AuthKind>(
  'valid',
  'valid',
  'valid',
  'none',
  'garbage',
  'forged-none',
  'forged-key',
  'unknown-user',
  'expired',
  'bad-sub',
  'not-bearer',
);
const garbageAuth = fc.oneof(
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'bearer a.b.c',
    'Bearer a.b',
    'Bearer ....',
    'Bearer  x.y.z ',
    'Token x',
    'Bearer eyJ.eyJ.x',
  ),
  printable,
  printable.map((s) => `Bearer ${s}`),
  fc.integer({ min: 1000, max: 8000 }).map((n) => `Bearer ${'a'.repeat(n)}`),
);

interface Shape {
  endpoint: string;
  method: string;
  target: string;
  body?: Body;
  contentType?: string;
}

const post = (
  endpoint: string,
  path: fc.Arbitrary<string>,
  fields: fc.Arbitrary<Record<string, unknown>>,
) =>
  fc
    .record({ target: path, body: bodyArb(fields), contentType })
    .map((r): Shape => ({ endpoint, method: 'POST', ...r }));

const getOrHead = fc.constantFrom('GET', 'GET', 'GET', 'HEAD');
const get = (endpoint: string, target: fc.Arbitrary<string>) =>
  fc.record({ method: getOrHead, target }).map((r): Shape => ({ endpoint, ...r }));

const ASSETS = [
  'app.js',
  'app.css',
  'api.js',
  'auth.js',
  'dom.js',
  'docs.css',
  'favicon.svg',
  'links-list.js',
  'shorten.js',
  'index.html',
];
const ODD_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'POST', 'GET', 'HEAD'];
const KNOWN_PATHS = [
  '/',
  '/health',
  '/api/shorten',
  '/api/links',
  '/api/auth/register',
  '/api/auth/login',
  '/api/openapi.json',
  '/api/docs',
  '/assets/app.js',
  '/fz-a',
  '/api/links/fz-a/qr.svg',
];

const shape: fc.Arbitrary<Shape> = fc.oneof(
  {
    weight: 20,
    arbitrary: post(
      'POST /api/shorten',
      fc.constantFrom('/api/shorten', '/api/shorten?x=1'),
      shortenFields,
    ),
  },
  {
    weight: 5,
    arbitrary: post('POST /api/auth/register', fc.constant('/api/auth/register'), credentialFields),
  },
  {
    weight: 5,
    arbitrary: post('POST /api/auth/login', fc.constant('/api/auth/login'), credentialFields),
  },
  {
    weight: 12,
    arbitrary: get(
      'GET /api/links',
      query.map((q) => `/api/links${q}`),
    ),
  },
  {
    weight: 20,
    arbitrary: get(
      'GET /{code}',
      fc
        .tuple(segment, fc.option(query, { nil: '' }), fc.constantFrom('', '', '', '/', '//x'))
        .map(([s, q, tail]) => `/${s}${tail}${q}`),
    ),
  },
  {
    weight: 8,
    arbitrary: get(
      'GET /api/links/{code}/qr',
      fc
        .tuple(segment, fc.constantFrom('svg', 'png', 'SVG', 'gif', 'svg/'), query)
        .map(([s, ext, q]) => `/api/links/${s}/qr.${ext}${q}`),
    ),
  },
  {
    weight: 3,
    arbitrary: get(
      'GET /health',
      query.map((q) => `/health${q}`),
    ),
  },
  {
    weight: 3,
    arbitrary: get(
      'GET /',
      query.map((q) => `/${q}`),
    ),
  },
  {
    weight: 4,
    arbitrary: get(
      'GET /assets/{name}',
      fc.oneof(fc.constantFrom(...ASSETS), segment).map((n) => `/assets/${n}`),
    ),
  },
  {
    weight: 2,
    arbitrary: get(
      'GET /api/openapi.json',
      query.map((q) => `/api/openapi.json${q}`),
    ),
  },
  {
    weight: 2,
    arbitrary: get(
      'GET /api/docs',
      query.map((q) => `/api/docs${q}`),
    ),
  },
  {
    weight: 6,
    arbitrary: fc
      .record({
        method: fc.constantFrom(...ODD_METHODS),
        target: fc.oneof(
          fc
            .tuple(
              fc.constantFrom(
                '/api',
                '/api/',
                '/api/auth',
                '/api/links/',
                '/admin',
                '/static',
                '/.env',
                '/assets',
                '/assets/',
                '//',
                '/api/links/fz-a',
                '/api/links/fz-a/qr',
                '/%2e%2e/etc/passwd',
              ),
              query,
            )
            .map(([p, q]) => p + q),
          fc.array(segment, { minLength: 2, maxLength: 4 }).map((s) => `/${s.join('/')}`),
        ),
      })
      .map((r): Shape => ({ endpoint: 'unknown path', ...r })),
  },
  {
    weight: 6,
    arbitrary: fc
      .record({
        method: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'),
        target: fc.constantFrom(...KNOWN_PATHS),
        body: fc.option(bodyArb(shortenFields), { nil: undefined }),
        contentType,
      })
      .map((r): Shape => ({ endpoint: 'odd method', ...r })),
  },
);

/** A request for the in-process app. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fuzzCaseWith(fc.constant<WireTwist>('none'));

/** A request for the binary: nine in ten sent plainly, the rest with a raw-socket twist. */
export const wireCase: fc.Arbitrary<FuzzCase> = fuzzCaseWith(
  fc.oneof({ weight: 9, arbitrary: fc.constant<WireTwist>('none') }, fc.constantFrom(...TWISTS)),
);

function fuzzCaseWith(twist: fc.Arbitrary<WireTwist>): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      shape,
      auth: authKind,
      garbage: garbageAuth,
      headers: extraHeaders,
      chunked: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
      twist,
    })
    .map(({ shape: s, auth, garbage, headers, chunked, twist }) => {
      const all: [string, string][] = [...headers];
      if (s.contentType !== undefined) all.push(['content-type', s.contentType]);
      return {
        endpoint: s.endpoint,
        method: s.method,
        target: s.target,
        headers: all,
        auth,
        garbage,
        body: s.body?.bytes,
        // A GET with a body is sent over the wire only (fetch refuses it).
        chunked: s.body !== undefined && chunked,
        twist,
      };
    });
}

// ---- sending ----------------------------------------------------------------------

/** The case as a Request for `app.handle` (in-process) or fetch (over HTTP). */
export function toRequest(c: FuzzCase, base: string, tokens: Tokens): Request {
  const headers = new Headers();
  for (const [k, v] of c.headers) headers.append(k, v);
  const auth = authorization(c, tokens);
  if (auth !== undefined) headers.set('authorization', auth);
  const carriesBody = c.body !== undefined && c.method !== 'GET' && c.method !== 'HEAD';
  let body: ReadableStream<Uint8Array> | Uint8Array | undefined;
  if (carriesBody && c.chunked) {
    const data = c.body as Uint8Array;
    body = new ReadableStream<Uint8Array>({
      start(controller) {
        // Pieces of uneven size, so multi-byte characters straddle them.
        for (let i = 0; i < data.length; i += 4093) controller.enqueue(data.subarray(i, i + 4093));
        controller.close();
      },
    });
  } else if (carriesBody) body = c.body;
  return new Request(base + c.target, { method: c.method, headers, body, redirect: 'manual' });
}

/** The raw bytes of the case with its twist applied, for a socket (`Connection: close`). */
export function toWire(c: FuzzCase, host: string, tokens: Tokens): Uint8Array {
  const t = c.twist;
  const eol = t === 'bare-lf' ? '\n' : '\r\n';
  const body = c.body ?? new Uint8Array();
  const lines: string[] = [];
  // What a URL parser would escape before sending; the raw twists add bytes of their own.
  let target: string | Uint8Array = c.target.replace(/[^\x21-\x7e]/gu, (ch) =>
    encodeURIComponent(ch),
  );
  if (t === 'raw-utf8-target') target = concat(target, '/ü€😀');
  if (t === 'invalid-utf8-target')
    target = concat(c.target, BAD_UTF8[c.target.length % BAD_UTF8.length] as Uint8Array);
  if (t === 'absolute-form') target = `http://${host}${target}`;
  const method =
    t === 'odd-method'
      ? ['FOO', 'get', 'PRI', 'CONNECT', 'M-SEARCH', 'GE T'][c.target.length % 6]
      : c.method;
  const version = t === 'http10' ? 'HTTP/1.0' : 'HTTP/1.1';
  if (t !== 'no-host') lines.push(`Host: ${host}`);
  lines.push('Connection: close');
  for (const [k, v] of c.headers) lines.push(`${k}: ${v}`);
  const auth = authorization(c, tokens);
  if (auth !== undefined) lines.push(`Authorization: ${auth}`);
  if (t === 'duplicate-authorization') lines.push(`Authorization: Bearer ${tokens.forgedKey}`);
  if (t === 'duplicate-content-type')
    lines.push('Content-Type: application/json', 'Content-Type: text/plain');
  if (t === 'ctl-in-header') lines.push('X-Ctl: a\u0000b\u0007c');
  if (t === 'obs-fold') lines.push('X-Folded: a', ' folded-on');
  if (t === 'many-headers') for (let i = 0; i < 300; i++) lines.push(`X-H${i}: ${'v'.repeat(100)}`);
  const n = body.length;
  let payload: Uint8Array = body;
  // HTTP/1.0 has no chunked encoding: its bodies always carry a length.
  const chunk = c.chunked && c.body !== undefined && t !== 'http10';
  if (t === 'chunked-and-length' || t === 'bad-chunk-size' || chunk) {
    lines.push('Transfer-Encoding: chunked');
    if (t === 'chunked-and-length') lines.push(`Content-Length: ${n}`);
    const size = t === 'bad-chunk-size' ? 'zz' : n.toString(16);
    payload = n === 0 ? bytes('0\r\n\r\n') : concat(`${size}\r\n`, body, '\r\n0\r\n\r\n');
  } else if (t === 'conflicting-content-length')
    lines.push(`Content-Length: ${n}`, `Content-Length: ${n + 1}`);
  else if (t === 'short-content-length') lines.push(`Content-Length: ${Math.max(0, n - 3)}`);
  else if (t === 'long-content-length') lines.push(`Content-Length: ${n + 10}`);
  else if (t === 'negative-content-length') lines.push('Content-Length: -1');
  else if (c.body !== undefined) lines.push(`Content-Length: ${n}`);
  const head = t === 'garbage-request-line' ? `\u0001\u0002 / HTTP/9${eol}` : '';
  const request = concat(
    head,
    `${method} `,
    target,
    ` ${version}${eol}`,
    lines.join(eol),
    eol,
    eol,
    payload,
  );
  if (t !== 'pipelined') return request;
  // The same request twice on one connection; the first keeps the connection open.
  const first = concat(
    `${method} `,
    target,
    ` ${version}${eol}`,
    lines.filter((l) => l !== 'Connection: close').join(eol),
    eol,
    eol,
    payload,
  );
  return concat(first, request);
}

/** Bytes of the request line and headers (Bun refuses more than 16 KiB with its own 431). */
export function headSize(c: FuzzCase, tokens: Tokens): number {
  const auth = authorization(c, tokens) ?? '';
  const target = c.target.replace(/[^\x21-\x7e]/gu, (ch) => encodeURIComponent(ch));
  return (
    target.length +
    auth.length +
    (c.twist === 'many-headers' ? 300 * 110 : 0) +
    c.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) +
    40
  );
}

// ---- invariants --------------------------------------------------------------------

export interface Answer {
  status: number;
  header(name: string): string | null;
  body: Uint8Array;
}

const MESSAGES: ReadonlySet<string> = new Set(Object.values(Messages));
const SUCCESS = new Set([200, 201, 304, 307]);
/** What a stack trace or a server-side path looks like in a body. */
export const LEAKS: readonly RegExp[] = [
  /\n\s+at [^\n]*[(:]\d*/,
  /\bat [\w.<>]+ \([^)]*:\d+:\d+\)/,
  /\/work\//,
  /node_modules/,
  /\.ts:\d+/,
  /\/src\/[\w/-]+\.[jt]s\b/,
  /\b(?:TypeError|RangeError|SyntaxError|ReferenceError|SQLiteError)\b/,
  /\$bunfs/,
];
// Answers that echo what clients stored (URLs, sources, e-mails) are not checked for
// leaks: a client may store any text, `node_modules` included.
const ECHOES = new Set([
  'POST /api/shorten',
  'GET /api/links',
  'POST /api/auth/register',
  'POST /api/auth/login',
]);

/** What is wrong with an answer to `c`; empty when it keeps every invariant. */
export function problemsOf(c: FuzzCase, a: Answer): string[] {
  const problems: string[] = [];
  const text = new TextDecoder().decode(a.body);
  const type = a.header('content-type') ?? '';
  if (a.status >= 500) problems.push(`status ${a.status}`);
  else if (a.status >= 400) {
    if (!type.startsWith('application/json'))
      problems.push(`error without a JSON Content-Type (${type || 'none'})`);
    if (c.method !== 'HEAD') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        problems.push('error body is not JSON');
      }
      if (parsed !== undefined) {
        const keys =
          typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
            ? Object.keys(parsed)
            : [];
        const message = (parsed as { error?: unknown })?.error;
        if (
          keys.length !== 1 ||
          keys[0] !== 'error' ||
          typeof message !== 'string' ||
          message === ''
        ) {
          problems.push('error body is not {"error": "<message>"}');
        } else if (!MESSAGES.has(message)) problems.push(`unknown error message "${message}"`);
      }
    }
  } else if (!SUCCESS.has(a.status)) problems.push(`unexpected status ${a.status}`);
  else if (a.status === 307) {
    if (!a.header('location')) problems.push('307 without Location');
    if (a.body.length > 0) problems.push('307 with a body');
  } else if (a.status !== 304 && c.method !== 'HEAD' && type.startsWith('application/json')) {
    try {
      JSON.parse(text);
    } catch {
      problems.push('JSON success body does not parse');
    }
  }
  if (!(a.status < 300 && ECHOES.has(c.endpoint))) {
    for (const leak of LEAKS) if (leak.test(text)) problems.push(`body matches ${leak}`);
  }
  return problems;
}

/** A short description of a case for a failure report. */
export function describeCase(c: FuzzCase): string {
  const body =
    c.body === undefined
      ? ''
      : ` body(${c.body.length} B${c.chunked ? ', chunked' : ''}): ${JSON.stringify(Buffer.from(c.body.subarray(0, 160)).toString('latin1'))}`;
  const headers = c.headers.map(([k, v]) => `${k}: ${v.slice(0, 60)}`).join('; ');
  return `${c.method} ${c.target.slice(0, 200)} auth=${c.auth}${c.twist === 'none' ? '' : ` twist=${c.twist}`}${headers ? ` [${headers}]` : ''}${body}`;
}

/** Hostile requests every run sends first, whatever the generator draws. */
export function hostileCases(): FuzzCase[] {
  const make = (
    endpoint: string,
    method: string,
    target: string,
    body: string | Uint8Array,
    more: Partial<FuzzCase> = {},
  ): FuzzCase => ({
    endpoint,
    method,
    target,
    headers: [['content-type', 'application/json']],
    auth: 'valid',
    garbage: '',
    body: typeof body === 'string' ? bytes(body) : body,
    chunked: false,
    twist: 'none',
    ...more,
  });
  const shorten = (body: string | Uint8Array, more?: Partial<FuzzCase>) =>
    make('POST /api/shorten', 'POST', '/api/shorten', body, more);
  const register = (body: string) =>
    make('POST /api/auth/register', 'POST', '/api/auth/register', body);
  const login = (body: string) => make('POST /api/auth/login', 'POST', '/api/auth/login', body);
  const url = '"https://example.com/"';
  return [
    shorten(nested(10_000, 'array', url)),
    shorten(nested(10_000, 'object', url)),
    shorten(nested(30_000, 'array', url)),
    register(nested(10_000, 'object', '"a@b.co"')),
    shorten(`{"url":${url},"pad":"${'x'.repeat(MAX_BODY_BYTES)}"}`),
    shorten(`{"url":${url},"pad":"${'x'.repeat(MAX_BODY_BYTES)}"}`, { chunked: true }),
    shorten(`{"url":${url}}${' '.repeat(MAX_BODY_BYTES - 24)}`),
    shorten(`{"url":"https://example.com/${'a'.repeat(8200)}"}`),
    shorten(concat('{"url":"https://example.com/', new Uint8Array([0xff, 0xfe]), '"}')),
    shorten(
      concat(
        '{"url":"https://example.com/","custom_code":"a',
        new Uint8Array([0xed, 0xa0, 0x80]),
        '"}',
      ),
    ),
    shorten('{"url":"https://example.com/\u0000"}'),
    shorten('{"url":"https://example.com/","custom_code":"a\\u0000"}'),
    shorten('{"url":"a","url":"https://example.com/dup"}'),
    shorten('{"__proto__":{"url":"https://evil.example/"}}'),
    shorten('{"url":"https://example.com/","constructor":{"prototype":{"polluted":true}}}'),
    shorten('{"url":1e309,"custom_code":-1e309,"source":1e-400}'),
    shorten('{"url":"https://example.com/\\ud800","source":"\\udc00"}'),
    shorten(`{"url":${url}}`, { headers: [] }),
    shorten(`{"url":${url}}`, { headers: [['content-type', 'text/plain']] }),
    shorten(`url=https%3A%2F%2Fexample.com`, {
      headers: [['content-type', 'application/x-www-form-urlencoded']],
    }),
    shorten('--x\r\n\r\n--x--', { headers: [['content-type', 'multipart/form-data; boundary=x']] }),
    shorten(`{"url":${url}}`, { chunked: true }),
    register(
      '{"email":"a@b.co","password":"\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800"}',
    ),
    register(`{"email":"a@b.co","password":"${'p'.repeat(1025)}"}`),
    login('{"email":{"$ne":null},"password":{"$ne":null}}'),
    login('{"email":"a@b.co","password":"x","email":"b@c.de"}'),
  ];
}
