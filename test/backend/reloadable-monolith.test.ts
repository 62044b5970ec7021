/**
 * The MONOLITH `m serve --watch` runs, over a real port and an in-memory database: a reload swaps the
 * installed apps on the same port (a new DocType's list answers, its records are stored); a request in
 * flight when the reload starts finishes on the apps it began with, and requests sent during the reload are
 * answered by the new ones; a definition the registries refuse changes nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../backend/config/load-config';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { ROOT_DIR } from '../../backend/roots/context';
import { type ReloadableMonolith, startReloadableMonolith } from '../../backend/roots/reloadable-monolith';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { defineApp, defineDocType, defineRpcMethod, z } from '../../src/app';
import type { InstalledApp } from '../../src/contract';
import { makeAppsFixture, makeDistFixture } from '../helpers/test-app';

/** Opened by the test's slow RPC call; the test lets it answer. */
let release: () => void = () => {};
let entered: () => void = () => {};

const Tool = defineDocType({
  name: 'tools.Tool',
  label: 'Tool',
  titleField: 'code',
  namePrefix: 'TOOL',
  model: z.object({ code: z.string().min(1).meta({ label: 'Code', inList: true }) }),
});

const Kit = defineDocType({
  name: 'tools.Kit',
  label: 'Kit',
  titleField: 'label',
  namePrefix: 'KIT',
  model: z.object({ label: z.string().min(1).meta({ label: 'Label', inList: true }) }),
});

const slow = defineRpcMethod({
  description: 'Answers once the test lets it.',
  roles: ['System Manager'],
  kwargs: z.object({}),
  handler: async () => {
    entered();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return 'finished';
  },
});

/** The app as first installed. */
const first = defineApp({
  name: 'tools',
  label: 'Tools',
  doctypes: [Tool],
  methods: { 'tools.api.slow': slow },
}) as InstalledApp;

/** The same app with the Kit DocType added. */
const withKit = defineApp({
  name: 'tools',
  label: 'Tools',
  doctypes: [Tool, Kit],
  methods: { 'tools.api.slow': slow },
}) as InstalledApp;

let database: Database;
let monolith: ReloadableMonolith;
let headers: Record<string, string>;
const apps = makeAppsFixture({});
const dist = makeDistFixture();

beforeAll(async () => {
  const config = loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      'security.payload_encryption.mode': 'disabled',
      'server.port': 0,
      'server.host': '127.0.0.1',
      apps: ['tools'],
    },
  });
  database = await openDatabase({ memory: true });
  monolith = await startReloadableMonolith(config, {
    log: () => {},
    database,
    appsDir: apps,
    distDir: dist,
    keys: await MemoryKeyStore.create({ graceMs: 60_000 }),
    apps: [first],
    env: { PLATFORM_ADMIN_PASSWORD: 'reload-test-password' },
  });
  const login = await fetch(`${monolith.url}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: monolith.url },
    body: JSON.stringify({ usr: 'Administrator', pwd: 'reload-test-password' }),
  });
  expect(login.status).toBe(200);
  const { csrf_token } = (await login.json()) as { csrf_token: string };
  headers = {
    'content-type': 'application/json',
    origin: monolith.url,
    cookie: login.headers.get('set-cookie')!.split(';')[0]!,
    'x-csrf-token': csrf_token,
  };
});

afterAll(async () => {
  await monolith?.close();
  await database?.close();
});

describe('startReloadableMonolith', () => {
  it('lets a request in flight finish, then serves the new DocType on the same port with the same session', async () => {
    const url = monolith.url;
    expect((await fetch(`${url}/api/resource/tools.Kit`, { headers })).status).toBe(404);

    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const inFlight = fetch(`${url}/api/method/tools.api.slow`, { method: 'POST', headers, body: '{}' });
    await inside;
    const reloaded = monolith.reload([withKit]);
    // Sent during the reload: answered by the new apps once they are up.
    const during = fetch(`${url}/api/resource/tools.Kit`, { headers });
    release();
    const slowAnswer = await inFlight;
    expect(slowAnswer.status).toBe(200);
    expect(await slowAnswer.json()).toEqual({ message: 'finished' });
    await reloaded;
    expect((await during).status).toBe(200);

    expect(monolith.url).toBe(url);
    const created = await fetch(`${url}/api/resource/tools.Kit`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ label: 'Starter kit' }),
    });
    expect(created.status).toBe(201);
    const listed = (await (await fetch(`${url}/api/resource/tools.Kit`, { headers })).json()) as {
      data: Array<{ label: string }>;
    };
    expect(listed.data.map((r) => r.label)).toEqual(['Starter kit']);
    expect(
      monolith
        .ctx()
        .doctypes.list()
        .map((d) => d.name),
    ).toEqual(['tools.Tool', 'tools.Kit']);
  });

  it('refuses apps the registries refuse, before anything stops', async () => {
    const twice = defineApp({
      name: 'tools',
      label: 'Tools',
      doctypes: [Tool, Tool],
      methods: {},
    }) as InstalledApp;
    await expect(monolith.reload([twice])).rejects.toThrow('DocType tools.Tool is declared twice');
    expect((await fetch(`${monolith.url}/api/resource/tools.Kit`, { headers })).status).toBe(200);
  });
});
