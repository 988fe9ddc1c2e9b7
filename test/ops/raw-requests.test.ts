// Requests that Bun 1.4.5 answers itself, before kurz sees them, checked over raw sockets
// against the compiled dist/kurz (run `bun run build` first). docs/security.md, "Requests
// Bun answers itself", describes them; when a Bun upgrade changes one, a test here fails and
// that section must be revisited.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { call, type Running, startKurz } from '../support/binary.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const JSON_413 = '{"error":"Request body too large"}';

let kurz: Running;
beforeAll(async () => {
  kurz = await startKurz(['--mode', 'open']);
});
afterAll(async () => {
  await kurz?.stop();
});

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** Whether the server closed the connection (rather than us, once `until` held). */
  closedByServer: boolean;
}

/** Writes `request` in one piece; reads until the server closes or `until` holds. */
function exchange(request: string, until: (text: string) => boolean = () => false) {
  return new Promise<Exchange>((resolve, reject) => {
    const socket = connect(kurz.port, '127.0.0.1');
    let text = '';
    socket.on('connect', () => socket.write(request, 'latin1'));
    socket.on('data', (data) => {
      text += data.toString('latin1');
      if (until(text)) {
        socket.destroy();
        resolve({ text, closedByServer: false });
      }
    });
    socket.on('end', () => resolve({ text, closedByServer: true }));
    socket.on('error', reject);
  });
}

/** The status lines in what the server sent (pipelined answers follow one another directly). */
const responses = (text: string) => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];

function post(path: string, length: number, body = '') {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`;
}

describe('bodies over the 64 KiB limit (8 MiB for POST /api/links/bulk)', () => {
  test('up to 9 MiB declared: kurz answers its JSON 413 at once, without reading the body', async () => {
    for (const [path, length] of [
      ['/api/shorten', 64 * KIB + 1],
      ['/api/shorten', 9 * MIB],
      ['/api/links/bulk', 8 * MIB + 1],
      ['/api/links/bulk', 9 * MIB],
    ] as const) {
      const reply = await exchange(post(path, length), (t) => t.endsWith(JSON_413));
      expect(reply.text).toStartWith('HTTP/1.1 413 Payload Too Large\r\n');
      expect(reply.text).toContain('X-Content-Type-Options: nosniff');
      expect(reply.closedByServer).toBe(false);
    }
  });

  test('over 9 MiB declared (1 MiB past the largest limit): Bun answers a bare 413 and closes', async () => {
    const reply = await exchange(post('/api/shorten', 9 * MIB + 1));
    expect(reply.closedByServer).toBe(true);
    expect(reply.text).toStartWith('HTTP/1.1 413 Request Entity Too Large\r\n');
    expect(reply.text).toContain('Connection: close');
    expect(reply.text).not.toContain('{');
  });

  test('chunked, with no length declared: kurz stops reading at 64 KiB and answers JSON', async () => {
    const chunk = `${(256 * KIB).toString(16)}\r\n${'x'.repeat(256 * KIB)}\r\n`;
    const request = `POST /api/shorten HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.repeat(8)}0\r\n\r\n`;
    const reply = await exchange(request, (t) => t.endsWith(JSON_413));
    expect(reply.text).toStartWith('HTTP/1.1 413 Payload Too Large\r\n');
  });
});

describe('control bytes', () => {
  test.each([
    [
      'in the path',
      'GET /ab\x01c HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      '505 HTTP Version Not Supported',
    ],
    [
      'NUL in the path',
      'GET /a\x00b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      '505 HTTP Version Not Supported',
    ],
    [
      'in a header value',
      'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x01b\r\n\r\n',
      '400 Bad Request',
    ],
    [
      'in a header name',
      'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX\x01A: b\r\n\r\n',
      '400 Bad Request',
    ],
  ])('%s: Bun answers a bare status and closes', async (_, request, status) => {
    const reply = await exchange(request);
    expect(reply.closedByServer).toBe(true);
    expect(reply.text).toStartWith(`HTTP/1.1 ${status}\r\n`);
    expect(reply.text).not.toContain('{');
  });
});

describe('pipelined requests (several in one write)', () => {
  test('answered in order when each is answered at once', async () => {
    const request = 'GET /nothing-here HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(3);
    const reply = await exchange(request, (t) => responses(t).length === 3 && t.endsWith('}'));
    expect(responses(reply.text)).toEqual(['HTTP/1.1 404', 'HTTP/1.1 404', 'HTTP/1.1 404']);
  });

  test('dropped when the first waits for a commit: closed unanswered, yet the first took effect', async () => {
    const created = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/', custom_code: 'piped' },
    });
    expect(created.status).toBe(201);
    const reply = await exchange('GET /piped HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(2));
    expect(reply.closedByServer).toBe(true);
    expect(reply.text).toBe('');
    // One more click, alone: its 307 leaves once its batch is committed, and so is any
    // click before it. The first pipelined request was counted, the second never ran.
    expect((await call(kurz.url, 'GET', '/piped')).status).toBe(307);
    const list = await call(kurz.url, 'GET', '/api/links');
    expect(list.json.find((l: { short_code: string }) => l.short_code === 'piped').clicks).toBe(2);
  });
});
