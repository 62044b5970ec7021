/**
 * `m types` against a real gateway over HTTP (crm and stock with remotes, support data-only): the output
 * names every DocType's fields with their types, each RPC method's kwargs and return type and the modules the
 * remotes expose, and type-checks.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningServer, startServer } from '../../../backend/server';
import { typesCommand } from '../../../src/cli/commands/types';
import { apiKeyAuthorization } from '../../helpers/auth';
import { createTestApp, makeAppsFixture, type TestApp } from '../../helpers/test-app';

const root = join(import.meta.dirname, '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('m types', () => {
  let t: TestApp;
  let server: RunningServer;
  let dir: string;
  let apiKey: string;

  beforeAll(async () => {
    const port = await freePort();
    // crm's remote publishes the mf-manifest.json its build writes (the modules of its exposes.json); stock's
    // publishes none, so it has no module declarations.
    const appsDir = makeAppsFixture({ crm: true, stock: true });
    const exposes = JSON.parse(readFileSync(join(root, 'backend/apps/crm/ui/exposes.json'), 'utf8'));
    writeFileSync(
      join(appsDir, 'crm', 'static', 'mfe', 'mf-manifest.json'),
      JSON.stringify({
        id: 'crm',
        name: 'crm',
        metaData: { name: 'crm', globalName: 'crm', remoteEntry: { name: 'remoteEntry.js', path: '' } },
        shared: [{ id: 'crm:react', name: 'react', version: '19.0.0', singleton: true }],
        remotes: [],
        exposes: Object.keys(exposes).map((path) => ({
          id: `crm:${path.slice(2)}`,
          name: path.slice(2),
          path,
        })),
      }),
    );
    t = await createTestApp({
      appsDir,
      config: { apps: ['crm', 'stock', 'support'], 'server.public_url': `http://127.0.0.1:${port}` },
    });
    server = await startServer(t.app, { host: '127.0.0.1', port });
    apiKey = (await apiKeyAuthorization(t.ctx)).replace(/^token /, '');
    dir = mkdtempSync(join(tmpdir(), 'desk-types-'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the DocTypes, the RPC kwargs and return types and the remotes' modules, and they type-check", async () => {
    vi.stubEnv('PLATFORM_API_KEY', apiKey);
    const out = join(dir, 'desk-types.d.ts');
    vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await typesCommand.run(['--gateway', server.url, '--out', out])).toBe(0);
    const text = readFileSync(out, 'utf8');

    expect(text).toContain('export interface CrmCustomer {\n  name: string;');
    expect(text).toMatch(/customer_name: string;/);
    expect(text).toContain(
      '/** Email; personal data (pii): encrypted in the browser and at rest; "••••••" for a reader without ' +
        'read_pii; filtered with =, != or in only */\n  email?: string;',
    );
    expect(text).toMatch(/status\?: "Active" \| "Inactive" \| "Prospect";/);
    expect(text).toMatch(/export interface StockItem \{[^}]*quantity\?: number;/);
    expect(text).toContain('"support.Ticket": { record: SupportTicket;');
    expect(text).toMatch(
      /"crm\.api\.customer_count": \{ kwargs: \{\n {4}status\?: "Active" \| "Inactive" \| "Prospect";\n {2}\}; returns: number \};/,
    );
    expect(text).toContain('"crm.api.ping": { kwargs: Record<string, never>; returns: "pong" };');
    expect(text).toContain('"support.api.open_count": { kwargs: Record<string, never>; returns: number };');
    expect(text.startsWith('/// <reference path="./desk-types.remotes.d.ts" />\n')).toBe(true);
    expect(text).toContain(`"crm/views": { default: import('@framework-m/desk/remote').RemoteViews };`);
    expect(text).toContain(`\`./views\` of ${server.url}/desk/assets/crm/mf-manifest.json`);
    const remotes = readFileSync(join(dir, 'desk-types.remotes.d.ts'), 'utf8');
    expect(remotes).toContain('declare module "crm/views" {');
    expect(remotes).toMatch(/declare module "crm\/Widget" \{\n.*\n {2}const exposed: unknown;/);
    expect(remotes).not.toMatch(/"stock\/|"support\//);

    // The consumer resolves the platform's package as a team's project does, from its node_modules.
    const scope = join(dir, 'node_modules', '@framework-m');
    mkdirSync(scope, { recursive: true });
    if (!existsSync(join(scope, 'desk'))) symlinkSync(root, join(scope, 'desk'), 'dir');
    const consumer = join(dir, 'use.ts');
    writeFileSync(
      consumer,
      `import type { CrmCustomer, CrmCustomerCreate, DocTypes, RemoteModules, RpcMethods } from './desk-types';
const c: CrmCustomer = { name: 'CUST-1', customer_name: 'Ada', status: 'Active' };
const body: CrmCustomerCreate = { customer_name: 'Ada', email: 'ada@example.com' };
const k: RpcMethods['crm.api.customer_count']['kwargs'] = { status: 'Inactive' };
const count: RpcMethods['crm.api.customer_count']['returns'] = 3;
// @ts-expect-error the count is a number
const notCount: RpcMethods['crm.api.customer_count']['returns'] = 'three';
// @ts-expect-error quantity is a number
const bad: DocTypes['stock.Item']['create'] = { item_code: 'A', item_name: 'B', quantity: 'seven', price: 1 };
declare function loadRemote<K extends keyof RemoteModules>(id: K): Promise<RemoteModules[K] | null>;
async function widgets() {
  const views = await import('crm/views');
  const loaded = await loadRemote('crm/views');
  // @ts-expect-error the views are the remote contract, not a string
  const wrong: string = views.default;
  return [...(views.default.widgets ?? []), ...(loaded?.default.widgets ?? [])].map((w) => w.title);
}
export { bad, body, c, count, k, notCount, widgets };
`,
    );
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--types',
        '',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--jsx',
        'react-jsx',
        consumer,
      ],
      { cwd: dir, stdio: 'pipe' },
    );
  });

  it('refuses a wrong password with sign_in_failed and an unreachable gateway', async () => {
    vi.stubEnv('PLATFORM_API_KEY', '');
    vi.stubEnv('TYPES_TEST_PASSWORD', 'not-the-password');
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => errors.push(line));
    expect(
      await typesCommand.run([
        '--gateway',
        server.url,
        '--password-env',
        'TYPES_TEST_PASSWORD',
        '--out',
        '-',
      ]),
    ).toBe(1);
    expect(errors.join('\n')).toContain('sign_in_failed');
    vi.stubEnv('PLATFORM_API_KEY', apiKey);
    expect(await typesCommand.run(['--gateway', 'http://127.0.0.1:9', '--out', '-'])).toBe(1);
    expect(errors.join('\n')).toContain('gateway_unreachable');
  });
});
