/**
 * A new cluster on disk (backend/db/pglite-settings.ts): a copy of the kept empty cluster where there is one,
 * else made by initdb in a child process, whose cluster is then kept for the next.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { createCluster } from '../../../backend/db/pglite-settings';
import { startFromTemplate } from '../../../backend/db/pglite-template';

const root = mkdtempSync(join(tmpdir(), 'cluster-on-disk-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Which of `names` are tables of the cluster under `dir`; then runs `sql` on it. */
async function tablesOf(dir: string, names: string[], sql = ''): Promise<string[]> {
  const pg = new PGlite(dir);
  try {
    const { rows } = await pg.query<{ relname: string }>(
      'SELECT relname FROM pg_class WHERE relname = ANY($1) ORDER BY relname',
      [names],
    );
    if (sql) await pg.exec(sql);
    return rows.map((r) => r.relname);
  } finally {
    await pg.close();
  }
}

describe('a new cluster on disk', () => {
  it('is a copy of the kept cluster where there is one, and an existing cluster is left as it is', async () => {
    // A template no initdb could have made: it holds a table of its own (made from the machine's kept
    // cluster, as an in-memory database is).
    const source = await startFromTemplate((template) => PGlite.create({ loadDataDir: template }));
    await source.exec('CREATE TABLE made_from_the_template (x int); CHECKPOINT');
    const template = join(root, 'marked', 'empty.tar');
    mkdirSync(join(root, 'marked'));
    writeFileSync(template, Buffer.from(await (await source.dumpDataDir('none')).arrayBuffer()));
    await source.close();

    const dir = join(root, 'marked', 'db');
    mkdirSync(dir);
    await createCluster(dir, template);
    const names = ['made_from_the_template', 'written_since'];
    expect(await tablesOf(dir, names, 'CREATE TABLE written_since (x int)')).toEqual([
      'made_from_the_template',
    ]);
    await createCluster(dir, template);
    expect(await tablesOf(dir, names)).toEqual(names);
  });

  it('is made by initdb where the kept one does not load, which is then replaced by the new, empty cluster', async () => {
    const template = join(root, 'broken', 'empty.tar');
    mkdirSync(join(root, 'broken'));
    writeFileSync(template, 'not a tar file of a cluster');
    const dir = join(root, 'broken', 'db');
    mkdirSync(dir);
    await createCluster(dir, template);
    expect(statSync(template).size).toBeGreaterThan(1_000_000);
    expect(readdirSync(join(root, 'broken')).sort()).toEqual(['db', 'empty.tar']);
    const names = ['pg_class', 'written_after'];
    expect(await tablesOf(dir, names, 'CREATE TABLE written_after (x int)')).toEqual(['pg_class']);

    // Kept before anything was written: a second folder made from it has none of the first's tables.
    const next = join(root, 'broken', 'next');
    mkdirSync(next);
    await createCluster(next, template);
    expect(existsSync(join(next, 'PG_VERSION'))).toBe(true);
    expect(await tablesOf(next, names)).toEqual(['pg_class']);
  });
});
