// The load generator of the server benches (decrypt, encrypted-create, at-rest), run as a child process of
// its own (`fork`), so the servers it loads do not share an event loop or a core's time with it. Plain
// JavaScript, so starting it needs no loader.
//
// Protocol over IPC:
//   parent -> { type: 'load', url, path, headers, bodies, connections, status?, keyHeader? }
//          or { type: 'load', url, paths, headers, connections, status? }   (GETs)
//                                                                          child -> { type: 'loaded' }
//   `status` is the answer every request must get (default 200); `keyHeader` names a header sent with a
//   fresh random value on every request (an `Idempotency-Key`). With `paths`, each is read once by a GET.
//   parent -> { type: 'go' }    child sends every request once, `connections` at a time, then
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
  const { url, path, paths, headers, bodies, connections, status = 200, keyHeader } = job;
  const count = paths ? paths.length : bodies.length;
  const pool = new Pool(url, { connections, pipelining: 1 });
  let next = 0;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < count) {
          const i = next++;
          const sent = keyHeader ? { ...headers, [keyHeader]: randomUUID() } : headers;
          const res = paths
            ? await pool.request({ method: 'GET', path: paths[i], headers: sent })
            : await pool.request({ method: 'POST', path, headers: sent, body: bodies[i] });
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
