/**
 * The baseline of `bench/memory`: a bare Hono app on the same database as `m serve` (PGlite under
 * `BARE_DATA_DIR`, or the server at `PLATFORM_DATABASE_URL`), with none of the platform's chain. It lists and
 * creates rows of the same `records` table, so the difference to `m serve` is the platform's own cost.
 * Run as its own process (`node --import tsx bench/support/bare-hono-server.ts`); prints `Ready: <url>`.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { openDatabase } from '../../backend/db/open-database';

const db = await openDatabase({
  dataDir: process.env.BARE_DATA_DIR,
  databaseUrl: process.env.PLATFORM_DATABASE_URL || undefined,
});
let next = 0;
const app = new Hono();
app.get('/api/resource/:doctype', async (c) => {
  const { rows } = await db.query(
    'SELECT name, data FROM records WHERE doctype = $1 ORDER BY modified DESC LIMIT 20',
    [c.req.param('doctype')],
  );
  return c.json({ data: rows.map((r) => ({ name: r.name, ...(r.data as object) })) });
});
app.post('/api/resource/:doctype', async (c) => {
  const body = await c.req.json();
  const name = `BARE-${process.pid}-${++next}`;
  await db.query('INSERT INTO records (doctype, name, data) VALUES ($1, $2, $3)', [
    c.req.param('doctype'),
    name,
    JSON.stringify(body),
  ]);
  return c.json({ data: { name, ...body } }, 201);
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`Ready: http://127.0.0.1:${info.port}`);
});
process.on('SIGTERM', () => {
  server.close();
  void db.close().then(() => process.exit(0));
});
