/**
 * What `m app dev` tells the Desk about a build: a real webpack compilation of a TSX file with a syntax error
 * (esbuild-loader, as a remote's build uses) turns into the file relative to the app folder, the line and
 * column, and esbuild's message without stack frames or absolute paths; and the status stream sends the
 * current status to a new listener, then every change, to any origin.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import webpack, { type StatsError } from 'webpack';
import { DevBuildChannel, devBuildStatusOf } from '../../../src/cli/app-dev/build-status';
import { DEV_BUILD_STATUS_PATH, parseDevBuildStatus } from '../../../src/protocol/dev-build';

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'desk-dev-build-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Compiles `files` (path under the app folder -> source) from `ui/index.ts`; resolves to the stats errors. */
function compile(files: Record<string, string>): Promise<StatsError[]> {
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const compiler = webpack({
    mode: 'development',
    devtool: false,
    context: dir,
    entry: './ui/index.ts',
    output: { path: join(dir, 'out') },
    resolve: { extensions: ['.tsx', '.ts', '.js'] },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          loader: require.resolve('esbuild-loader'),
          options: { target: 'es2022', jsx: 'automatic' },
        },
      ],
    },
  });
  return new Promise((resolve, reject) =>
    compiler.run((err, stats) => {
      compiler.close(() => {});
      if (err || !stats) reject(err ?? new Error('no stats'));
      else resolve(stats.toJson({ all: false, errors: true }).errors ?? []);
    }),
  );
}

describe('devBuildStatusOf', () => {
  it('names the file under the app folder, the line and column, and the compiler message of a syntax error', async () => {
    const errors = await compile({
      'ui/index.ts': "import { NoteForm } from './NoteForm';\nconsole.log(NoteForm);\n",
      'ui/NoteForm.tsx': 'export function NoteForm() {\n  return <p>notes note form</p>;\n}\n<<<\n',
    });
    const status = devBuildStatusOf(errors, dir);
    expect(status.state).toBe('failed');
    expect(status.errors).toHaveLength(1);
    const [error] = status.errors;
    expect(error).toMatchObject({ file: 'ui/NoteForm.tsx', line: 4, column: 1 });
    expect(error!.message).toBe('Unexpected "<<"');
    expect(JSON.stringify(status)).not.toContain(dir);
    expect(JSON.stringify(status)).not.toMatch(/\bat \S+ \(/);
  });

  it('names the importing module and its location when an import does not resolve', async () => {
    const errors = await compile({
      'ui/index.ts': "import { Missing } from './Missing';\nconsole.log(Missing);\n",
    });
    const status = devBuildStatusOf(errors, dir);
    expect(status.state).toBe('failed');
    expect(status.errors[0]).toMatchObject({ file: 'ui/index.ts', line: 1 });
    expect(status.errors[0]!.message).toContain("Can't resolve './Missing'");
    expect(status.errors[0]!.message).not.toContain(dir);
  });

  it('is ok, with no errors, after a clean build', async () => {
    const errors = await compile({ 'ui/index.ts': 'export const ready = true;\n' });
    expect(devBuildStatusOf(errors, dir)).toEqual({ state: 'ok', errors: [] });
  });
});

describe('DevBuildChannel', () => {
  let server: Server | undefined;
  afterAll(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  it('streams the current status to a new listener, then each published change; other paths pass on', async () => {
    const channel = new DevBuildChannel(dir);
    server = createServer((req, res) =>
      channel.handle(req, res, () => {
        res.writeHead(404).end();
      }),
    );
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;

    expect((await fetch(`${base}/remoteEntry.js`)).status).toBe(404);
    const response = await fetch(`${base}${DEV_BUILD_STATUS_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    /** The next event's data, parsed. */
    let buffered = '';
    const nextStatus = async () => {
      while (!buffered.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered += value;
      }
      const [event, ...rest] = buffered.split('\n\n');
      buffered = rest.join('\n\n');
      expect(event).toMatch(/^event: status\n/);
      return parseDevBuildStatus(event!.split('\ndata: ')[1]!);
    };

    expect(await nextStatus()).toEqual({ state: 'building', errors: [] });
    channel.publish({
      state: 'failed',
      errors: [{ file: 'ui/NoteForm.tsx', line: 4, message: 'Unexpected' }],
    });
    expect(await nextStatus()).toEqual({
      state: 'failed',
      errors: [{ file: 'ui/NoteForm.tsx', line: 4, message: 'Unexpected' }],
    });
    channel.publish({ state: 'ok', errors: [] });
    expect(await nextStatus()).toEqual({ state: 'ok', errors: [] });
    channel.close();
    expect((await reader.read()).done).toBe(true);
  });
});
