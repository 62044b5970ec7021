import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { cutIdleBody, DEFAULT_BODY_IDLE_TIMEOUT_MS } from './http/body-idle-timeout';
import { errorBody } from './http/errors';
import { lingerOnClose } from './http/lingering-close';
import { bindNodeRequest } from './http/node-request';
import { adapterErrorResponse, onClientError } from './http/wire-errors';

/** Anything with Hono's `fetch` (the platform app, the macroservice gateway). */
export interface FetchApp {
  // biome-ignore lint/suspicious/noExplicitAny: Hono's fetch takes its own Env bindings type
  fetch(request: Request, env: HttpBindings): Response | Promise<Response> | any;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  host: string;
  /** 0 picks a free port; the chosen one is in the result. */
  port: number;
  /** Longest wait for in-flight requests on close before connections are cut; default 10 000 ms. */
  shutdownTimeoutMs?: number;
  /**
   * How long a request body may stop arriving before the request is cut with 408 (`server.body_idle_timeout_ms`,
   * docs/security.md#slow-bodies); default 30 000 ms.
   */
  bodyIdleTimeoutMs?: number;
}

/** A listening server. */
export interface RunningServer {
  /** `http://<host>:<port>` (a wildcard bind address shows as `127.0.0.1`). */
  url: string;
  port: number;
  /** The underlying node:http server, for what needs it (WebSocket upgrades, tests). */
  server: Server;
  /**
   * Stops accepting connections, lets in-flight requests finish (idle keep-alive connections are closed at
   * once), and cuts whatever is still open after `shutdownTimeoutMs`. Idempotent.
   */
  close(): Promise<void>;
}

/** A bound server whose app is supplied later (see {@link listen}). */
export interface ListeningServer extends RunningServer {
  /** Starts answering with `app`; requests that arrived since the bind are answered by it too. Once. */
  serve(app: FetchApp): void;
}

/** Answer to requests still waiting for an app when the server is closed before one was supplied. */
function unavailable(): Response {
  return new Response(JSON.stringify(errorBody('unavailable', 'the server is shutting down')), {
    status: 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'retry-after': '1' },
  });
}

/**
 * Binds `options.host` / `options.port` before the app exists, so a composition root can build its context
 * with the address actually bound (`port` 0 picks a free one) instead of patching it afterwards. Requests
 * arriving before `serve(app)` wait for the app. Resolves once listening; rejects when the port cannot be
 * bound (e.g. `EADDRINUSE`), with the system error.
 */
export function listen(options: StartServerOptions): Promise<ListeningServer> {
  let supply!: (app: FetchApp | undefined) => void;
  const supplied = new Promise<FetchApp | undefined>((resolve) => {
    supply = resolve;
  });
  let current: FetchApp | undefined;
  // Malformed requests get the one JSON error shape too: those the adapter cannot turn into a Request
  // (errorHandler) and those node's HTTP parser refuses (clientError).
  // Once the app is there, a request goes straight to its fetch (no async wrapper: a Response the app gives
  // synchronously takes the adapter's synchronous path).
  // The Request is tied to its node:http request, so the app reads headers and a body from what node:http
  // already parsed instead of the adapter's Fetch objects (`backend/http/node-request.ts`).
  // Every answer, the JSON ones included, says its Content-Type is to be believed
  // (docs/security.md#response-headers): set on the node:http response before the app writes its head, which
  // merges the app's headers into it. A request whose body is still to come is watched for silence
  // (docs/security.md#slow-bodies) and, answered early, closed gracefully (`backend/http/lingering-close.ts`).
  const idleMs = options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS;
  const listener = getRequestListener(
    (request, env) => {
      const { incoming, outgoing } = env as HttpBindings;
      outgoing.setHeader('X-Content-Type-Options', 'nosniff');
      if (cutIdleBody(incoming, outgoing, idleMs)) lingerOnClose(incoming);
      bindNodeRequest(request, incoming);
      return current
        ? current.fetch(request, env as HttpBindings)
        : supplied.then((app) => (app ? app.fetch(request, env as HttpBindings) : unavailable()));
    },
    { errorHandler: adapterErrorResponse },
  );
  const server: Server = createServer(listener);
  server.on('clientError', onClientError);
  const timeout = options.shutdownTimeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = ['0.0.0.0', '::'].includes(options.host) ? '127.0.0.1' : options.host;
      const shown = host.includes(':') ? `[${host}]` : host;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        server,
        serve(app) {
          if (current) throw new Error('the server already serves an app');
          current = app;
          supply(app);
        },
        close: () => {
          supply(undefined);
          closing ??= new Promise<void>((done) => {
            const sweep = setInterval(() => server.closeIdleConnections(), 25);
            const deadline = setTimeout(() => server.closeAllConnections(), timeout);
            server.close(() => {
              clearInterval(sweep);
              clearTimeout(deadline);
              done();
            });
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}

/**
 * Serves `app` on @hono/node-server. Resolves once listening; rejects when the port cannot be bound
 * (e.g. `EADDRINUSE`), with the system error.
 */
export async function startServer(app: FetchApp, options: StartServerOptions): Promise<RunningServer> {
  const server = await listen(options);
  server.serve(app);
  return server;
}
