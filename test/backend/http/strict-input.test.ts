import { connect } from 'node:net';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../backend/config/load-config';
import { createCleanupStack } from '../../../backend/lifecycle/cleanup-stack';
import { ROOT_DIR } from '../../../backend/roots/context';
import { bindServer } from '../../../backend/roots/start';
import { type RunningServer, startServer } from '../../../backend/server';
import { apiKeyAuthorization } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';

/** A response as read off the wire. */
interface RawResponse {
  status: number;
  headers: Map<string, string[]>;
  body: string;
}

function parse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) };
}

/**
 * Sends `parts` over one connection (each after the previous, `gapMs` apart) and resolves with what the
 * server answered once it closes the connection.
 */
function exchange(port: number, parts: (string | Buffer)[], gapMs = 0): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      closed = true;
      resolve(parse(Buffer.concat(chunks)));
    });
    socket.on('connect', async () => {
      for (const part of parts) {
        if (closed) return;
        socket.write(part);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
  });
}

const code = (res: RawResponse) => (JSON.parse(res.body) as { error: { code: string } }).error.code;

let t: TestApp;
const logged: string[] = [];
let server: RunningServer;
let authorization: string;
const IDLE_MS = 300;

beforeAll(async () => {
  t = await createTestApp({ log: (line) => logged.push(line) });
  authorization = await apiKeyAuthorization(t.ctx);
  server = await startServer(t.app, { host: '127.0.0.1', port: 0, bodyIdleTimeoutMs: IDLE_MS });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

function post(body: Buffer | string, extra = ''): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([
    Buffer.from(
      `POST /api/resource/crm.Lead HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: ${authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n${extra}\r\n`,
    ),
    bytes,
  ]);
}

async function leadCount(prefix: string): Promise<number> {
  const res = await t.request('GET', '/api/resource/crm.Lead?limit=500&fields=["lead_name"]');
  const { data } = (await res.json()) as { data: { lead_name: string }[] };
  return data.filter((row) => row.lead_name.startsWith(prefix)).length;
}

describe('strict input and headers on a real server', () => {
  it('says nosniff on JSON answers, errors included, once', async () => {
    const ok = await exchange(server.port, [
      `GET /api/resource/crm.Lead?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-content-type-options')).toEqual(['nosniff']);
    const missing = await exchange(server.port, [
      `GET /api/resource/crm.Nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toEqual(['nosniff']);
    const unauthenticated = await exchange(server.port, [
      'GET /api/resource/crm.Lead HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    ]);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-content-type-options')).toEqual(['nosniff']);
    const desk = await exchange(server.port, [
      'GET /desk/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    ]);
    expect(desk.headers.get('x-content-type-options')).toEqual(['nosniff']);
    // What node's HTTP parser refuses is answered outside the app, with the header too.
    const unparsable = await exchange(server.port, ['GET /\u00ff HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n']);
    expect(unparsable.status).toBe(400);
    expect(unparsable.headers.get('x-content-type-options')).toEqual(['nosniff']);
  });

  it('refuses a second Host header with 400 invalid_host (RFC 9112 section 3.2), in either order', async () => {
    for (const hosts of [
      ['127.0.0.1', 'evil.example'],
      ['evil.example', '127.0.0.1'],
      ['127.0.0.1', '127.0.0.1'],
    ]) {
      const res = await exchange(server.port, [
        `GET /api/resource/crm.Lead HTTP/1.1\r\nHost: ${hosts[0]}\r\nAuthorization: ${authorization}\r\n` +
          `host: ${hosts[1]}\r\nConnection: close\r\n\r\n`,
      ]);
      expect(res.status).toBe(400);
      expect(code(res)).toBe('invalid_host');
    }
  });

  it('refuses plain JSON bodies that are not UTF-8 with 400 invalid_json and stores nothing', async () => {
    const prefix = Buffer.from('{"lead_name":"Not UTF-8 ');
    const suffix = Buffer.from('","source":"Website"}');
    const invalid = [
      Buffer.from([0xff, 0xfe]),
      Buffer.from([0xc3, 0x28]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xc0, 0xaf]),
    ];
    for (const bytes of invalid) {
      const res = await exchange(server.port, [post(Buffer.concat([prefix, bytes, suffix]))]);
      expect(res.status).toBe(400);
      expect(code(res)).toBe('invalid_json');
    }
    expect(await leadCount('Not UTF-8')).toBe(0);
    const valid = await exchange(server.port, [
      post('{"lead_name":"Valid UTF-8 \u00e9\u{1f600}","source":"Website"}'),
    ]);
    expect(valid.status).toBe(201);
    expect(await leadCount('Valid UTF-8')).toBe(1);
  });

  it('cuts a body that stops arriving with 408 request_timeout and stores nothing', async () => {
    const whole = post('{"lead_name":"Stalled body","source":"Website"}');
    const res = await exchange(server.port, [whole.subarray(0, whole.length - 10)]);
    expect(res.status).toBe(408);
    expect(code(res)).toBe('request_timeout');
    expect(res.headers.get('x-content-type-options')).toEqual(['nosniff']);
    expect(await leadCount('Stalled body')).toBe(0);
    // The handler's read failing with the cut connection is no server error.
    expect(logged.filter((line) => line.includes('internal_error'))).toEqual([]);
  });

  it('lets a slow but steady body through although it takes longer than the idle limit in total', async () => {
    const whole = post('{"lead_name":"Steady body","source":"Website"}');
    const parts: Buffer[] = [];
    const head = whole.indexOf('\r\n\r\n') + 4;
    parts.push(whole.subarray(0, head));
    for (let i = head; i < whole.length; i += 8) parts.push(whole.subarray(i, i + 8));
    // About IDLE_MS / 3 between parts, over more than twice IDLE_MS in all.
    const res = await exchange(server.port, parts, IDLE_MS / 3);
    expect(res.status).toBe(201);
    expect(await leadCount('Steady body')).toBe(1);
  });

  it('takes the idle limit from server.body_idle_timeout_ms when a root binds the server', async () => {
    const config = loadConfig({
      file: join(ROOT_DIR, 'platform.toml'),
      env: {},
      overrides: { 'server.port': 0, 'server.body_idle_timeout_ms': 200 },
    });
    expect(config.server.body_idle_timeout_ms).toBe(200);
    const stack = createCleanupStack(() => {});
    try {
      const bound = await bindServer(config, stack);
      const app = new Hono();
      // The read fails once the connection is cut; the handler's answer then goes nowhere.
      app.post('/echo', async (c) => {
        const body = await c.req.arrayBuffer().catch(() => new ArrayBuffer(0));
        return c.json({ length: body.byteLength });
      });
      bound.serve(app);
      const res = await exchange(bound.port, [
        'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\nConnection: close\r\n\r\nabc',
      ]);
      expect(res.status).toBe(408);
      expect(code(res)).toBe('request_timeout');
    } finally {
      await stack.close();
    }
  });
});
