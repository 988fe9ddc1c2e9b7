// The OpenAPI document and the docs page, in both modes: a document that validators,
// linters and code generators take as it is.

import { afterAll, beforeAll, describe, expect, mock, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import * as typescript5 from 'typescript5';
import { CODE_MAX_LENGTH, CODE_PATTERN } from '../../src/domain/codes.ts';
import { SOURCE_MAX_LENGTH } from '../../src/domain/sources.ts';
import { URL_MAX_LENGTH } from '../../src/domain/urls.ts';
import { LIST_QUERY_MAX_LENGTH } from '../../src/links/list-query.ts';
import { MAX_PAGE } from '../../src/links/paging.ts';
import { run } from '../support/binary.ts';
import { type AppOptions, BASE_URL, TestApp } from '../support/test-app.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const LINK_ROUTES = [
  'GET /health',
  'POST /api/shorten',
  'POST /api/links/bulk',
  'GET /api/links',
  'GET /api/links/{code}',
  'PATCH /api/links/{code}',
  'DELETE /api/links/{code}',
  'GET /api/links/{code}/stats',
  'GET /api/links/{code}/clicks.csv',
  'GET /api/links/{code}/qr.svg',
  'GET /api/links/{code}/qr.png',
  'GET /{code}',
  'HEAD /{code}',
  'POST /{code}',
  'GET /{code}+',
  'HEAD /{code}+',
  'GET /{code}+report',
  'HEAD /{code}+report',
  'GET /{code}+go',
  'HEAD /{code}+go',
  'POST /{code}+go',
  'POST /api/webhooks',
  'GET /api/webhooks',
  'DELETE /api/webhooks/{id}',
  'GET /api/webhooks/{id}/deliveries',
  'POST /api/webhooks/{id}/test',
  'GET /api/domains',
  'POST /api/domains',
  'PATCH /api/domains/{domain}',
  'DELETE /api/domains/{domain}',
  'GET /api/tags',
  'GET /api/tags/{tag}/stats',
  'POST /api/reports',
];
/** The admin API of both modes; the users are accounts mode's. */
const ADMIN_ROUTES = [
  'GET /api/admin/overview',
  'GET /api/admin/links',
  'POST /api/admin/links/{code}/disable',
  'POST /api/admin/links/{code}/enable',
  'DELETE /api/admin/links/{code}',
  'GET /api/admin/blocklist',
  'POST /api/admin/blocklist',
  'DELETE /api/admin/blocklist/{host}',
  'GET /api/admin/reports',
  'POST /api/admin/reports/{id}/resolve',
];
const ROUTES = {
  accounts: [
    'POST /api/auth/register',
    'POST /api/auth/login',
    'GET /api/auth/methods',
    'POST /api/keys',
    'GET /api/keys',
    'DELETE /api/keys/{id}',
    'GET /api/admin/users',
    'PATCH /api/admin/users/{id}',
    'DELETE /api/admin/users/{id}',
    ...ADMIN_ROUTES,
    ...LINK_ROUTES,
  ],
  open: [...ADMIN_ROUTES, ...LINK_ROUTES],
};
const ADMIN_OPERATION_IDS = [
  'adminOverview',
  'adminListLinks',
  'adminDisableLink',
  'adminEnableLink',
  'adminDeleteLink',
  'adminListBlocklist',
  'adminBlockHost',
  'adminUnblockHost',
  'adminListReports',
  'adminResolveReport',
];
const OPERATION_IDS = {
  accounts: [
    'register',
    'login',
    'signInMethods',
    'createApiKey',
    'listApiKeys',
    'deleteApiKey',
    'adminListUsers',
    'adminChangeUser',
    'adminRemoveUser',
    ...ADMIN_OPERATION_IDS,
  ],
  open: ADMIN_OPERATION_IDS,
};
const LINK_OPERATION_IDS = [
  'health',
  'shorten',
  'shortenBulk',
  'listLinks',
  'getLinkQrSvg',
  'getLinkQrPng',
  'getLink',
  'updateLink',
  'deleteLink',
  'getLinkStats',
  'getLinkClicksCsv',
  'redirect',
  'redirectHead',
  'unlockLink',
  'linkInfo',
  'linkInfoHead',
  'reportPage',
  'reportPageHead',
  'redirectDirect',
  'redirectDirectHead',
  'unlockLinkDirect',
  'createWebhook',
  'listWebhooks',
  'deleteWebhook',
  'listWebhookDeliveries',
  'testWebhook',
  'listDomains',
  'createDomain',
  'updateDomain',
  'deleteDomain',
  'listTags',
  'getTagStats',
  'createReport',
];
const REF = '#/components/schemas/';

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Json = any;

