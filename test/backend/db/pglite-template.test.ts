/**
 * The empty cluster in-memory databases start from (backend/db/pglite-template.ts): kept by the first, loaded
 * by the next, and replaced when it does not load.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { startFromTemplate, templatePath } from '../../../backend/db/pglite-template';

const dir = mkdtempSync(join(tmpdir(), 'pglite-template-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts PGlite as the database layer does, and notes whether it was given a template. */
function starter(given: ('template' | 'initdb')[], opened: PGlite[]) {
  return async (template?: Blob) => {
    given.push(template ? 'template' : 'initdb');
    const pg = new PGlite({ loadDataDir: template });
    await pg.waitReady;
    opened.push(pg);
    return pg;
  };
}

describe('the template of in-memory databases', () => {
  it('is kept in node_modules/.cache under the version of the PGlite it belongs to, and nowhere outside a node_modules', () => {
    const pkg = join(dir, 'app', 'node_modules', '@electric-sql', 'pglite');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ version: '9.8.7' }));
    expect(templatePath(pkg)).toBe(
      join(dir, 'app', 'node_modules', '.cache', 'platform-pglite', 'empty-cluster-9.8.7.tar'),
    );
    expect(templatePath(join(dir, 'elsewhere'))).toBeUndefined();
  });

  it('runs initdb for the first database and keeps its empty cluster; the next starts from it, empty', async () => {
    const path = join(dir, 'first', 'empty.tar');
    const given: ('template' | 'initdb')[] = [];
    const opened: PGlite[] = [];
    const first = await startFromTemplate(starter(given, opened), path);
    expect(given).toEqual(['initdb']);
    expect(statSync(path).size).toBeGreaterThan(0);
    await first.exec('CREATE TABLE notes (body text); INSERT INTO notes VALUES ($$kept$$)');

    const second = await startFromTemplate(starter(given, opened), path);
    expect(given).toEqual(['initdb', 'template']);
    // Kept before anything was written: the first database's table is not in it.
    const { rows } = await second.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_class WHERE relname = 'notes'",
    );
    expect(rows[0]!.n).toBe(0);
    await second.exec('CREATE TABLE notes (body text)');
    await Promise.all(opened.map((pg) => pg.close()));
  });

  it('removes a template that does not load, runs initdb instead and keeps a new one', async () => {
    const path = join(dir, 'broken', 'empty.tar');
    mkdirSync(join(dir, 'broken'));
    writeFileSync(path, 'not a tar file of a cluster');
    const given: ('template' | 'initdb')[] = [];
    const opened: PGlite[] = [];
    const pg = await startFromTemplate(starter(given, opened), path);
    expect(given).toEqual(['template', 'initdb']);
    expect((await pg.query<{ x: number }>('SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).size).toBeGreaterThan(1000);
    await Promise.all(opened.map((p) => p.close()));
  });
});
