import { describe, expect, test } from 'bun:test';
import { TestApp } from './support/test-app.ts';

describe.each(['accounts', 'open'] as const)('GET /health (%s mode)', (mode) => {
  test('answers the JSON string "Healthy" while the database works', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/health');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('"Healthy"');
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  });

  test('answers 503 with the JSON string "Database unavailable" once the database is gone', async () => {
    const app = await TestApp.init(mode);
    await app.store.close();
    const reply = await app.get('/health');
    expect(reply.status).toBe(503);
    expect(reply.text).toBe('"Database unavailable"');
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  });

  test('needs no token, and ignores a bad one', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/health', { headers: { authorization: 'Bearer junk' } });
    expect(reply.status).toBe(200);
  });

  test('other methods on /health are 404', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.request('POST', '/health');
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });
});
