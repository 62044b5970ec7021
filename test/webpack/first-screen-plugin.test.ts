/**
 * `FirstScreenPlugin` lists the chunks a first screen runs: the entry and what it loads on demand, without
 * the chunk groups named as deferred.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import webpack from 'webpack';
import { FIRST_SCREEN_FILE, FirstScreenPlugin } from '../../src/webpack';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function compile(config: webpack.Configuration): Promise<void> {
  return new Promise((resolve, reject) => {
    webpack(config, (err, stats) => {
      if (err || stats?.hasErrors()) reject(err ?? new Error(stats?.toString('errors-only')));
      else resolve();
    });
  });
}

describe('FirstScreenPlugin', () => {
  it('lists the entry and the chunks it loads, but not the deferred ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'first-screen-plugin-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'index.js'),
      [
        "import('./list').then((m) => m.show());",
        'document.body.onclick = () => import(/* webpackChunkName: "route-form" */ \'./form\');',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'list.js'), "export const show = () => import('./rows');");
    writeFileSync(join(dir, 'rows.js'), 'export const rows = [1, 2, 3];');
    writeFileSync(join(dir, 'form.js'), 'export const form = "form";');

    await compile({
      mode: 'production',
      context: dir,
      entry: { main: './index.js' },
      output: { path: join(dir, 'out'), filename: '[name].js', chunkFilename: '[name].chunk.js' },
      optimization: { chunkIds: 'named', minimize: false },
      plugins: [new FirstScreenPlugin({ role: 'host', deferred: /^route-/ })],
    });

    const { files } = JSON.parse(readFileSync(join(dir, 'out', FIRST_SCREEN_FILE), 'utf8')) as {
      files: string[];
    };
    expect(files).toContain('main.js');
    expect(files).toEqual(
      expect.arrayContaining([expect.stringMatching(/list/), expect.stringMatching(/rows/)]),
    );
    expect(files).toHaveLength(3);
    expect(files.some((f) => f.includes('form'))).toBe(false);
  });
});
