/**
 * `m serve --app <folder> --watch` (what the scaffold's `npm start` runs): a DocType added to the app folder
 * while the server runs is served without a restart, the same process on the same port, with its records
 * stored (the database migrated for it), its list answering 200 and its schema in `/api/meta/<app>`; the
 * session signed in before the change still works. A broken definition is refused and the running apps keep
 * serving. The folder's `node_modules` links the platform and tsx to this checkout's copies.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fetcher, request } from '../helpers/http';

const ROOT = join(import.meta.dirname, '..', '..');
const parent = mkdtempSync(join(tmpdir(), 'desk-watch-'));
const dir = join(parent, 'gizmos');
const network: Fetcher = { fetch: (req) => fetch(req) };
const PASSWORD = 'watch-test-password';

let child: ChildProcess | undefined;
let output = '';
let url = '';
let session: Record<string, string> = {};

/** Edits a file of the app folder: `from` must be there. */
function edit(file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  writeFileSync(path, text.replace(from, to));
}

/** Resolves once the server's output has `count` lines matching `pattern` (it exits: rejects). */
async function outputLines(pattern: RegExp, count: number): Promise<void> {
  const global = new RegExp(pattern.source, 'g');
  while ((output.match(global) ?? []).length < count) {
    if (child?.exitCode !== null) throw new Error(`m serve exited:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, 'bin', 'm.js'), 'new', 'app', 'gizmos', '--dir', dir], {
    stdio: 'pipe',
  });
  for (const [name, target] of [
    ['@framework-m/desk', ROOT],
    ['tsx', join(ROOT, 'node_modules', 'tsx')],
  ] as const) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  }
  child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'm.js'), 'serve', '--app', dir, '--watch', '--port', '0'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PLATFORM_ADMIN_PASSWORD: PASSWORD,
        PLATFORM_DATA_DIR: join(parent, 'data'),
        PORT: '',
        HOST: '',
        PLATFORM_APPS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await outputLines(/Desk: http:\/\/\S+\/desk\//, 1);
  url = /Desk: (http:\/\/\S+)\/desk\//.exec(output)![1]!;
  const res = await request(network, 'POST', `${url}/api/method/login`, {
    body: { usr: 'Administrator', pwd: PASSWORD },
    headers: { origin: url },
  });
  expect(res.status).toBe(200);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  session = {
    cookie: res.headers.get('set-cookie')!.split(';')[0]!,
    'x-csrf-token': csrf_token,
    origin: url,
  };
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(parent, { recursive: true, force: true });
});

describe('m serve --watch', () => {
  it('serves a DocType added to the app folder without a restart: its list, its records and its metadata', async () => {
    const before = await request(network, 'GET', `${url}/api/resource/gizmos.Part`, { headers: session });
    expect(before.status).toBe(404);
    const pid = child!.pid;

    writeFileSync(
      join(dir, 'part.ts'),
      `import { defineDocType, z } from '@framework-m/desk/app';

/** \`gizmos.Part\`: a part, numbered. */
export const Part = defineDocType({
  name: 'gizmos.Part',
  label: 'Part',
  titleField: 'code',
  namePrefix: 'PART',
  model: z.object({
    code: z.string().trim().min(1).max(40).meta({ label: 'Code', inList: true, index: true }),
    quantity: z.number().int().min(0).meta({ label: 'Quantity' }).optional(),
  }),
});
`,
    );
    edit(
      'app.ts',
      "import { Note } from './doctypes';",
      "import { Note } from './doctypes';\nimport { Part } from './part';",
    );
    edit('app.ts', 'doctypes: [Note],', 'doctypes: [Note, Part],');
    await outputLines(/apps reloaded in \d+ ms \(\d+ DocTypes\)/, 1);
    // Both writes may come as one reload or two: wait until the one that includes Part.
    let list = await request(network, 'GET', `${url}/api/resource/gizmos.Part`, { headers: session });
    for (let reloads = 2; list.status === 404 && output.includes('(1 DocTypes)'); reloads++) {
      await outputLines(/apps reloaded in \d+ ms \(\d+ DocTypes\)/, reloads);
      list = await request(network, 'GET', `${url}/api/resource/gizmos.Part`, { headers: session });
    }
    // The session signed in before the reload still works: same process, same database.
    expect(list.status).toBe(200);
    expect(child!.pid).toBe(pid);
    expect(child!.exitCode).toBeNull();

    const created = await request(network, 'POST', `${url}/api/resource/gizmos.Part`, {
      headers: session,
      body: { code: 'P-1', quantity: 3 },
    });
    expect(created.status).toBe(201);
    const listed = await request(network, 'GET', `${url}/api/resource/gizmos.Part`, { headers: session });
    expect(((await listed.json()) as { data: Array<{ code: string }> }).data.map((r) => r.code)).toEqual([
      'P-1',
    ]);

    const meta = await request(network, 'GET', `${url}/api/meta/gizmos`, { headers: session });
    expect(meta.status).toBe(200);
    const doctypes = (
      (await meta.json()) as { doctypes: Array<{ name: string; fields: Array<{ name: string }> }> }
    ).doctypes;
    expect(doctypes.map((d) => d.name)).toEqual(['gizmos.Note', 'gizmos.Part']);
    expect(doctypes[1]!.fields.map((f) => f.name)).toEqual(['code', 'quantity']);
  });

  it('refuses a broken definition and keeps serving the apps it has', async () => {
    const reloadsBefore = (output.match(/apps reloaded in/g) ?? []).length;
    // A field named like a standard column is a startup error: the reload names it and changes nothing.
    edit('part.ts', 'quantity: z.number()', 'name: z.string().optional(),\n    quantity: z.number()');
    await outputLines(
      /the apps were not reloaded: DocType gizmos\.Part declares the reserved field "name"/,
      1,
    );
    expect((output.match(/apps reloaded in/g) ?? []).length).toBe(reloadsBefore);
    const list = await request(network, 'GET', `${url}/api/resource/gizmos.Part`, { headers: session });
    expect(list.status).toBe(200);
  });
});
