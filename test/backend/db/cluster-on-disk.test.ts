/**
 * A new cluster on disk (backend/db/pglite-settings.ts): made in a child process from the kept empty cluster
 * where there is one, else by initdb, whose cluster is then kept for the next.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { createClusterOutOfProcess } from '../../../backend/db/pglite-settings';

const root = mkdtempSync(join(tmpdir(), 'cluster-on-disk-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The tables named `name` in the cluster under `dir`. */
async function tablesNamed(dir: string, name: string): Promise<number> {
  const pg = new PGlite(dir);
  try {
    const { rows } = await pg.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_class WHERE relname = $1',
      [name],
    );
    return rows[0]!.n;
  } finally {
    await pg.close();
  }
}

describe('a new cluster on disk', () => {
  it('is a copy of the kept cluster where there is one', async () => {
    // A template no initdb could have made: it holds a table of its own.
    const source = new PGlite();
    await source.exec('CREATE TABLE made_from_the_template (x int); CHECKPOINT');
    const template = join(root, 'marked', 'empty.tar');
    mkdirSync(join(root, 'marked'));
    writeFileSync(template, Buffer.from(await (await source.dumpDataDir('none')).arrayBuffer()));
    await source.close();

    const dir = join(root, 'marked', 'db');
    mkdirSync(dir);
    await createClusterOutOfProcess(dir, template);
    expect(await tablesNamed(dir, 'made_from_the_template')).toBe(1);
    // An existing cluster is left as it is.
    await createClusterOutOfProcess(dir, template);
    expect(await tablesNamed(dir, 'made_from_the_template')).toBe(1);
  });

  it('is made by initdb where the kept one does not load, which is then replaced by the new cluster', async () => {
    const template = join(root, 'broken', 'empty.tar');
    mkdirSync(join(root, 'broken'));
    writeFileSync(template, 'not a tar file of a cluster');
    const dir = join(root, 'broken', 'db');
    mkdirSync(dir);
    await createClusterOutOfProcess(dir, template);
    expect(await tablesNamed(dir, 'pg_class')).toBe(1);
    expect(statSync(template).size).toBeGreaterThan(1_000_000);
    expect(readdirSync(join(root, 'broken')).sort()).toEqual(['db', 'empty.tar']);

    // The kept cluster is an empty one: a second folder made from it has none of the first's tables.
    const first = new PGlite(dir);
    await first.exec('CREATE TABLE written_after (x int)');
    await first.close();
    const next = join(root, 'broken', 'next');
    mkdirSync(next);
    await createClusterOutOfProcess(next, template);
    expect(await tablesNamed(next, 'pg_class')).toBe(1);
    expect(await tablesNamed(next, 'written_after')).toBe(0);
    expect(existsSync(join(next, 'PG_VERSION'))).toBe(true);
  });
});
