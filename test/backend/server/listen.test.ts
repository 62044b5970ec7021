import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { listen } from '../../../backend/server';
import { type Fetcher, request } from '../../helpers/http';

const network: Fetcher = { fetch: (req) => fetch(req) };

describe('listen', () => {
  it('binds before the app exists and answers a request that arrived early once the app is served', async () => {
    const server = await listen({ host: '127.0.0.1', port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      const early = request(network, 'GET', `${server.url}/ping`);
      const app = new Hono();
      app.get('/ping', (c) => c.json({ port: server.port }));
      server.serve(app);
      const res = await early;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ port: server.port });
    } finally {
      await server.close();
    }
  });

  it('answers a waiting request with 503 unavailable when closed before any app was served', async () => {
    const server = await listen({ host: '127.0.0.1', port: 0 });
    const early = request(network, 'GET', `${server.url}/ping`);
    // Give the request time to reach the server before it closes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = server.close();
    const res = await early;
    await closed;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: { code: 'unavailable', message: 'the server is shutting down' },
    });
  });

  it('refuses a second app', async () => {
    const server = await listen({ host: '127.0.0.1', port: 0 });
    try {
      server.serve(new Hono());
      expect(() => server.serve(new Hono())).toThrow('already serves');
    } finally {
      await server.close();
    }
  });
});
