import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../backend/config/load-config';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { ROOT_DIR } from '../../../backend/roots/context';
import { createGateway, type Gateway } from '../../../backend/roots/gateway';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import type { DiscoveryResult } from '../../../src/protocol';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';

const SECRET = 'service-process-test-secret-0123456789abcdef';

let nats: NatsServerHandle;
let dir: string;
let configFile: string;
let gateway: Gateway;
let gatewayDb: Database;
const children = new Set<ChildProcess>();

/** `node bin/m.js serve --mode macroservice --app <app>` as a real child process. */
function spawnService(app: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [join(ROOT_DIR, 'bin', 'm.js'), 'serve', '--config', configFile, '--mode', 'macroservice', '--app', app],
    {
      cwd: ROOT_DIR,
      env: { ...process.env, PLATFORM_INTERNAL_SECRET: SECRET, PLATFORM_NATS_URL: nats.url },
      stdio: 'ignore',
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function owner(doctype: string): Promise<string | null | undefined> {
  const res = await gateway.app.fetch(
    new Request('http://gateway.test/api/gateway/discovery/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: [doctype] }),
    }),
  );
  return ((await res.json()) as DiscoveryResult).resources[doctype];
}

beforeAll(async () => {
  nats = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), 'desk-service-process-'));
  configFile = join(dir, 'platform.toml');
  writeFileSync(
    configFile,
    [
      '[tool.platform]',
      'mode = "macroservice"',
      '[tool.platform.server]',
      'port = 0',
      `data_dir = ${JSON.stringify(join(dir, 'data'))}`,
      '[tool.platform.security.payload_encryption]',
      'mode = "disabled"',
      '[tool.platform.nats]',
      'ttl_seconds = 3',
      'heartbeat_seconds = 1',
      '',
    ].join('\n'),
  );
  const config = loadConfig({ file: configFile, env: {}, overrides: { 'nats.url': nats.url } });
  gatewayDb = await openDatabase({ memory: true });
  gateway = await createGateway(config, {
    secret: SECRET,
    log: () => {},
    context: {
      database: gatewayDb,
      keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }),
    },
  });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await gateway?.close();
  await gatewayDb?.close();
  await nats?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a service process', () => {
  it('is discoverable once started, gone after the TTL when SIGKILLed, and back when restarted', async () => {
    const first = spawnService('crm');
    await waitUntil(async () => (await owner('crm.Customer')) === 'crm', 60_000, 'crm to be discovered');
    const rev = gateway.directory.get('crm')!.rev;

    // SIGKILL: no clean shutdown, the key stays in the bucket; only the missing heartbeat removes it.
    first.kill('SIGKILL');
    await waitUntil(() => first.exitCode !== null || first.signalCode !== null);
    await waitUntil(async () => (await owner('crm.Customer')) === null, 15_000, 'crm to expire');

    spawnService('crm');
    await waitUntil(async () => (await owner('crm.Customer')) === 'crm', 60_000, 'crm to come back');
    // It listens on another port: a changed manifest, so clients see a higher rev.
    expect(gateway.directory.get('crm')!.rev).toBeGreaterThan(rev);
  }, 150_000);
});
