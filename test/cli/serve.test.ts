import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Fetcher, request } from '../helpers/http';

const ROOT = join(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'desk-serve-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

/** The real network, through the one test request function. */
const network: Fetcher = { fetch: (req) => fetch(req) };
const PASSWORD = 'serve-test-password';

interface Served {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Served & { started: Promise<string> } {
  const child = spawn(process.execPath, ['bin/m.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, PLATFORM_ADMIN_PASSWORD: PASSWORD, PORT: '', HOST: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Desk: (http:\/\/\S+)\/desk\//.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then((code) => reject(new Error(`m serve exited with ${code}:\n${out}`)));
  });
  return { url: '', child, output: () => out, exited, started };
}

async function serve(dataDir: string): Promise<Served> {
  const served = run(['serve', '--port', '0', '--data-dir', dataDir]);
  served.url = await served.started;
  return served;
}

async function login(url: string): Promise<Record<string, string>> {
  const res = await request(network, 'POST', `${url}/api/method/login`, {
    body: { usr: 'Administrator', pwd: PASSWORD },
    headers: { origin: url },
  });
  expect(res.status).toBe(200);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': csrf_token, origin: url };
}

describe('m serve', () => {
  it('serves the gateway and keeps a record across a restart, exiting 0 on SIGTERM', async () => {
    const dataDir = join(temp, 'data');
    const first = await serve(dataDir);
    const remotes = await request(network, 'GET', `${first.url}/api/gateway/remotes`);
    expect(remotes.status).toBe(200);
    const session = await login(first.url);
    const created = await request(network, 'POST', `${first.url}/api/resource/crm.Lead`, {
      body: { lead_name: 'Restart Survivor', source: 'Website' },
      headers: session,
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('stopped');

    const second = await serve(dataDir);
    const read = await request(network, 'GET', `${second.url}/api/resource/crm.Lead/${name}`, {
      headers: await login(second.url),
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { lead_name: string } }).data.lead_name).toBe('Restart Survivor');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('exits 78 naming the key for an invalid configuration', async () => {
    const file = join(temp, 'bad.toml');
    writeFileSync(file, '[tool.platform.server]\nport = "eighty"\n');
    const served = run(['serve', '--config', file, '--data-dir', join(temp, 'unused')]);
    served.started.catch(() => {});
    expect(await served.exited).toBe(78);
    expect(served.output()).toContain('tool.platform.server.port');
  });

  it('exits 2 on an unknown flag and 1 on an unknown app', async () => {
    const usage = run(['serve', '--prot', '1']);
    usage.started.catch(() => {});
    expect(await usage.exited).toBe(2);
    const unknown = run(['serve', '--port', '0', '--app', 'hr', '--data-dir', join(temp, 'unused')]);
    unknown.started.catch(() => {});
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toContain('unknown app');
  });
});
