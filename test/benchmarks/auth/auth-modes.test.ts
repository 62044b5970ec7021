import { afterEach, describe, expect, it } from 'vitest';
import { VirtualUser } from '../../../src/benchmarks/engine/virtual-user';
import { type FakePlatform, startFakePlatform } from '../helpers/fake-platform';
import { planFrom, runtimeFor } from '../helpers/runtime';

/** `${NAME}` as the YAML writes an environment reference. */
const ref = (name: string) => `\${${name}}`;

let server: FakePlatform | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await server?.close();
  server = undefined;
});

const env = { LOAD_PASSWORD: 'secret', LOAD_KEY: 'k-123', LOAD_TOKEN: 't-456' };

async function setup(auth: string, extraTargets = '', files: Record<string, string> = {}) {
  server = await startFakePlatform({ requireAuth: true });
  const plan = planFrom(
    `target_url: ${server.url}
auth: ${auth}
targets:
  - type: rpc
    name: count
    method: crm.api.customer_count
  - type: endpoint
    name: list
    method: GET
    path: /api/resource/crm.Lead
${extraTargets}`,
    env,
    files,
  );
  const r = await runtimeFor(plan);
  closers.push(r.close);
  return { ...r, plan };
}

const dataRequests = () =>
  server!.received.filter((r) => r.path.startsWith('/api/method/crm') || r.path.startsWith('/api/resource'));

describe('auth modes', () => {
  it('session: logs in once with usr/pwd, sends the cookie, and the CSRF token only on unsafe requests', async () => {
    const { rt, runners } = await setup(
      `{ mode: session, username: Administrator, password: "${ref('LOAD_PASSWORD')}" }`,
    );
    const user = new VirtualUser(0, rt);
    await user.prepare();
    expect((await runners[0]!.iterate(user)).status).toBe(200);
    expect((await runners[1]!.iterate(user)).status).toBe(200);
    const logins = server!.received.filter((r) => r.path === '/api/method/login');
    expect(logins).toHaveLength(1);
    expect(JSON.parse(logins[0]!.body)).toEqual({ usr: 'Administrator', pwd: 'secret' });
    const [rpc, list] = dataRequests();
    expect(rpc!.headers.cookie).toBe('sid=s1');
    expect(rpc!.headers['x-csrf-token']).toBe('csrf-1');
    expect(list!.headers.cookie).toBe('sid=s1');
    expect(list!.headers['x-csrf-token']).toBeUndefined();
  });

  it('session: logs in again after a 401 and retries the request once', async () => {
    const { rt, runners } = await setup(
      `{ mode: session, username: Administrator, password: "${ref('LOAD_PASSWORD')}" }`,
    );
    const user = new VirtualUser(0, rt);
    await user.prepare();
    server!.expireSessions();
    const res = await runners[0]!.iterate(user);
    expect(res.status).toBe(200);
    expect(server!.received.filter((r) => r.path === '/api/method/login')).toHaveLength(2);
    const rpcs = dataRequests();
    expect(rpcs.map((r) => r.headers.cookie)).toEqual(['sid=s1', 'sid=s2']);
    expect(rpcs[1]!.headers['x-csrf-token']).toBe('csrf-2');
  });

  it('session: a refused login fails the request with login_failed', async () => {
    const { rt, runners } = await setup(
      `{ mode: session, username: Administrator, password: "${ref('LOAD_KEY')}" }`,
    );
    await expect(runners[0]!.iterate(new VirtualUser(0, rt))).rejects.toMatchObject({ code: 'login_failed' });
    expect(dataRequests()).toHaveLength(0);
  });

  it('api_key: sends the key in the configured header, no login, no CSRF token', async () => {
    const { rt, runners } = await setup(
      `{ mode: api_key, header_name: X-Api-Key, key: "${ref('LOAD_KEY')}" }`,
    );
    await runners[0]!.iterate(new VirtualUser(0, rt));
    expect(dataRequests()[0]!.headers['x-api-key']).toBe('k-123');
    expect(dataRequests()[0]!.headers['x-csrf-token']).toBeUndefined();
    expect(server!.received.some((r) => r.path === '/api/method/login')).toBe(false);
  });

  it('bearer: sends Authorization: Bearer <token>', async () => {
    const { rt, runners } = await setup(`{ mode: bearer, token: "${ref('LOAD_TOKEN')}" }`);
    await runners[0]!.iterate(new VirtualUser(0, rt));
    expect(dataRequests()[0]!.headers.authorization).toBe('Bearer t-456');
  });

  it('none: sends no credentials, and a 401 is final', async () => {
    const { rt, runners } = await setup('{ mode: none }');
    const res = await runners[0]!.iterate(new VirtualUser(0, rt));
    expect(res.status).toBe(401);
    expect(dataRequests()).toHaveLength(1);
    expect(dataRequests()[0]!.headers.authorization).toBeUndefined();
    expect(dataRequests()[0]!.headers.cookie).toBeUndefined();
  });

  it('custom: calls the factory once per user and sends its headers', async () => {
    const { rt, runners } = await setup('{ mode: custom, factory: ./auth.ts#sign }', '', {
      'auth.ts':
        "export function sign(ctx: { user: number }) { return { Authorization: 'token user-' + ctx.user }; }\n",
    });
    const u3 = new VirtualUser(3, rt);
    await runners[0]!.iterate(u3);
    await runners[1]!.iterate(u3);
    await runners[0]!.iterate(new VirtualUser(4, rt));
    expect(dataRequests().map((r) => r.headers.authorization)).toEqual([
      'token user-3',
      'token user-3',
      'token user-4',
    ]);
  });

  it('a scenario auth override replaces the default for that scenario only', async () => {
    const { rt, runners } = await setup(
      `{ mode: bearer, token: "${ref('LOAD_TOKEN')}" }`,
      `  - type: rpc
    name: keyed
    method: crm.api.ping
    auth: { mode: api_key, header_name: X-Api-Key, key: "\${LOAD_KEY}" }
`,
    );
    const user = new VirtualUser(0, rt);
    await runners[0]!.iterate(user);
    await runners[2]!.iterate(user);
    const [a, b] = dataRequests();
    expect([a!.headers.authorization, a!.headers['x-api-key']]).toEqual(['Bearer t-456', undefined]);
    expect([b!.headers.authorization, b!.headers['x-api-key']]).toEqual([undefined, 'k-123']);
  });
});
