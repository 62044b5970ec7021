import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
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

/**
 * Serves `app` on @hono/node-server. Resolves once listening; rejects when the port cannot be bound
 * (e.g. `EADDRINUSE`), with the system error.
 */
export function startServer(app: FetchApp, options: StartServerOptions): Promise<RunningServer> {
  // Malformed requests get the one JSON error shape too: those the adapter cannot turn into a Request
  // (errorHandler) and those node's HTTP parser refuses (clientError).
  const listener = getRequestListener((request, env) => app.fetch(request, env as HttpBindings), {
    errorHandler: adapterErrorResponse,
  });
  const server = createServer(listener);
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
        close: () => {
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
