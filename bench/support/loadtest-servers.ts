/**
 * The servers of bench/loadtest.ts, in a child process of their own (forked with an IPC channel) so that
 * neither load tool shares its event loop with them:
 * - node:http: `/` answers a small JSON at once; `/slow` after DELAY_MS, timing itself from the handler's
 *   start to the response's `finish` (the truth the tools' latencies are compared with);
 * - raw node:net: fixed response bytes for every request head read (body-less GETs only), a few
 *   microseconds per request, so the tool sending to it is what limits the rate.
 * Messages: `reset` clears the recorded times, `stats` answers their {@link Stats}, `exit` ends the process.
 * It sends `{ port, rawPort }` once both listen.
 */
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';

/** p50 and p99 of a list of times, and how many there were. */
export type Stats = { p50: number; p99: number; count: number };

/** The answer time of `/slow`, in ms. */
const DELAY_MS = 50;

/** p50 and p99 of exact values: the value at index floor(q * n) of the sorted list. */
export function exactStats(values: readonly number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), count: sorted.length };
}

function serve(): void {
  let times: number[] = [];
  const body = JSON.stringify({ ok: true, data: { name: 'REC-1' } });
  const server = createServer((req, res) => {
    const start = process.hrtime.bigint();
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url !== '/slow') return res.end(body);
      res.on('finish', () => times.push(Number(process.hrtime.bigint() - start) / 1000));
      setTimeout(() => res.end(body), DELAY_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  const response = Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  );
  const raw = createNetServer({ noDelay: true }, (socket) => {
    let tail = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const text = tail + chunk.toString('latin1');
      let heads = 0;
      let at = 0;
      for (let i = text.indexOf('\r\n\r\n'); i >= 0; i = text.indexOf('\r\n\r\n', at)) {
        heads++;
        at = i + 4;
      }
      tail = text.slice(at);
      if (heads > 0) socket.write(heads === 1 ? response : Buffer.concat(Array(heads).fill(response)));
    });
  });
  const portOf = (s: { address(): unknown }) => (s.address() as { port: number }).port;
  server.listen(0, '127.0.0.1', () =>
    raw.listen(0, '127.0.0.1', () => process.send!({ port: portOf(server), rawPort: portOf(raw) })),
  );
  process.on('message', (m) => {
    if (m === 'reset') times = [];
    if (m === 'stats') process.send!(exactStats(times));
    if (m === 'exit') process.exit(0);
  });
}

// Forked by the benchmark (an IPC channel); imported for its helpers otherwise.
if (process.send) serve();
