import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface Received {
  method: string;
  url: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers a received request: status, JSON body, extra headers. */
export type Handler = (
  req: Received,
) =>
  | { status?: number; json?: unknown; headers?: Record<string, string | string[]>; delayMs?: number }
  | undefined;

/** A node:http server on port 0 that records every request and answers through `handler`. */
export interface RecordingServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Starts a recording server; 200 `{}` when the handler returns nothing. */
export async function startRecordingServer(handler: Handler = () => undefined): Promise<RecordingServer> {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const url = req.url ?? '/';
      const r: Received = {
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0]!,
        headers: req.headers,
        body,
      };
      received.push(r);
      const answer = handler(r) ?? {};
      const send = () => {
        res.statusCode = answer.status ?? 200;
        res.setHeader('content-type', 'application/json');
        for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
        res.end(JSON.stringify(answer.json ?? {}));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
