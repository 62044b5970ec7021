import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../../backend/http/errors';
import { requestHeader } from '../../../backend/http/node-request';
import { readLimitedBody } from '../../../backend/http/read-limited-body';
import { type RunningServer, startServer } from '../../../backend/server';

/** An app reading the body through `readLimitedBody`, then again through every `c.req` reader. */
function bodyApp(): Hono {
  const app = new Hono();
  app.onError((err) => new Response(null, { status: err instanceof PlatformError ? err.status : 500 }));
  app.post('/body', async (c) => {
    const first = await readLimitedBody(c, 1024);
    const again = await readLimitedBody(c, 1024);
    const text = await c.req.text();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const json = await c.req.json();
    return c.json({
      first: new TextDecoder().decode(first),
      same: first === again,
      text,
      bytes: bytes.byteLength,
      json,
    });
  });
  app.post('/limited', async (c) => {
    const bytes = await readLimitedBody(c, 4);
    return c.json({ bytes: bytes.byteLength });
  });
  app.all('/headers', (c) => {
    const names = ['content-type', 'content-length', 'authorization', 'cookie', 'x-many', 'absent'];
    const fast = Object.fromEntries(names.map((n) => [n, requestHeader(c, n) ?? null]));
    const adapter = Object.fromEntries(names.map((n) => [n, c.req.header(n) ?? null]));
    return c.json({ fast, adapter });
  });
  // A Request made inside the app, passed the same server bindings: it has headers of its own.
  app.get('/inner', (c) =>
    app.fetch(new Request('http://localhost/headers', { headers: { cookie: 'b=2' } }), c.env),
  );
  return app;
}

/** Sends `head` (request line and header block, CRLF-separated) and `body` on a raw socket; the answer's JSON. */
function raw(server: RunningServer, head: string[], body = ''): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => {
      socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))));
    socket.on('error', reject);
  });
}

describe('the node:http request behind a Request', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(bodyApp(), { host: '127.0.0.1', port: 0 });
  });
  afterAll(() => server.close());

  it('reads a declared-length body once and gives the same bytes to every later reader', async () => {
    const res = await fetch(`${server.url}/body`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'é' }),
    });
    expect(await res.json()).toEqual({
      first: '{"q":"é"}',
      same: true,
      text: '{"q":"é"}',
      bytes: 10,
      json: { q: 'é' },
    });
  });

  it('reads a body that arrives after the header block', async () => {
    const body = JSON.stringify({ q: 'later' });
    const answer = await new Promise<unknown>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST /body HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        );
        setTimeout(() => socket.write(body), 50);
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))));
      socket.on('error', reject);
    });
    expect(answer).toMatchObject({ first: body, text: body, json: { q: 'later' } });
  });

  it('refuses a declared length over the limit before reading', async () => {
    const res = await fetch(`${server.url}/limited`, { method: 'POST', body: '12345' });
    expect(res.status).toBe(413);
  });

  it('gives the headers c.req.header gives, repeated fields included', async () => {
    const answer = (await raw(
      server,
      [
        'POST /headers HTTP/1.1',
        'Host: localhost',
        'Content-Type: application/json',
        'content-type: text/plain',
        'Authorization: token a:b',
        'Cookie: a=1',
        'Cookie: b=2',
        'X-Many: 1',
        'x-many: 2',
        'Content-Length: 2',
      ],
      '{}',
    )) as { fast: unknown; adapter: unknown };
    expect(answer.fast).toEqual(answer.adapter);
    expect(answer.fast).toMatchObject({ 'content-type': 'application/json, text/plain', cookie: 'a=1; b=2' });
  });

  it('reads the headers of a Request made inside the app from that Request, not the connection', async () => {
    const res = await fetch(`${server.url}/inner`, { headers: { cookie: 'a=1' } });
    const answer = (await res.json()) as { fast: Record<string, unknown>; adapter: Record<string, unknown> };
    expect(answer.fast).toEqual(answer.adapter);
    expect(answer.fast.cookie).toBe('b=2');
  });
});
