import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../../src/benchmarks/engine/http-client';
import type { HttpResponse } from '../../../src/benchmarks/engine/http-message';
import { ResponseParser } from '../../../src/benchmarks/engine/http-response-parser';
import { tempDir } from '../helpers/runtime';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A TCP server answering each request with the raw bytes `answer` returns (written in pieces). */
async function rawServer(answer: (request: string, n: number) => string[]): Promise<string> {
  let n = 0;
  server = createNetServer((socket) => {
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      while (buf.includes('\r\n\r\n')) {
        const end = buf.indexOf('\r\n\r\n') + 4;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + len) return;
        const request = buf.slice(0, end + len);
        buf = buf.slice(end + len);
        const parts = answer(request, n++);
        // Each piece in its own write, so the parser sees responses split anywhere.
        for (const [i, p] of parts.entries()) {
          setTimeout(() => {
            if (p === 'CLOSE') socket.end();
            else socket.write(p);
          }, i * 2);
        }
      }
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
}

describe('the plain-http client', () => {
  it('sends one request per exchange and reads Content-Length, chunked and split responses on one connection', async () => {
    const requests: string[] = [];
    const base = await rawServer((req, n) => {
      requests.push(req);
      if (n === 0)
        return [
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-len',
          'gth: 10\r\n\r\n{"a":',
          '"é"}',
        ];
      if (n === 1)
        return [
          'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n4\r\nabcd\r\n',
          '3\r\nefg\r\n0\r\n\r\n',
        ];
      return ['HTTP/1.1 204 No Content\r\n\r\n'];
    });
    const http = new HttpClient({ connections: 1, timeoutMs: 5000 });
    try {
      const a = await http.request({
        method: 'GET',
        url: `${base}/x?q=1`,
        headers: { accept: 'application/json' },
      });
      expect(a).toMatchObject({ status: 200, text: '{"a":"é"}' });
      expect(a.headers['content-type']).toBe('application/json');
      const b = await http.request({
        method: 'POST',
        url: `${base}/y`,
        headers: { 'content-type': 'application/json' },
        body: '{"n":"ü"}',
      });
      expect(b).toMatchObject({ status: 201, text: 'abcdefg' });
      expect(b.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect((await http.request({ method: 'DELETE', url: `${base}/z`, headers: {} })).status).toBe(204);
    } finally {
      await http.close();
    }
    expect(requests[0]).toMatch(
      /^GET \/x\?q=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\naccept: application\/json\r\n\r\n$/,
    );
    // The body's length in bytes (UTF-8), not in characters.
    expect(Buffer.from(requests[1]!, 'latin1').toString('utf8')).toMatch(
      /content-length: 10\r\n\r\n\{"n":"ü"\}$/,
    );
    expect(requests[2]).toMatch(/^DELETE \/z HTTP\/1\.1\r\n.*content-length: 0\r\n\r\n$/s);
  });

  it('reads a body delimited by the connection closing, and opens a new connection afterwards', async () => {
    const base = await rawServer((_req, n) =>
      n === 0
        ? ['HTTP/1.1 200 OK\r\n\r\nuntil', ' close', 'CLOSE']
        : ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'],
    );
    const http = new HttpClient({ connections: 1, timeoutMs: 5000 });
    try {
      expect((await http.request({ method: 'GET', url: `${base}/a`, headers: {} })).text).toBe('until close');
      expect((await http.request({ method: 'GET', url: `${base}/b`, headers: {} })).text).toBe('ok');
    } finally {
      await http.close();
    }
  });

  it('refuses a header value with a line break (a rendered value must not inject a header) without sending', async () => {
    const requests: string[] = [];
    const base = await rawServer((req) => {
      requests.push(req);
      return ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'];
    });
    const http = new HttpClient({ connections: 1, timeoutMs: 5000 });
    try {
      await expect(
        http.request({ method: 'GET', url: `${base}/`, headers: { 'x-name': 'a\r\nx-admin: 1' } }),
      ).rejects.toMatchObject({ code: 'invalid_request' });
      expect(
        (await http.request({ method: 'GET', url: `${base}/ok`, headers: { 'x-name': 'a' } })).status,
      ).toBe(200);
    } finally {
      await http.close();
    }
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatch(/^GET \/ok /);
  });

  it('rejects with coded errors: refused, and no answer within the timeout', async () => {
    const http = new HttpClient({ connections: 2, timeoutMs: 300 });
    try {
      await expect(
        http.request({ method: 'GET', url: 'http://127.0.0.1:1/', headers: {} }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      const base = await rawServer(() => []);
      await expect(http.request({ method: 'GET', url: `${base}/`, headers: {} })).rejects.toMatchObject({
        code: 'UND_ERR_HEADERS_TIMEOUT',
      });
    } finally {
      await http.close();
    }
  });

  it('stamps responses read in one pass of the event loop with its first read, not after the responses processed before them', async () => {
    // The server answers only once both requests are in, in one callback: both responses are readable
    // before the client's next poll, which reads them in one pass.
    const waiting: Array<() => void> = [];
    server = createNetServer((socket) => {
      socket.once('data', () => {
        waiting.push(() => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
        if (waiting.length === 2) for (const answer of waiting) answer();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
    const http = new HttpClient({ connections: 2, timeoutMs: 5000 });
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let first = true;
    const processed = (res: HttpResponse) => {
      // The first response's processing blocks before the second response's read callback runs.
      if (first) Atomics.wait(pause, 0, 0, 30);
      first = false;
      return res;
    };
    try {
      const [a, b] = await Promise.all([
        http.request({ method: 'GET', url: `${base}/a`, headers: {} }).then(processed),
        http.request({ method: 'GET', url: `${base}/b`, headers: {} }).then(processed),
      ]);
      expect(a.text).toBe('ok');
      expect(b.text).toBe('ok');
      expect(a.receivedMs).toBeTypeOf('number');
      expect(b.receivedMs).toBe(a.receivedMs);
    } finally {
      await http.close();
    }
  });

  it('stamps a response read while no other exchange is in flight with its own read, scheduling nothing', async () => {
    const base = await rawServer(() => ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok']);
    const http = new HttpClient({ connections: 2, timeoutMs: 5000 });
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    try {
      for (let i = 0; i < 3; i++) {
        const sent = performance.now();
        const res = await http.request({ method: 'GET', url: `${base}/`, headers: {} });
        expect(res.receivedMs).toBeGreaterThan(sent);
        expect(res.receivedMs).toBeLessThanOrEqual(performance.now());
      }
      // The pass stamp is kept (and cleared by an immediate) only for reads that may share it.
      expect(immediates.mock.calls.filter(([fn]) => fn.name === 'endPass')).toHaveLength(0);
    } finally {
      immediates.mockRestore();
      await http.close();
    }
  });

  it('sends a prepared request as the same bytes each time, as the request itself would be sent', async () => {
    const requests: string[] = [];
    const base = await rawServer((req) => {
      requests.push(req);
      return ['HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'];
    });
    const http = new HttpClient({ connections: 1, timeoutMs: 5000 });
    const headers = { accept: 'application/json', 'x-key': 'k' };
    const prepared = http.prepare({ method: 'GET', url: `${base}/a`, headers });
    try {
      expect((await prepared.send()).status).toBe(200);
      expect((await prepared.send()).status).toBe(200);
      await http.request({ method: 'GET', url: `${base}/a`, headers });
      await http.request({ method: 'GET', url: `${base}/b`, headers });
    } finally {
      await http.close();
    }
    expect(requests[0]).toMatch(
      /^GET \/a HTTP\/1\.1\r\nhost: [^\r]+\r\naccept: application\/json\r\nx-key: k\r\n\r\n$/,
    );
    expect(requests[1]).toBe(requests[0]);
    expect(requests[2]).toBe(requests[0]);
    expect(requests[3]).toBe(requests[0]!.replace('GET /a ', 'GET /b '));
    await expect(prepared.send()).rejects.toMatchObject({ code: 'UND_ERR_CLOSED' });
  });
});

describe('the response parser', () => {
  it('reads responses from views of one reused buffer, keeping copies of what spans reads', () => {
    const shared = Buffer.alloc(64);
    const parser = new ResponseParser(false);
    // Each piece is written into the same buffer, overwriting the previous one, as socket reads are.
    const push = (piece: string) => {
      shared.fill(0x2a);
      const n = shared.write(piece, 'latin1');
      return parser.push(shared.subarray(0, n), performance.now());
    };
    expect(push('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nab')).toBeUndefined();
    expect(push('cd\r\n3\r\nefg\r\n')).toBeUndefined();
    const res = push('0\r\n\r\n');
    expect(res).toMatchObject({ status: 200, text: 'abcdefg' });
    parser.reset(false);
    expect(push('HTTP/1.1 201 Created\r\nContent-Length: 6\r\n\r\nxyz')).toBeUndefined();
    expect(push('uvw')).toMatchObject({ status: 201, text: 'xyzuvw' });
    parser.reset(false);
    expect(push('HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\nno')).toMatchObject({
      status: 404,
      text: 'no',
    });
  });

  it('frames a head seen before as the first time, for a HEAD request and after a different one', () => {
    const read = (parser: ResponseParser, ...pieces: string[]) => {
      let res: HttpResponse | undefined;
      for (const p of pieces) res = parser.push(Buffer.from(p, 'latin1'), performance.now());
      return { res, keepAlive: parser.keepAlive };
    };
    const sized = 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n';
    const untilClose = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n';
    const get = new ResponseParser(false);
    const head = new ResponseParser(true);
    expect(read(get, sized, 'hel', 'lo').res).toMatchObject({ status: 200, text: 'hello' });
    // The same head again, answering a HEAD: no body, complete at once.
    expect(read(head, sized)).toMatchObject({ res: { status: 200, text: '' }, keepAlive: true });
    get.reset(false);
    expect(read(get, sized, 'wo', 'rld').res).toMatchObject({ text: 'world' });
    // A body delimited by the connection closing ends keep-alive for a GET, not for a HEAD.
    get.reset(false);
    expect(read(get, untilClose, 'abc')).toMatchObject({ res: undefined, keepAlive: false });
    expect(get.end(performance.now())).toMatchObject({ status: 200, text: 'abc' });
    head.reset(true);
    expect(read(head, untilClose)).toMatchObject({ res: { status: 200, text: '' }, keepAlive: true });
    get.reset(false);
    expect(
      read(get, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok'),
    ).toMatchObject({
      res: { status: 201, text: 'ok' },
      keepAlive: true,
    });
    get.reset(false);
    expect(read(get, 'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nno')).toMatchObject({
      res: { status: 200, text: 'no' },
      keepAlive: false,
    });
    get.reset(false);
    expect(read(get, sized, 'again').res).toMatchObject({ text: 'again' });
  });

  it('sends https through undici, loaded with the first https origin: method, path, headers and body', async () => {
    const dir = tempDir('tls-');
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    expect(made.status).toBe(0);
    const seen: { method?: string; url?: string; type?: string; body: string }[] = [];
    const tls = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => {
          body += c.toString();
        });
        req.on('end', () => {
          seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
          res.setHeader('x-answer', 'yes');
          res.end(JSON.stringify({ got: JSON.parse(body || 'null') }));
        });
      },
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', () => r()));
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    // The certificate is made here, for this server: not one a CA signed.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const http = new HttpClient({ connections: 1, timeoutMs: 5000 });
    try {
      const url = `https://127.0.0.1:${(tls.address() as { port: number }).port}/api/x?q=1`;
      const res = await http.request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(res).toMatchObject({ status: 200, text: '{"got":{"a":1}}' });
      expect(res.headers['x-answer']).toBe('yes');
      expect(await http.prepare({ method: 'GET', url, headers: {} }).send()).toMatchObject({ status: 200 });
      expect(seen).toEqual([
        { method: 'POST', url: '/api/x?q=1', type: 'application/json', body: '{"a":1}' },
        { method: 'GET', url: '/api/x?q=1', type: undefined, body: '' },
      ]);
    } finally {
      await http.close();
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
      await new Promise<void>((r) => tls.close(() => r()));
    }
  });
});
