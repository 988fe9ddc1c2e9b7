// The rules under webhooks that need no store: which addresses are public, where a
// delivery connects (the checked address, the name kept for Host and TLS), when a failed
// message is tried again, and the Standard Webhooks signature against its published
// test vector.

import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { isPublicAddress } from '../../src/net/public-address.ts';
import { DEFAULT_SCHEDULE, errorText, nextAttemptAt } from '../../src/webhooks/dispatcher.ts';
import { signature } from '../../src/webhooks/signature.ts';
import {
  pinnedTarget,
  pinTo,
  publicAddressOf,
  type Resolve,
  type TargetRefused,
} from '../../src/webhooks/targets.ts';
import { selfSignedCertificate } from '../support/proxies.ts';
import { verifyStandardWebhook } from '../support/webhook-receiver.ts';

describe('public addresses', () => {
  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '"this network"'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['100.127.255.255', 'shared address space (CGNAT)'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, in hex'],
    ['::FFFF:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['64:ff9b::a00:1', 'NAT64 of a private address'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['100::1', 'discard-only'],
    ['example.com', 'not an address'],
    ['', 'nothing'],
  ])('%s is not public (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

/** A resolver that answers from a table, and fails like getaddrinfo for other names. */
function stubResolver(table: Record<string, string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const answer = table[host];
    if (answer === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    return answer;
  };
  return Object.assign(resolve, { asked });
}

describe('where a delivery connects', () => {
  test('a name is resolved, every address must be public, and the first is connected to', async () => {
    const resolve = stubResolver({
      'hooks.example': ['93.184.215.14', '2606:4700:4700::1111'],
      'mixed.example': ['93.184.215.14', '10.0.0.1'],
      'empty.example': [],
    });
    expect(await publicAddressOf(new URL('https://hooks.example/x'), resolve)).toBe(
      '93.184.215.14',
    );
    // The name's final dot is not part of it.
    expect(await publicAddressOf(new URL('https://hooks.example./x'), resolve)).toBe(
      '93.184.215.14',
    );
    const refusal = (url: string) =>
      publicAddressOf(new URL(url), resolve).then(
        () => undefined,
        (error: TargetRefused) => [error.message, error.reason],
      );
    expect(await refusal('https://mixed.example/')).toEqual([
      'Webhook URL must point to a public address',
      'mixed.example is not a public address (10.0.0.1); see --webhook-allow-private',
    ]);
    expect(await refusal('https://empty.example/')).toEqual([
      'Webhook URL host cannot be resolved',
      'empty.example has no address',
    ]);
    expect(await refusal('https://gone.example/')).toEqual([
      'Webhook URL host cannot be resolved',
      'gone.example cannot be resolved (ENOTFOUND)',
    ]);
    // An address is judged as it is, without DNS; the URL parser has already read the
    // numeric forms as the address they are.
    expect(await refusal('https://2130706433/')).toEqual([
      'Webhook URL must point to a public address',
      '127.0.0.1 is not a public address (127.0.0.1); see --webhook-allow-private',
    ]);
    expect(await refusal('https://[::ffff:127.0.0.1]:8443/')).toEqual([
      'Webhook URL must point to a public address',
      '::ffff:7f00:1 is not a public address (::ffff:7f00:1); see --webhook-allow-private',
    ]);
    expect(resolve.asked).toEqual([
      'hooks.example',
      'hooks.example',
      'mixed.example',
      'empty.example',
      'gone.example',
    ]);
  });

  test('the request goes to the checked address, with the name in Host and for the certificate', async () => {
    const resolve = stubResolver({ 'hooks.example': ['93.184.215.14'], 'v6.example': ['2606::1'] });
    const policy = { allowPrivate: false, resolve };
    expect(await pinnedTarget(new URL('https://hooks.example:8443/in?a=1#f'), policy)).toEqual({
      url: 'https://93.184.215.14:8443/in?a=1#f',
      host: 'hooks.example:8443',
      serverName: 'hooks.example',
    });
    expect(await pinnedTarget(new URL('https://v6.example/in'), policy)).toEqual({
      url: 'https://[2606::1]/in',
      host: 'v6.example',
      serverName: 'v6.example',
    });
    // An address in the URL needs no pinning.
    expect(await pinnedTarget(new URL('https://93.184.215.14/in'), policy)).toEqual({
      url: 'https://93.184.215.14/in',
    });
    // With private targets allowed nothing is checked, and the URL is used as it is.
    const untouched = stubResolver({});
    expect(
      await pinnedTarget(new URL('http://nas.home:8080/hook'), {
        allowPrivate: true,
        resolve: untouched,
      }),
    ).toEqual({ url: 'http://nas.home:8080/hook' });
    expect(untouched.asked).toEqual([]);
  });

  test("Bun's fetch, pinned so, checks the certificate against the name, not the address", async () => {
    const dir = await selfSignedCertificate('hooks.test');
    const [key, cert] = [join(dir, 'privkey.pem'), join(dir, 'fullchain.pem')];
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      tls: { key: Bun.file(key), cert: Bun.file(cert) },
      fetch: (request) => new Response(request.headers.get('host')),
    });
    try {
      const ca = await Bun.file(cert).text();
      const call = async (name: string) => {
        const target = pinTo(new URL(`https://${name}:${server.port}/hook`), '127.0.0.1');
        expect(target.url).toBe(`https://127.0.0.1:${server.port}/hook`);
        const response = await fetch(target.url, {
          method: 'POST',
          headers: { host: target.host as string },
          tls: { serverName: target.serverName, ca },
        });
        return response.text();
      };
      expect(await call('hooks.test')).toBe(`hooks.test:${server.port}`);
      // A name the certificate does not carry is refused, though the address is the same.
      await expect(call('other.test')).rejects.toThrow(/ERR_TLS_CERT_ALTNAME_INVALID/);
    } finally {
      await server.stop(true);
    }
  });
});

describe('retries', () => {
  test('the wait doubles from the first, within a fifth either way, up to the longest', () => {
    const schedule = { firstMs: 1000, maxMs: 6000, giveUpMs: 86_400_000 };
    const waits = [1, 2, 3, 4, 5].map((attempts) => {
      const next = nextAttemptAt(0, attempts, 10_000, schedule) as number;
      return next - 10_000;
    });
    const expected = [1000, 2000, 4000, 6000, 6000];
    for (const [i, wait] of waits.entries()) {
      expect(wait).toBeGreaterThanOrEqual((expected[i] as number) * 0.8);
      expect(wait).toBeLessThanOrEqual((expected[i] as number) * 1.2);
    }
  });

  test('a message is given up once its next attempt would fall after the day is over', () => {
    const schedule = { firstMs: 1000, maxMs: 1000, giveUpMs: 10_000 };
    expect(nextAttemptAt(0, 3, 5_000, schedule)).not.toBeNull();
    expect(nextAttemptAt(0, 9, 9_500, schedule)).toBeNull();
    // The default: 5 s first, an hour at most, for a day.
    expect(DEFAULT_SCHEDULE).toEqual({ firstMs: 5000, maxMs: 3_600_000, giveUpMs: 86_400_000 });
    expect(nextAttemptAt(0, 40, 86_000_000, DEFAULT_SCHEDULE)).toBeNull();
  });
});

describe('what a failed attempt says', () => {
  test("a URL in an error is cut to its origin: a receiver's path may hold its own secret", () => {
    const error = new TypeError(
      'ERR_TLS_CERT_ALTNAME_INVALID fetching "https://hooks.example:8443/in/T0KEN?key=s3cret#x"',
    );
    expect(errorText(error)).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID fetching "https://hooks.example:8443"',
    );
    expect(errorText(new Error('refused', { cause: new Error('at http://10.0.0.1/a/b c') }))).toBe(
      'refused (at http://10.0.0.1 c)',
    );
    expect(errorText('plain')).toBe('plain');
  });
});

