import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fetcher, request } from '../helpers/http';

const ROOT = join(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'desk-release-cli-'));
const children = new Set<ChildProcess>();
const network: Fetcher = { fetch: (req) => fetch(req) };
const PASSWORD = 'release-test-password';

let url = '';
let apiKey = '';

/** Runs `m <args>` to completion; resolves to its exit code and output. */
function m(
  args: string[],
  env: Record<string, string> = {},
  cwd = ROOT,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'm.js'), ...args], {
    cwd,
    env: { ...process.env, PLATFORM_URL: url, PLATFORM_API_KEY: apiKey, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

/** An app folder named crm: package.json at `version`, an app module, and a built remote. */
function appFolder(name: string, version: string, entry: string, appModule?: string): string {
  const dir = join(temp, name);
  mkdirSync(join(dir, 'static', 'mfe'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `crm-${name}`, version, type: 'module' }));
  const crm = join(ROOT, 'backend', 'apps', 'crm', 'app.ts');
  writeFileSync(
    join(dir, 'app.ts'),
    appModule ?? `export { crmApp as default } from ${JSON.stringify(crm)};\n`,
  );
  writeFileSync(join(dir, 'static', 'mfe', 'remoteEntry.js'), entry);
  writeFileSync(join(dir, 'static', 'mfe', 'chunk.0a1b2c3d.js'), `/* ${name} */\n`);
  // Larger than the server's 1 MiB body limit: uploaded in parts.
  writeFileSync(join(dir, 'static', 'mfe', 'vendor.0e1f2a3b.js'), `/* ${name} */ ${'x'.repeat(1_500_000)}\n`);
  return dir;
}

/** The crm remote discovery hands out; undefined before any release when this checkout has no crm build. */
async function crmRemoteUrl(): Promise<string | undefined> {
  const remotes = (await (await request(network, 'GET', `${url}/api/gateway/remotes`)).json()) as Record<
    string,
    { url: string }
  >;
  return remotes.crm?.url;
}

function publishedVersion(out: string): string {
  const match = /published crm (\S+) /.exec(out);
  if (!match) throw new Error(`no version in: ${out}`);
  return match[1]!;
}

beforeAll(async () => {
  const server = spawn(
    process.execPath,
    ['bin/m.js', 'serve', '--port', '0', '--data-dir', join(temp, 'data')],
    {
      cwd: ROOT,
      env: { ...process.env, PLATFORM_ADMIN_PASSWORD: PASSWORD, PORT: '', HOST: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(server);
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Desk: (http:\/\/\S+)\/desk\//.exec(out);
      if (match) resolve(match[1]!);
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.once('exit', (code) => reject(new Error(`m serve exited with ${code}:\n${out}`)));
  });
  const login = await request(network, 'POST', `${url}/api/method/login`, {
    body: { usr: 'Administrator', pwd: PASSWORD },
    headers: { origin: url },
  });
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  const key = await request(network, 'POST', `${url}/api/method/platform.auth.generate_api_key`, {
    body: {},
    headers: {
      cookie: login.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': csrf_token,
      origin: url,
    },
  });
  const { message } = (await key.json()) as { message: { api_key: string; api_secret: string } };
  apiKey = `${message.api_key}:${message.api_secret}`;
}, 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

describe('m release against a running m serve', () => {
  let v1 = '';
  let v2 = '';

  it('publishes, promotes and rolls back, and an open tab keeps loading the release it started with', async () => {
    // Before any release: crm's own build from static/mfe, or nothing on a fresh clone that has not built it.
    const before = await crmRemoteUrl();
    expect([undefined, `${url}/desk/assets/crm/remoteEntry.js`]).toContain(before);

    const folder = appFolder('one', '1.0.0', 'window.release = 1;\n');
    const first = await m(['release', 'publish', '--dir', folder]);
    expect(first.code, first.err).toBe(0);
    v1 = publishedVersion(first.out);
    expect(v1).toMatch(/^1\.0\.0\+[0-9a-f]{12}$/);
    // From inside the app folder, the same build again is the same release.
    const again = await m(['release', 'publish'], {}, folder);
    expect(again.code, again.err).toBe(0);
    expect(publishedVersion(again.out)).toBe(v1);
    // Published is not live: discovery still hands out the static/mfe build.
    expect(await crmRemoteUrl()).toBe(before);

    const promoted = await m(['release', 'promote', 'crm', v1]);
    expect(promoted.code, promoted.err).toBe(0);
    expect(promoted.out).toContain(`crm: live ${v1}`);
    const v1Url = await crmRemoteUrl();
    expect(v1Url).toBe(`${url}/desk/assets/crm/${v1}/remoteEntry.js`);
    expect(await (await fetch(v1Url!)).text()).toBe('window.release = 1;\n');

    const second = await m([
      'release',
      'publish',
      '--dir',
      appFolder('two', '1.1.0', 'window.release = 2;\n'),
    ]);
    v2 = publishedVersion(second.out);
    expect((await m(['release', 'promote', 'crm', v2])).code).toBe(0);
    expect(await crmRemoteUrl()).toBe(`${url}/desk/assets/crm/${v2}/remoteEntry.js`);
    // A tab opened on release 1 still gets release 1's files.
    const old = await fetch(v1Url!);
    expect(old.status).toBe(200);
    expect(await old.text()).toBe('window.release = 1;\n');
    expect((await fetch(`${url}/desk/assets/crm/${v1}/chunk.0a1b2c3d.js`)).status).toBe(200);
    const vendor = await fetch(`${url}/desk/assets/crm/${v1}/vendor.0e1f2a3b.js`);
    expect((await vendor.text()).length).toBe('/* one */ '.length + 1_500_000 + 1);

    const rolled = await m(['release', 'rollback', 'crm']);
    expect(rolled.code, rolled.err).toBe(0);
    expect(rolled.out).toContain(`crm: live ${v1}`);
    expect(await crmRemoteUrl()).toBe(v1Url);

    const listed = await m(['release', 'list', 'crm']);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`${v1}`);
    expect(listed.out).toMatch(
      new RegExp(`Administrator\\trollback ${v1.replace('+', '\\+')} \\(was ${v2.replace('+', '\\+')}\\)`),
    );
  }, 120_000);

  it('sets a canary and a pin', async () => {
    const canary = await m(['release', 'canary', 'crm', v2, '--percent', '50']);
    expect(canary.code, canary.err).toBe(0);
    expect(canary.out).toContain(`canary ${v2} for 50% of users`);
    const pin = await m(['release', 'pin', 'crm', v2, '--user', 'support-agent']);
    expect(pin.code, pin.err).toBe(0);
    const rolePin = await m(['release', 'pin', 'crm', v1, '--role', 'Support Team']);
    expect(rolePin.code, rolePin.err).toBe(0);
    expect(rolePin.out).toContain(`crm: role Support Team pinned to ${v1}`);
    const json = JSON.parse((await m(['release', 'list', 'crm', '--json'])).out) as {
      channel: { canary: { version: string; percent: number } };
      pins: Array<{ kind: string; subject: string; version: string }>;
    };
    expect(json.channel.canary).toEqual({ version: v2, percent: 50 });
    expect(json.pins).toEqual([
      expect.objectContaining({ kind: 'user', subject: 'support-agent', version: v2 }),
      expect.objectContaining({ kind: 'role', subject: 'Support Team', version: v1 }),
    ]);
    const unpinned = await m(['release', 'pin', 'crm', 'none', '--user', 'support-agent']);
    expect(unpinned.code, unpinned.err).toBe(0);
    expect(unpinned.out).toContain('crm: pin of user support-agent removed');
    const after = JSON.parse((await m(['release', 'list', 'crm', '--json'])).out) as {
      pins: Array<{ kind: string }>;
    };
    expect(after.pins.map((p) => p.kind)).toEqual(['role']);
  }, 60_000);

  it('refuses a release built without a field the service requires, naming it, and promotes it with --force', async () => {
    const crm = JSON.stringify(join(ROOT, 'backend', 'apps', 'crm', 'app.ts'));
    const dropped = `import { crmApp } from ${crm};
export default {
  ...crmApp,
  doctypes: crmApp.doctypes.map((d) =>
    d.name === 'crm.Customer' ? { ...d, fields: d.fields.filter((f) => f.name !== 'customer_name') } : d,
  ),
};
`;
    const published = await m([
      'release',
      'publish',
      '--dir',
      appFolder('three', '2.0.0', 'window.release = 3;\n', dropped),
    ]);
    expect(published.code, published.err).toBe(0);
    const v3 = publishedVersion(published.out);
    const refused = await m(['release', 'promote', 'crm', v3]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('contract_incompatible');
    expect(refused.err).toContain('crm.Customer.customer_name: field_missing');
    expect(await crmRemoteUrl()).toContain(v1);

    const forced = await m(['release', 'promote', 'crm', v3, '--force']);
    expect(forced.code, forced.err).toBe(0);
    expect(await crmRemoteUrl()).toContain(v3);
    const listed = await m(['release', 'list', 'crm']);
    expect(listed.out).toContain(`promote ${v3} (was ${v1}) FORCED past the contract gate`);
  }, 60_000);

  it('refuses without an API key and on bad usage', async () => {
    expect((await m(['release', 'list', 'crm'], { PLATFORM_API_KEY: '' })).code).toBe(2);
    expect((await m(['release', 'canary', 'crm', v1])).code).toBe(2);
    expect((await m(['release', 'pin', 'crm', v1])).code).toBe(2);
  }, 60_000);
});