async function documentOf(mode: 'accounts' | 'open', options: AppOptions = {}) {
  const app = await TestApp.init(mode, options);
  const reply = await app.get('/api/openapi.json');
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toStartWith('application/json');
  return { app, doc: reply.json as Json, text: reply.text };
}

function operations(doc: Json): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>).map(
      ([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Json],
    ),
  );
}

/**
 * Every value of a JSON tree under `key`; a schema's property of that name (a domain's
 * `default`) is a property, not the keyword, and is not one of them.
 */
function valuesOf(node: Json, key: string, inProperties = false): unknown[] {
  if (Array.isArray(node)) return node.flatMap((item) => valuesOf(item, key));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => [
    ...(k === key && !inProperties ? [v] : []),
    ...valuesOf(v, key, k === 'properties' && !inProperties),
  ]);
}

describe.each(['accounts', 'open'] as const)('GET /api/openapi.json (%s mode)', (mode) => {
  test('is a valid OpenAPI 3 document', async () => {
    const { doc } = await documentOf(mode);
    expect(doc.openapi).toStartWith('3.');
    // validate() dereferences in place; give it a copy.
    await SwaggerParser.validate(structuredClone(doc));
  });

  test('is the same once the routes have answered requests', async () => {
    const { doc } = await documentOf(mode);
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const link = await client.link('https://example.com/');
    await client.shorten({ url: 'nope' });
    await client.links('?limit=1');
    await app.get(`/${link.short_code}`);
    await app.post('/api/auth/login', { email: 'ann@example.com', password: 'wrong' });
    expect((await app.get('/api/openapi.json')).json).toEqual(doc);
  });

  test("has no errors under Redocly's recommended rules", async () => {
    const { text } = await documentOf(mode);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: text,
      absoluteRef: join(ROOT, 'openapi.json'),
      config,
    });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  test('names the service, its licence and the address it is served at', async () => {
    const { doc } = await documentOf(mode);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.servers.map((s: Json) => s.url)).toEqual([BASE_URL]);
  });

  test('lists every route of the API, and nothing else', async () => {
    const { doc } = await documentOf(mode);
    expect(
      operations(doc)
        .map(([name]) => name)
        .sort(),
    ).toEqual([...ROUTES[mode]].sort());
  });

  test('operation ids are plain identifiers, one per operation', async () => {
    const { doc } = await documentOf(mode);
    const ids = operations(doc).map(([, op]) => op.operationId);
    expect(ids.sort()).toEqual([...OPERATION_IDS[mode], ...LINK_OPERATION_IDS].sort());
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });

  test('the shapes are named component schemas, referred to by $ref', async () => {
    const { doc } = await documentOf(mode);
    const names = Object.keys(doc.components.schemas).sort();
    expect(names).toEqual(
      mode === 'accounts'
        ? [
            'AdminLink',
            'AdminOverview',
            'AdminUser',
            'AdminUserChange',
            'ApiKey',
            'ApiKeyRequest',
            'BlockHost',
            'BlockedHost',
            'BulkAnswer',
            'BulkRequest',
            'BulkResult',
            'CreatedWebhook',
            'Credentials',
            'DisableLink',
            'Domain',
            'DomainChange',
            'DomainRequest',
            'Error',
            'Link',
            'LinkChange',
            'LinkDetail',
            'LinkInfo',
            'LinkStats',
            'NewApiKey',
            'PreviewCard',
            'RedirectRule',
            'RegisterRequest',
            'Report',
            'ReportReceived',
            'ReportRequest',
            'ReportResolution',
            'Session',
            'ShortenRequest',
            'SignInMethods',
            'Tag',
            'TagStats',
            'User',
            'Variant',
            'Webhook',
            'WebhookDelivery',
            'WebhookRequest',
          ]
        : [
            'AdminLink',
            'AdminOverview',
            'BlockHost',
            'BlockedHost',
            'BulkAnswer',
            'BulkRequest',
            'BulkResult',
            'CreatedWebhook',
            'DisableLink',
            'Domain',
            'DomainChange',
            'DomainRequest',
            'Error',
            'Link',
            'LinkChange',
            'LinkDetail',
            'LinkInfo',
            'LinkStats',
            'PreviewCard',
            'RedirectRule',
            'Report',
            'ReportReceived',
            'ReportRequest',
            'ReportResolution',
            'ShortenRequest',
            'Tag',
            'TagStats',
            'Variant',
            'Webhook',
            'WebhookDelivery',
            'WebhookRequest',
          ],
    );
    const refs = new Set(valuesOf(doc, '$ref'));
    for (const name of names) expect(refs.has(`${REF}${name}`)).toBe(true);
    const shorten = doc.paths['/api/shorten'].post;
    expect(shorten.requestBody.content['application/json'].schema).toEqual({
      $ref: `${REF}ShortenRequest`,
    });
    expect(shorten.responses['201'].content['application/json'].schema).toEqual({
      $ref: `${REF}Link`,
    });
    // Each item of a bulk call is a shorten body, and each result's body its answer.
    const bulk = doc.components.schemas.BulkRequest.properties.links;
    expect(bulk.items).toEqual({ $ref: `${REF}ShortenRequest` });
    expect(bulk).toMatchObject({ minItems: 1, maxItems: 1000 });
    const list = doc.paths['/api/links'].get.responses['200'].content['application/json'].schema;
    expect(list.items.anyOf).toEqual([{ $ref: `${REF}Link` }, { $ref: `${REF}LinkDetail` }]);
    if (mode === 'accounts') {
      expect(doc.components.schemas.Session.properties.user).toEqual({ $ref: `${REF}User` });
    }
  });

  test('every operation documents its error bodies as {"error": string}', async () => {
    const { doc } = await documentOf(mode);
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'string' } },
    });
    for (const [name, op] of operations(doc)) {
      const errors = Object.entries(op.responses as Record<string, Json>).filter(
        ([status]) => Number(status) >= 400,
      );
      expect(errors.length).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        if (name.startsWith('HEAD ')) expect(response.content).toBeUndefined();
        // /health's 503 body is the JSON string "Database unavailable".
        else if (name === 'GET /health' && status === '503') continue;
        // A wrong password, and too many of them, answer the password page again.
        else if (
          (name === 'POST /{code}' || name === 'POST /{code}+go') &&
          (status === '401' || status === '429')
        ) {
          expect(Object.keys(response.content)).toEqual(['text/html']);
        } else expect(response.content['application/json'].schema).toEqual({ $ref: `${REF}Error` });
      }
    }
  });

  test('request bodies are JSON with their fields', async () => {
    const { doc } = await documentOf(mode);
    const shorten = doc.components.schemas.ShortenRequest;
    expect(Object.keys(shorten.properties).sort()).toEqual([
      'custom_code',
      'domain',
      'expires_at',
      'max_clicks',
      'password',
      'preview',
      'rules',
      'source',
      'tags',
      'url',
      'variants',
    ]);
    expect(shorten.required).toEqual(['url']);
    const link = doc.components.schemas.Link;
    const fields = ['clicks', 'created_at', 'id', 'original_url', 'short_code'];
    expect(Object.keys(link.properties).sort()).toEqual(
      mode === 'accounts' ? [...fields, 'user_id'].sort() : fields,
    );
  });

  test('rules are standard keywords made from the domain constants, with no formats of our own', async () => {
    const { doc } = await documentOf(mode);
    expect(new Set(valuesOf(doc, 'format'))).toEqual(new Set(['date', 'date-time']));
    expect(valuesOf(doc, 'error').every((v) => typeof v === 'object')).toBe(true);
    const { url, custom_code, source } = doc.components.schemas.ShortenRequest.properties;
    expect(url).toMatchObject({ type: 'string', maxLength: URL_MAX_LENGTH });
    expect(custom_code).toMatchObject({
      type: ['string', 'null'],
      minLength: 1,
      maxLength: CODE_MAX_LENGTH,
      pattern: CODE_PATTERN.source,
    });
    expect(source).toMatchObject({ type: ['string', 'null'], maxLength: SOURCE_MAX_LENGTH });
    // The published patterns accept what the server accepts, and refuse plain mistakes.
    const urlPattern = new RegExp(url.pattern, 'u');
    for (const ok of ['https://example.com', 'http://a.b/c?d=e#f', 'https://例え.jp/パス']) {
      expect(urlPattern.test(ok)).toBe(true);
    }
    for (const bad of ['ftp://x.y', 'https://', 'https:///path', 'https://a b.c']) {
      expect(urlPattern.test(bad)).toBe(false);
    }
    const params = doc.paths['/api/links'].get.parameters as Json[];
    expect(params.map((p) => [p.name, p.in, p.required, p.schema.type])).toEqual([
      ['limit', 'query', false, 'integer'],
      ['offset', 'query', false, 'integer'],
      ['q', 'query', false, 'string'],
      ['domain', 'query', false, 'string'],
      ['tag', 'query', false, 'string'],
      ['sort', 'query', false, 'string'],
      ['order', 'query', false, 'string'],
      ['view', 'query', false, 'string'],
    ]);
    const [limit, offset, q, , tag, sort, order, view] = params.map((p) => p.schema);
    expect(limit).toMatchObject({ minimum: 1, maximum: MAX_PAGE });
    expect(offset).toMatchObject({ minimum: 0 });
    expect(q).toMatchObject({ minLength: 1, maxLength: LIST_QUERY_MAX_LENGTH });
    expect(tag).toMatchObject({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]{1,32}$' });
    expect(sort.enum).toEqual(['created', 'clicks', 'code']);
    expect(order.enum).toEqual(['asc', 'desc']);
    expect(view.enum).toEqual(['full']);
    if (mode === 'accounts') {
      const { email, password } = doc.components.schemas.RegisterRequest.properties;
      expect(password).toMatchObject({ minLength: 8, maxLength: 1024 });
      const emailPattern = new RegExp(email.pattern, 'u');
      for (const ok of ['ann@example.com', '  Ann@Example.COM ', 'a.b+c@d.e.f']) {
        expect(emailPattern.test(ok)).toBe(true);
      }
      for (const bad of ['ann', 'ann@example', 'a@b@c.d', 'a b@c.d', 'ann@.example.com']) {
        expect(emailPattern.test(bad)).toBe(false);
      }
    }
  });

  test('webhooks: the URL rule, the events, and the secret only in the answer that makes one', async () => {
    const { doc } = await documentOf(mode);
    expect(doc.tags.map((tag: Json) => tag.name)).toContain('webhooks');
    const { url, events } = doc.components.schemas.WebhookRequest.properties;
    expect(url).toMatchObject({ type: 'string', maxLength: 2048 });
    const urlPattern = new RegExp(url.pattern, 'u');
    for (const ok of ['https://hooks.example.com/kurz', 'https://h.example:8443?a=b@c']) {
      expect(urlPattern.test(ok)).toBe(true);
    }
    for (const bad of [
      'http://hooks.example.com/',
      'https://user@hooks.example.com/',
      'https:///path',
      'https://a b.example/',
    ]) {
      expect(urlPattern.test(bad)).toBe(false);
    }
    expect(doc.components.schemas.WebhookRequest.required).toEqual(['url']);
    expect(events).toMatchObject({
      type: ['array', 'null'],
      minItems: 1,
      items: {
        type: 'string',
        enum: ['link.created', 'link.updated', 'link.deleted', 'clicks', 'report.created'],
      },
    });
    expect(valuesOf(doc, 'default')).toEqual([]);
    const create = doc.paths['/api/webhooks'].post;
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: `${REF}CreatedWebhook`,
    });
    expect(Object.keys(create.responses).sort()).toEqual(
      ['201', '400', '401', '403', '408', '413', '500', '503'].sort(),
    );
    expect(doc.components.schemas.CreatedWebhook.properties.secret).toBeDefined();
    expect(doc.components.schemas.Webhook.properties.secret).toBeUndefined();
    const deliveries = doc.paths['/api/webhooks/{id}/deliveries'].get;
    expect(deliveries.responses['200'].content['application/json'].schema.items).toEqual({
      $ref: `${REF}WebhookDelivery`,
    });
  });

  test('answers declare their headers', async () => {
    const { doc } = await documentOf(mode);
    const list = doc.paths['/api/links'].get.responses['200'];
    expect(Object.keys(list.headers)).toEqual(['X-Total-Count', 'X-Total-Count-Exact', 'Link']);
    expect(list.headers['X-Total-Count'].schema.type).toBe('integer');
    expect(list.headers['X-Total-Count-Exact'].schema.const).toBe('false');
    expect(list.headers['X-Total-Count-Exact'].required).not.toBe(true);
    for (const method of ['get', 'head']) {
      const redirect = doc.paths['/{code}'][method].responses['307'];
      expect(Object.keys(redirect.headers)).toEqual(['Location', 'Cache-Control']);
      expect(redirect.content).toBeUndefined();
    }
    for (const [name, op] of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const headers = Object.keys(response.headers ?? {});
        if (status === '429') expect(headers).toEqual(['Retry-After']);
        if (status === '500') expect(headers).toEqual(['X-Request-Id']);
        // Login's 401 is "Invalid credentials", and a protected link's a wrong password,
        // not a missing token.
        const passwordForm = name === 'POST /{code}' || name === 'POST /{code}+go';
        if (status === '401' && name !== 'POST /api/auth/login' && !passwordForm) {
          expect(response.headers['WWW-Authenticate'].schema.const).toBe('Bearer');
        }
        for (const header of Object.values(response.headers ?? {}) as Json[]) {
          expect(header.description).toBeString();
        }
      }
    }
  });

  test('declares the limits and refusals each route can answer', async () => {
    const { doc } = await documentOf(mode);
    const byName = Object.fromEntries(operations(doc));
    const statuses = (name: string) => Object.keys(byName[name].responses);
    const limited = ['POST /api/shorten', 'GET /{code}'];
    const posts = ['POST /api/shorten'];
    if (mode === 'accounts') {
      limited.push('POST /api/auth/register', 'POST /api/auth/login');
      posts.push('POST /api/auth/register', 'POST /api/auth/login');
    }
    for (const name of limited) expect(statuses(name)).toContain('429');
    for (const name of posts)
      expect(statuses(name)).toEqual(expect.arrayContaining(['403', '408', '413']));
    for (const [name, op] of operations(doc)) {
      if (name !== 'GET /health') expect(Object.keys(op.responses)).toContain('500');
    }
  });

  test(
    mode === 'accounts'
      ? 'declares the bearer scheme on the link routes, the admin token on domain management, and none on the public ones'
      : 'declares every operation public but changes to links and domains, which take the admin token',
    async () => {
      const { doc } = await documentOf(mode);
      for (const [name, op] of operations(doc)) {
        const protectedRoute =
          mode === 'accounts' &&
          (name.includes('/api/links') ||
            name.includes('/api/keys') ||
            name.includes('/api/tags') ||
            name === 'POST /api/shorten' ||
            name.includes('/api/webhooks'));
        const adminRoute =
          (mode === 'open' &&
            (name.startsWith('PATCH /api/links') ||
              name.startsWith('DELETE ') ||
              name.includes('/api/webhooks'))) ||
          (name.includes('/api/domains') && name !== 'GET /api/domains');
        // The domains a user may choose from: as the links list, or with the admin token.
        const domainList =
          mode === 'accounts' ? [{ bearer: [] }, { adminToken: [] }] : [{}, { adminToken: [] }];
        // An admin user's token, or the operator's; open mode has only the latter.
        const administration =
          mode === 'accounts' ? [{ bearer: [] }, { adminToken: [] }] : [{ adminToken: [] }];
        expect([name, op.security]).toEqual([
          name,
          name.includes(' /api/admin/')
            ? administration
            : name === 'GET /api/domains'
              ? domainList
              : protectedRoute
                ? [{ bearer: [] }]
                : adminRoute
                  ? [{ adminToken: [] }]
                  : [],
        ]);
      }
      if (mode === 'accounts') {
        expect(doc.components.securitySchemes.bearer).toMatchObject({
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
        });
        expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer', 'adminToken']);
      } else {
        expect(Object.keys(doc.components.securitySchemes)).toEqual(['adminToken']);
        expect(doc.components.securitySchemes.adminToken).toMatchObject({
          type: 'http',
          scheme: 'bearer',
        });
      }
    },
  );

  test('with --metrics-token, GET /api/metrics is described, behind its own bearer scheme', async () => {
    const { doc, text } = await documentOf(mode, { metricsToken: 'm'.repeat(32) });
    await SwaggerParser.validate(structuredClone(doc));
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: text,
      absoluteRef: join(ROOT, 'openapi.json'),
      config,
    });
    expect(problems.filter((p) => p.severity === 'error').map((p) => p.message)).toEqual([]);
    expect(
      operations(doc)
        .map(([name]) => name)
        .sort(),
    ).toEqual([...ROUTES[mode], 'GET /api/metrics'].sort());
    const metrics = doc.paths['/api/metrics'].get;
    expect(metrics.operationId).toBe('metrics');
    expect(metrics.security).toEqual([{ metricsToken: [] }]);
    expect(Object.keys(metrics.responses['200'].content)).toEqual(['text/plain']);
    expect(metrics.responses['401'].headers['WWW-Authenticate'].schema.const).toBe('Bearer');
    expect(metrics.responses['401'].content['application/json'].schema).toEqual({
      $ref: `${REF}Error`,
    });
    expect(doc.components.securitySchemes.metricsToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.tags.map((tag: Json) => tag.name)).toContain('metrics');
    // Without the token, neither the route nor its scheme.
    const plain = (await documentOf(mode)).doc;
    expect(plain.paths['/api/metrics']).toBeUndefined();
    expect(plain.components.securitySchemes.metricsToken).toBeUndefined();
    expect(plain.tags.map((tag: Json) => tag.name)).not.toContain('metrics');
  });

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
    // Named schemas are shown with their fields, not as a bare reference.
    expect(reply.text).toContain('<code>custom_code</code>');
    expect(reply.text).toContain('<code>X-Total-Count</code>');
    expect(reply.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect((await app.get('/assets/docs.css')).status).toBe(200);
  });
});