describe('Standard Webhooks signatures', () => {
  // The specification's test vector, as its libraries' tests use it.
  const VECTOR = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };

  test('kurz signs the test vector as the specification does', () => {
    expect(signature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(
      VECTOR.signature,
    );
  });

  test("the tests' own verifier accepts the vector and refuses any change to it", () => {
    const call = (overrides: Record<string, string> = {}, body = VECTOR.body) => ({
      headers: new Headers({
        'webhook-id': VECTOR.id,
        'webhook-timestamp': String(VECTOR.timestamp),
        'webhook-signature': VECTOR.signature,
        ...overrides,
      }),
      body,
      json: undefined,
    });
    const at = VECTOR.timestamp * 1000;
    expect(verifyStandardWebhook(VECTOR.secret, call(), at)).toBe(true);
    expect(
      verifyStandardWebhook(
        VECTOR.secret,
        call({ 'webhook-signature': `v1,bm9wZQ== ${VECTOR.signature}` }),
        at,
      ),
    ).toBe(true);
    expect(verifyStandardWebhook(VECTOR.secret, call({}, '{"test": 2432232315}'), at)).toBe(false);
    expect(verifyStandardWebhook(VECTOR.secret, call({ 'webhook-id': 'msg_other' }), at)).toBe(
      false,
    );
    expect(verifyStandardWebhook(VECTOR.secret, call(), at + 6 * 60_000)).toBe(false);
  });
});
