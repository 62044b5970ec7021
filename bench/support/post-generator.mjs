// The load generator of bench/decrypt, run as a child process of its own (`fork`), so the servers it loads
// do not share an event loop or a core's time with it. Plain JavaScript, so starting it needs no loader.
//
// Protocol over IPC:
//   parent -> { type: 'load', url, path, headers, bodies, connections, status?, keyHeader? }
//                                                                          child -> { type: 'loaded' }
//   `status` is the answer every request must get (default 200); `keyHeader` names a header sent with a
//   fresh random value on every request (an `Idempotency-Key`).
//   parent -> { type: 'go' }    child sends every body once, `connections` at a time, then
//                               child -> { type: 'done', ms } or { type: 'failed', message }
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';

let job;
process.on('message', async (message) => {
  if (message.type === 'load') {
    job = message;
    process.send({ type: 'loaded' });
    return;
  }
  if (message.type !== 'go') return;
  const { url, path, headers, bodies, connections, status = 200, keyHeader } = job;
  const pool = new Pool(url, { connections, pipelining: 1 });
  let next = 0;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const sent = keyHeader ? { ...headers, [keyHeader]: randomUUID() } : headers;
          const res = await pool.request({ method: 'POST', path, headers: sent, body });
          const text = await res.body.text();
          if (res.statusCode !== status) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        }
      }),
    );
    process.send({ type: 'done', ms: performance.now() - start });
  } catch (error) {
    process.send({ type: 'failed', message: String(error?.message ?? error) });
  } finally {
    await pool.close();
  }
});
