// The check every in-process test's answers go through (support/openapi-check.ts): it
// refuses what the document does not declare.

import { describe, expect, test } from 'bun:test';
import { withFaults } from '../support/faulty-store.ts';
import { ResponseChecker, UndeclaredResponse } from '../support/openapi-check.ts';
import { TestApp } from '../support/test-app.ts';

const doc = {
  openapi: '3.1.0',
  paths: {
    '/api/things/{id}': {
      get: {
        responses: {
          200: {
            description: 'A thing.',
            headers: {
              'X-Count': { required: true, schema: { type: 'integer', minimum: 0 } },
              Link: { schema: { type: 'string' } },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          204: { description: 'Nothing.' },
          404: {
            description: 'None.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    },
    '/{code}': {
      get: { responses: { 200: { description: 'A page.', content: { 'text/html': {} } } } },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
      },
      Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
    },
  },
};

const checker = new ResponseChecker(doc);
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
const problems = (path: string, response: Response, method = 'GET') =>
  checker.problems(new Request(`http://localhost${path}`, { method }), response);

describe('the OpenAPI check of answers', () => {
  test('passes an answer the document declares', async () => {
    expect(
      await problems('/api/things/7', json(200, { id: 7, name: 'a' }, { 'x-count': '3' })),
    ).toEqual([]);
    expect(await problems('/api/things/7', new Response(null, { status: 204 }))).toEqual([]);
    expect(
      await problems('/abc', new Response('<p>', { headers: { 'content-type': 'text/html' } })),
    ).toEqual([]);
  });

  test('refuses a status the operation does not declare', async () => {
    const found = await problems('/api/things/7', json(400, { error: 'no' }));
    expect(found).toEqual([expect.stringContaining('status 400 is not declared')]);
  });

  test('refuses a body that does not match the schema', async () => {
    const found = await problems(
      '/api/things/7',
      json(200, { id: '7', nom: 'a' }, { 'x-count': '1' }),
    );
    expect(found).toEqual([expect.stringContaining('does not match the declared schema')]);
    expect(found[0]).toContain('id');
    expect(found[0]).toContain('name');
  });

  test('refuses a missing required header, or one of the wrong form', async () => {
    expect(await problems('/api/things/7', json(200, { id: 7, name: 'a' }))).toEqual([
      'the required header X-Count is missing',
    ]);
    const found = await problems(
      '/api/things/7',
      json(200, { id: 7, name: 'a' }, { 'x-count': 'many' }),
    );
    expect(found).toEqual([expect.stringContaining('header X-Count')]);
  });

  test('refuses an undeclared content type, and a body where none is declared', async () => {
    expect(await problems('/abc', json(200, {}))).toEqual([
      expect.stringContaining('content type application/json is not declared'),
    ]);
    expect(await problems('/api/things/7', new Response('x', { status: 204 }))).toEqual([
      expect.stringContaining('a body where none is declared'),
    ]);
  });

  test('matches concrete paths to templates, and wants 404 `{"error"}` for unknown ones', async () => {
    expect(await problems('/api/things/7/more', json(404, { error: 'Not found' }))).toEqual([]);
    expect(await problems('/api/things/7/more', json(200, { id: 7, name: 'a' }))).toEqual([
      expect.stringContaining('an operation the document does not have'),
    ]);
    expect(await problems('/abc', json(404, { error: 'Not found' }), 'DELETE')).toEqual([]);
  });

  test('is on for every TestApp: an answer out of its document fails the request', async () => {
    const real = (await TestApp.init('open')).store;
    // A store that hands out a count as text: the list answers `"clicks": "3"`.
    const store = withFaults(real, {
      listLinks: async (query) => {
        const page = await real.listLinks(query);
        return { ...page, links: page.links.map((link) => ({ ...link, clicks: '3' as never })) };
      },
    });
    const app = await TestApp.init('open', { store });
    await app.anonymous().link('https://example.com/');
    const error = await app
      .anonymous()
      .links()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UndeclaredResponse);
    expect(String(error)).toContain('GET /api/links answered 200');
    expect(String(error)).toContain('clicks');
  });
});
