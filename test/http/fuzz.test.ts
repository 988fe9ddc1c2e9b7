// Property-based fuzzing of every endpoint, in both modes, in-process: generated
// requests (valid-shaped and hostile; see support/fuzz-cases.ts) must never get a 5xx,
// every error must be exactly {"error": "<message>"}, no body may show a stack trace or
// a path, and the service must still be healthy afterwards. The seed is fixed, so a
// failure reproduces; FUZZ_SEED and FUZZ_RUNS explore further.

import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { Mode } from '../../src/config/config.ts';
import {
  describeCase,
  type FuzzCase,
  forgeTokens,
  fuzzCase,
  hostileCases,
  KNOWN_CODES,
  problemsOf,
  type Tokens,
  toRequest,
} from '../support/fuzz-cases.ts';
import { SECRET, TestApp } from '../support/test-app.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_121);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

async function fuzzTarget(mode: Mode) {
  const app = await TestApp.init(mode);
  const client = mode === 'accounts' ? await app.user('fuzz@example.com') : app.anonymous();
  for (const code of KNOWN_CODES)
    await client.link('https://example.com/known', { custom_code: code });
  const tokens: Tokens = forgeTokens(SECRET, client.token ?? '', client.user?.id ?? 1);
  /** Sends a case and throws with its description when the answer breaks an invariant. */
  const check = async (c: FuzzCase) => {
    const response = await app.app.handle(toRequest(c, 'http://localhost', tokens));
    const body = new Uint8Array(await response.arrayBuffer());
    const problems = problemsOf(c, {
      status: response.status,
      header: (name) => response.headers.get(name),
      body,
    });
    if (problems.length > 0) {
      const shown = new TextDecoder().decode(body.subarray(0, 300));
      throw new Error(
        `${problems.join('; ')}\n  request: ${describeCase(c)}\n  answer: ${response.status} ${shown}`,
      );
    }
    return response.status;
  };
  return { app, client, check };
}

describe('the fuzzing invariants', () => {
  const c = hostileCases()[0] as FuzzCase;
  const answer = (status: number, type: string, text: string) => ({
    status,
    header: (name: string) => (name === 'content-type' ? type : null),
    body: new TextEncoder().encode(text),
  });
  const JSON_TYPE = 'application/json; charset=utf-8';

  test('accept an exact error and refuse anything else', () => {
    expect(problemsOf(c, answer(400, JSON_TYPE, '{"error":"url is required"}'))).toEqual([]);
    expect(problemsOf(c, answer(500, JSON_TYPE, '{"error":"Internal server error"}'))).toEqual([
      'status 500',
    ]);
    expect(problemsOf(c, answer(400, 'text/plain', 'Bad Request'))).toEqual([
      'error without a JSON Content-Type (text/plain)',
      'error body is not JSON',
    ]);
    expect(problemsOf(c, answer(400, JSON_TYPE, '{"error":"x","stack":"y"}'))).toEqual([
      'error body is not {"error": "<message>"}',
    ]);
    expect(problemsOf(c, answer(404, JSON_TYPE, '{"error":""}'))).toHaveLength(1);
    expect(problemsOf(c, answer(400, JSON_TYPE, '{"error":"oops"}'))).toEqual([
      'unknown error message "oops"',
    ]);
  });

  test('find stack traces and server paths in any body', () => {
    const trace = 'TypeError: x is undefined\n    at parse (/work/src/http/body.ts:12:5)';
    const leaky = { ...c, endpoint: 'GET /{code}' };
    expect(
      problemsOf(leaky, answer(404, JSON_TYPE, JSON.stringify({ error: trace }))).length,
    ).toBeGreaterThan(3);
    expect(problemsOf(leaky, answer(200, 'text/html', 'see node_modules/elysia'))).toHaveLength(1);
  });
});

for (const mode of ['accounts', 'open'] as const) {
  describe(`fuzzing in ${mode} mode`, () => {
    test('hostile bodies, paths and tokens get a JSON answer below 500', async () => {
      const { check } = await fuzzTarget(mode);
      const statuses = [];
      for (const c of hostileCases()) statuses.push(await check(c));
      // The deep, huge and malformed bodies are refused, not crashed on (and not all 404s).
      expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(5);
      expect(statuses).toContain(413);
    });

    test(`${RUNS} generated requests keep every invariant, and the service stays healthy`, async () => {
      const { app, client, check } = await fuzzTarget(mode);
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fuzzCase, async (c) => {
          const status = await check(c);
          seen.set(status, (seen.get(status) ?? 0) + 1);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (process.env.FUZZ_PRINT) console.log(mode, [...seen].sort());
      // The generator reaches successes and refusals alike, not just 404s.
      for (const status of [200, 201, 307, 400, 404])
        expect(seen.get(status) ?? 0).toBeGreaterThan(0);
      if (mode === 'accounts') expect(seen.get(401) ?? 0).toBeGreaterThan(0);
      expect(seen.get(413) ?? 0).toBeGreaterThan(0);

      const health = await app.get('/health');
      expect(health.status).toBe(200);
      expect(health.json).toBe('Healthy');
      const link = await client.link('https://example.com/after-fuzzing');
      const redirect = await app.get(`/${link.short_code}`);
      expect(redirect.status).toBe(307);
      expect(redirect.headers.get('location')).toBe('https://example.com/after-fuzzing');
    }, 60_000);
  });
}