describe('a client generated from the document', () => {
  // openapi-typescript builds its output with TypeScript 5's compiler API, which
  // TypeScript 7 (the project's tsc) no longer has.
  mock.module('typescript', () => ({ ...typescript5, default: typescript5 }));

  // Under the repository, so that the client resolves openapi-fetch from its
  // node_modules; ignored by git, and removed afterwards.
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(ROOT, '.openapi-client-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const SIGN_IN = {
    accounts: `
const session = await client.POST('/api/auth/login', {
  body: { email: 'ann@example.com', password: 'correct horse 42' },
});
const token: string | undefined = session.data?.token;
const auth = { Authorization: \`Bearer \${token}\` };`,
    open: `
const auth = {};`,
  };

  test.each(['accounts', 'open'] as const)(
    'type-checks with tsc --strict (%s mode)',
    async (mode) => {
      const { doc } = await documentOf(mode);
      const { default: openapiTS, astToString } = await import('openapi-typescript');
      const dir = join(scratch, mode);
      mkdirSync(dir);
      await Bun.write(join(dir, 'schema.d.ts'), astToString(await openapiTS(doc)));
      await Bun.write(
        join(dir, 'client.ts'),
        `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Link = components['schemas']['Link'];
type ApiError = components['schemas']['Error'];

const client = createClient<paths>({ baseUrl: '${BASE_URL}' });
${SIGN_IN[mode]}
const created = await client.POST('/api/shorten', {
  body: { url: 'https://example.com/', custom_code: 'spring-sale', source: null },
  headers: auth,
});
const link: Link | undefined = created.data;
const refused: ApiError | undefined = created.error;
const message: string | undefined = refused?.error;

const page = await client.GET('/api/links', {
  params: { query: { limit: 50, offset: 0 } },
  headers: auth,
});
const links: Link[] | undefined = page.data;
const clicks: number | undefined = links?.[0]?.clicks;
const total: string | null = page.response.headers.get('X-Total-Count');

const bulk = await client.POST('/api/links/bulk', {
  body: { links: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b', tags: ['x'] }] },
  headers: auth,
});
const statuses: number[] | undefined = bulk.data?.results.map((result) => result.status);

// @ts-expect-error limit is an integer, not a string
await client.GET('/api/links', { params: { query: { limit: '50' } }, headers: auth });
// @ts-expect-error the body needs a url
await client.POST('/api/shorten', { body: { custom_code: 'x' }, headers: auth });

export { clicks, link, message, statuses, total };
`,
      );
      await Bun.write(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ESNext',
            module: 'ESNext',
            moduleResolution: 'bundler',
            lib: ['ESNext', 'DOM'],
            types: [],
          },
          files: ['client.ts'],
        }),
      );
      const tsc = await run([join(ROOT, 'node_modules', '.bin', 'tsc'), '-p', dir, '--strict']);
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.code).toBe(0);
    },
    // A compiler run: seconds on an idle machine, past the suite's 20 s on a busy one.
    90_000,
  );
});

describe('GET /api/openapi.json with an OpenID Provider', () => {
  test('describes the sign-in routes as a browser sees them: a redirect and pages', async () => {
    const { doc } = await documentOf('accounts', {
      // Never reached: the document does not wait for discovery.
      oidc: { issuer: 'http://127.0.0.1:9', clientId: 'kurz' },
    });
    const login = doc.paths['/api/auth/oidc/login'].get;
    expect(login.operationId).toBe('oidcLogin');
    expect(Object.keys(login.responses).sort()).toEqual(['302', '503']);
    expect(Object.keys(login.responses['302'].headers)).toEqual(['Location', 'Set-Cookie']);
    expect(Object.keys(login.responses['503'].content)).toEqual(['text/html']);
    const callback = doc.paths['/api/auth/oidc/callback'].get;
    expect(callback.operationId).toBe('oidcCallback');
    for (const status of ['200', '400', '403', '503']) {
      expect([status, Object.keys(callback.responses[status].content)]).toEqual([
        status,
        ['text/html'],
      ]);
    }
    expect(callback.description).toContain('{base_url}/api/auth/oidc/callback');
  });
});
