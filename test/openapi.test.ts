// The OpenAPI document and the docs page, in both modes.

import { describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { TestApp } from './support/test-app.ts';

const LINK_ROUTES = [
  'GET /health',
  'POST /api/shorten',
  'GET /api/links',
  'GET /api/links/{code}/qr.svg',
  'GET /api/links/{code}/qr.png',
  'GET /{code}',
];
const ROUTES = {
  accounts: ['POST /api/auth/register', 'POST /api/auth/login', ...LINK_ROUTES],
  open: LINK_ROUTES,
};

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Json = any;

async function documentOf(mode: 'accounts' | 'open') {
  const app = await TestApp.init(mode);
  const reply = await app.get('/api/openapi.json');
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toStartWith('application/json');
  return { app, doc: reply.json as Json };
}

function operations(doc: Json): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>).map(
      ([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Json],
    ),
  );
}

describe.each(['accounts', 'open'] as const)('GET /api/openapi.json (%s mode)', (mode) => {
  test('is a valid OpenAPI 3 document', async () => {
    const { doc } = await documentOf(mode);
    expect(doc.openapi).toStartWith('3.');
    // validate() dereferences in place; give it a copy.
    await SwaggerParser.validate(structuredClone(doc));
  });

  test('lists every route of the API, and nothing else', async () => {
    const { doc } = await documentOf(mode);
    expect(
      operations(doc)
        .map(([name]) => name)
        .sort(),
    ).toEqual([...ROUTES[mode]].sort());
  });

  test('every operation documents its error bodies as {"error": string}', async () => {
    const { doc } = await documentOf(mode);
    for (const [name, op] of operations(doc)) {
      if (name === 'GET /health') continue; // its 503 body is the JSON string "Database unavailable"
      const errors = Object.entries(op.responses as Record<string, Json>).filter(
        ([status]) => Number(status) >= 400,
      );
      expect(errors.length).toBeGreaterThan(0);
      for (const [, response] of errors) {
        const schema = response.content['application/json'].schema;
        expect(schema.required).toEqual(['error']);
        expect(schema.properties.error.type).toBe('string');
      }
    }
  });

  test('request bodies are JSON with their fields', async () => {
    const { doc } = await documentOf(mode);
    const shorten = doc.paths['/api/shorten'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(shorten.properties).sort()).toEqual(['custom_code', 'source', 'url']);
    expect(shorten.required).toEqual(['url']);
    const link = doc.paths['/api/shorten'].post.responses['201'].content['application/json'].schema;
    const fields = ['clicks', 'created_at', 'id', 'original_url', 'short_code'];
    expect(Object.keys(link.properties).sort()).toEqual(
      mode === 'accounts' ? [...fields, 'user_id'].sort() : fields,
    );
  });

  test(
    mode === 'accounts'
      ? 'declares the bearer scheme on the link routes'
      : 'declares no security at all',
    async () => {
      const { doc } = await documentOf(mode);
      for (const [name, op] of operations(doc)) {
        const protectedRoute =
          (mode === 'accounts' && name.includes('/api/links')) || name === 'POST /api/shorten';
        expect(op.security).toEqual(
          protectedRoute && mode === 'accounts' ? [{ bearer: [] }] : undefined,
        );
      }
      if (mode === 'accounts') {
        expect(doc.components.securitySchemes.bearer).toMatchObject({
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
        });
      } else {
        expect(doc.components.securitySchemes).toBeUndefined();
      }
    },
  );

  test('GET /api/docs is a readable page of the same routes, with nothing from other hosts', async () => {
    const { app } = await documentOf(mode);
    const reply = await app.get('/api/docs');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const route of ROUTES[mode]) {
      const [method, path] = route.split(' ');
      expect(reply.text).toContain(`<span class="method">${method}</span> <code>${path}</code>`);
    }
    expect(reply.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect((await app.get('/assets/docs.css')).status).toBe(200);
  });
});
