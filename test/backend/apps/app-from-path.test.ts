/**
 * An app installed from a folder outside backend/apps: its app module is loaded, its DocTypes and RPC
 * methods are served, discovery names its remote, and the Desk serves the remote from the folder's
 * `static/mfe/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppPath, loadInstalledApps } from '../../../backend/apps/index';
import { loadConfig } from '../../../backend/config/load-config';
import { createTestApp, type TestApp } from '../../helpers/test-app';

const appApi = join(import.meta.dirname, '..', '..', '..', 'src', 'app', 'index.ts');

function makeAppFolder(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `desk-app-${name}-`));
  writeFileSync(
    join(dir, 'app.ts'),
    `import { defineApp, defineDocType, defineRpcMethod, z } from ${JSON.stringify(appApi)};
export const Memo = defineDocType({
  name: '${name}.Memo', label: 'Memo', titleField: 'title',
  model: z.object({ title: z.string().min(1).meta({ inList: true }), email: z.email().meta({ pii: true }).optional() }),
});
const echo = defineRpcMethod({ description: 'Echo', kwargs: z.object({ text: z.string() }), handler: ({ kwargs }) => kwargs.text });
export default defineApp({ name: '${name}', label: 'Memos', doctypes: [Memo], methods: { '${name}.api.echo': echo } });
`,
  );
  mkdirSync(join(dir, 'static', 'mfe'), { recursive: true });
  writeFileSync(join(dir, 'static', 'mfe', 'remoteEntry.js'), 'window.memos = {};\n');
  return dir;
}

describe('an app from a path', () => {
  let dir: string;
  let t: TestApp;

  beforeAll(async () => {
    dir = makeAppFolder('memos');
    t = await createTestApp({ config: { apps: ['crm', dir] } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells paths from built-in names', () => {
    expect(['./x', '../x', '/abs/x', '~/x', 'a/b'].every(isAppPath)).toBe(true);
    expect(['crm', 'stock_2'].some(isAppPath)).toBe(false);
  });

  it('is accepted by tool.platform.apps next to built-in names', () => {
    const config = loadConfig({ env: { PLATFORM_APPS: `crm,${dir}` } });
    expect(config.apps).toEqual(['crm', dir]);
    expect(() => loadConfig({ env: {}, overrides: { apps: ['Not An App'] } })).toThrow(/app name or a path/);
  });

  it('installs its DocTypes and RPC methods with the built-in apps', async () => {
    const created = await t.request('POST', '/api/resource/memos.Memo', { body: { title: 'Hello' } });
    expect(created.status).toBe(201);
    const echo = await t.request('POST', '/api/method/memos.api.echo', { body: { text: 'hi' } });
    expect(await echo.json()).toEqual({ message: 'hi' });
    const meta = (await (await t.request('GET', '/api/meta/memos')).json()) as {
      doctypes: Array<{ name: string; fields: Array<{ name: string; pii?: boolean }> }>;
    };
    expect(meta.doctypes[0]?.fields.find((f) => f.name === 'email')?.pii).toBe(true);
  });

  it("is discovered with its remote, served from the folder's static/mfe", async () => {
    const remotes = (await (await t.request('GET', '/api/gateway/remotes')).json()) as Record<
      string,
      { url: string }
    >;
    expect(remotes.memos?.url).toBe('http://desk.test/desk/assets/memos/remoteEntry.js');
    const entry = await t.request('GET', '/desk/assets/memos/remoteEntry.js');
    expect(entry.status).toBe(200);
    expect(await entry.text()).toBe('window.memos = {};\n');
  });

  it('refuses a missing folder, a folder without an app module and a name clash', async () => {
    await expect(loadInstalledApps(['./no-such-app-folder'])).rejects.toThrow(/does not exist/);
    const empty = mkdtempSync(join(tmpdir(), 'desk-app-empty-'));
    try {
      await expect(loadInstalledApps([empty])).rejects.toThrow(/has no app module/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const clash = makeAppFolder('crm');
    try {
      await expect(loadInstalledApps(['crm', clash])).rejects.toThrow(/two installed apps are named "crm"/);
    } finally {
      rmSync(clash, { recursive: true, force: true });
    }
  });
});
