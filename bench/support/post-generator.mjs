// The load generator of bench/decrypt, run as a child process of its own (`fork`), so the servers it loads
// do not share an event loop or a core's time with it. Plain JavaScript, so starting it needs no loader.
//
// Protocol over IPC:
//   parent -> { type: 'load', url, path, headers, bodies, connections }   child -> { type: 'loaded' }
//   parent -> { type: 'go' }    child sends every body once, `connections` at a time, then
//                               child -> { type: 'done', ms } or { type: 'failed', message }
import { Pool } from 'undici';

let job;
process.on('message', async (message) => {
  if (message.type === 'load') {
    job = message;
    process.send({ type: 'loaded' });
    return;
  }
  if (message.type !== 'go') return;
  const { url, path, headers, bodies, connections } = job;
  const pool = new Pool(url, { connections, pipelining: 1 });
  let next = 0;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const res = await pool.request({ method: 'POST', path, headers, body });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
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
