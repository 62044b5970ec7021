import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../../backend/server';
import { type Fetcher, request } from '../../helpers/http';

const network: Fetcher = { fetch: (req) => fetch(req) };

/** An app whose `/slow` waits for `release`; `reached` resolves once a `/slow` request is in its handler. */
function slowApp(release: Promise<void>) {
  const app = new Hono();
  let reachedHandler!: () => void;
  const reached = new Promise<void>((resolve) => {
    reachedHandler = resolve;
  });
  app.get('/fast', (c) => c.json({ ok: true }));
  app.get('/slow', async (c) => {
    reachedHandler();
    await release;
    return c.json({ finished: true });
  });
  return Object.assign(app, { reached });
}

describe('startServer', () => {
  it('binds port 0, answers, and lets an in-flight request finish on close', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = slowApp(gate);
    const running = await startServer(app, { host: '127.0.0.1', port: 0 });
    expect(running.port).toBeGreaterThan(0);
    expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
    expect((await request(network, 'GET', `${running.url}/fast`)).status).toBe(200);

    const inFlight = request(network, 'GET', `${running.url}/slow`);
    await app.reached;
    let closed = false;
    const closing = running.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    await expect(request(network, 'GET', `${running.url}/fast`)).rejects.toThrow();
    release();
    const res = await inFlight;
    expect(await res.json()).toEqual({ finished: true });
    await closing;
    expect(closed).toBe(true);
  });

  it('cuts connections still open after the shutdown timeout', async () => {
    const never = new Promise<void>(() => {});
    const app = slowApp(never);
    const running = await startServer(app, { host: '127.0.0.1', port: 0, shutdownTimeoutMs: 200 });
    const stuck = request(network, 'GET', `${running.url}/slow`).catch((err: Error) => err);
    await app.reached;
    await running.close();
    expect(await stuck).toBeInstanceOf(Error);
  });

  it('rejects when the port is taken', async () => {
    const first = await startServer(new Hono(), { host: '127.0.0.1', port: 0 });
    await expect(startServer(new Hono(), { host: '127.0.0.1', port: first.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
    await first.close();
  });
});
