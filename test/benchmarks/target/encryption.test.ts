import { compactDecrypt, decodeProtectedHeader } from 'jose';
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

async function setup(mode: 'metadata' | 'strict' | 'selective' | 'disabled', auth = '{ mode: none }') {
  server = await startFakePlatform({ mode });
  const plan = planFrom(
    `target_url: ${server.url}
auth: ${auth}
targets:
  - { type: doctype, name: crm.Customer, mix: { create: 1 } }
  - { type: doctype, name: crm.Lead, mix: { create: 1 } }
  - { type: rpc, name: count, method: crm.api.customer_count }
`,
    { LOAD_PASSWORD: 'secret' },
  );
  const r = await runtimeFor(plan);
  closers.push(r.close);
  return { ...r, user: new VirtualUser(0, r.rt) };
}

async function decrypt(body: string) {
  const { plaintext } = await compactDecrypt(body, server!.privateKey);
  return JSON.parse(new TextDecoder().decode(plaintext));
}

const last = (path: string) => server!.received.filter((r) => r.path === path).at(-1)!;

describe('payload encryption through the SDK', () => {
  it('metadata mode: encrypts creates of DocTypes with pii fields, bound to method and path; others stay JSON', async () => {
    const { runners, user } = await setup('metadata');
    await runners[0]!.iterate(user);
    await runners[1]!.iterate(user);
    await runners[2]!.iterate(user);
    const customer = last('/api/resource/crm.Customer');
    expect(customer.headers['content-type']).toBe('application/jose');
    expect(decodeProtectedHeader(customer.body)).toMatchObject({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid: 'k1',
      htm: 'POST',
      htu: '/api/resource/crm.Customer',
    });
    expect(Object.keys(await decrypt(customer.body)).sort()).toEqual([
      'customer_name',
      'email',
      'phone',
      'status',
    ]);
    expect(last('/api/resource/crm.Lead').headers['content-type']).toBe('application/json');
    expect(last('/api/method/crm.api.customer_count').headers['content-type']).toBe('application/json');
  });

  it('strict mode: encrypts every mutating body, RPC included', async () => {
    const { runners, user } = await setup('strict');
    await runners[1]!.iterate(user);
    await runners[2]!.iterate(user);
    expect(last('/api/resource/crm.Lead').headers['content-type']).toBe('application/jose');
    const rpc = last('/api/method/crm.api.customer_count');
    expect(rpc.headers['content-type']).toBe('application/jose');
    expect(await decrypt(rpc.body)).toEqual({});
  });

  it('selective mode: encrypts the session login (a configured route) and nothing else', async () => {
    const { runners, user } = await setup(
      'selective',
      `{ mode: session, username: Administrator, password: "${ref('LOAD_PASSWORD')}" }`,
    );
    await user.prepare();
    await runners[0]!.iterate(user);
    const login = last('/api/method/login');
    expect(login.headers['content-type']).toBe('application/jose');
    expect(await decrypt(login.body)).toEqual({ usr: 'Administrator', pwd: 'secret' });
    expect(last('/api/resource/crm.Customer').headers['content-type']).toBe('application/json');
  });

  it('a target without the security endpoint gets plain JSON and no JWKS request', async () => {
    server = await startFakePlatform();
    const plan = planFrom(
      `target_url: ${server.url}\nauth: { mode: none }\ntargets: [{ type: doctype, name: crm.Customer, mix: { create: 1 } }]\n`,
    );
    const r = await runtimeFor(plan);
    closers.push(r.close);
    await r.runners[0]!.iterate(new VirtualUser(0, r.rt));
    expect(last('/api/resource/crm.Customer').headers['content-type']).toBe('application/json');
    expect(server.received.some((x) => x.path === '/api/v1/security/jwks')).toBe(false);
  });
});
