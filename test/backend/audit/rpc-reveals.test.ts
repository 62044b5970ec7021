/**
 * App code reads its records decrypted (it is trusted service code), but a decryption during a call by a
 * person or API key is a reveal on their behalf: every flagged value an RPC method reads through
 * `records.get` adds an audit entry naming the method's route and the caller
 * (docs/permissions.md#reveals-are-audited). Served by the real app over an app folder made with the app API.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../backend/audit/chain';
import { PII_MASK } from '../../../src/protocol';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

function makeAppFolder(): string {
  return appFolder(
    'clinic',
    'defineApp, defineDocType, defineRpcMethod, z',
    `export const Patient = defineDocType({
  name: 'clinic.Patient', label: 'Patient', titleField: 'full_name',
  model: z.object({
    full_name: z.string().min(1),
    ssn: z.string().meta({ pii: true }).optional(),
    notes: z.string().meta({ encrypted: true }).optional(),
    ward: z.string().optional(),
  }),
});
const roles = ['Nurse'];
const patient = defineRpcMethod({ description: 'A patient', roles, kwargs: z.object({ name: z.string() }),
  handler: async ({ records, kwargs }) => (await records.get(Patient.name, kwargs.name)) ?? null });
const ward = defineRpcMethod({ description: 'A ward', roles, kwargs: z.object({ name: z.string() }),
  handler: async ({ records, kwargs }) => (await records.get(Patient.name, kwargs.name))?.ward ?? null });
export default defineApp({
  name: 'clinic', label: 'Clinic', doctypes: [Patient],
  methods: { 'clinic.api.patient': patient, 'clinic.api.ward': ward },
  permissions: { [Patient.name]: [{ role: 'Nurse', read: true }, { role: 'Ward Clerk', read: true, write: true }] },
});
`,
  );
}

let dir: string;
let t: TestApp;
let nurse: string;
let flagged: string;
let plain: string;

async function allEntries(): Promise<AuditEntry[]> {
  return (await t.ctx.audit!.list({ limit: 1000 })).data;
}

async function patient(body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', '/api/resource/clinic.Patient', { body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { name: string } }).data.name;
}

const call = (method: string, name: string) =>
  t.request('POST', `/api/method/clinic.api.${method}`, {
    body: { name },
    headers: { authorization: nurse },
  });

beforeAll(async () => {
  dir = makeAppFolder();
  t = await createTestApp({ config: { apps: ['crm', dir] } });
  nurse = await userWithRoles(t.ctx, 'rpc-nurse', ['Nurse']);
  flagged = await patient({ full_name: 'Ada', ssn: '123-45-6789', notes: 'allergic', ward: 'B' });
  plain = await patient({ full_name: 'Bob', ward: 'C' });
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('records.get in an RPC method', () => {
  let before: number;
  beforeEach(async () => {
    before = (await allEntries()).length;
  });

  it('audits the flagged values it read for the caller, naming the method', async () => {
    const res = await call('patient', flagged);
    expect(res.status).toBe(200);
    // App code is trusted: it got the values, and this method hands them on.
    expect(((await res.json()) as { message: Record<string, unknown> }).message).toMatchObject({
      ssn: '123-45-6789',
      notes: 'allergic',
    });
    const added = (await allEntries()).slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      user: 'rpc-nurse',
      via: 'api_key',
      doctype: 'clinic.Patient',
      record: flagged,
      fields: ['ssn', 'notes'],
      route: 'POST /api/method/clinic.api.patient',
    });
    expect(JSON.stringify(added)).not.toContain('123-45-6789');
  });

  it('gives the entry the client address a data route would', async () => {
    expect((await call('ward', flagged)).status).toBe(200);
    expect((await t.request('GET', `/api/resource/clinic.Patient/${flagged}`)).status).toBe(200);
    const [fromMethod, fromRoute] = (await allEntries()).slice(before);
    expect(fromMethod).toMatchObject({ route: 'POST /api/method/clinic.api.ward', fields: ['ssn', 'notes'] });
    expect(fromRoute).toMatchObject({ route: 'get' });
    expect(fromMethod!.client_address).toBe(fromRoute!.client_address);
  });

  it('adds nothing for a record without a flagged value, or no record', async () => {
    expect((await call('patient', plain)).status).toBe(200);
    expect((await call('patient', 'PAT-99999')).status).toBe(200);
    expect((await allEntries()).length).toBe(before);
  });
});

describe('an RPC answer kept for an Idempotency-Key', () => {
  /** A user of their own with the Nurse role, and a call of `clinic.api.patient` under `key`. */
  async function nurseCalling(user: string) {
    const authorization = await userWithRoles(t.ctx, user, ['Nurse']);
    const send = (key: string) =>
      t.request('POST', '/api/method/clinic.api.patient', {
        body: { name: flagged },
        headers: { authorization, 'idempotency-key': key },
      });
    return send;
  }

  it('is replayed to the same caller with the same rights', async () => {
    const send = await nurseCalling('rpc-replay-same');
    const first = await send('same-1');
    expect(first.status).toBe(200);
    const again = await send('same-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
  });

  it('is not replayed once the caller has other roles: 422 idempotency_key_reused, no value', async () => {
    const send = await nurseCalling('rpc-replay-roles');
    expect((await send('roles-1')).status).toBe(200);
    await t.ctx.security.users.setRoles('rpc-replay-roles', ['Nurse', 'Porter']);
    const refused = await send('roles-1');
    expect(refused.status).toBe(422);
    const text = await refused.text();
    expect(JSON.parse(text).error.code).toBe('idempotency_key_reused');
    expect(text).not.toContain('123-45-6789');
  });

  it('is not replayed to a revoked API key: 401, no value', async () => {
    const send = await nurseCalling('rpc-replay-revoked');
    expect((await send('revoked-1')).status).toBe(200);
    await t.ctx.security.users.disableUser('rpc-replay-revoked');
    const refused = await send('revoked-1');
    expect(refused.status).toBe(401);
    const text = await refused.text();
    expect(JSON.parse(text).error.code).toBe('unauthorized');
    expect(text).not.toContain('123-45-6789');
  });
});

describe('an encrypted field, not pii, to a reader without read_pii', () => {
  it('is masked and named in masked_fields, adding no audit entry, and the mask is never saved into it', async () => {
    const clerk = await userWithRoles(t.ctx, 'ward-clerk', ['Ward Clerk']);
    const before = (await allEntries()).length;
    const read = await t.request('GET', `/api/resource/clinic.Patient/${flagged}`, {
      headers: { authorization: clerk },
    });
    const body = (await read.json()) as { data: Record<string, unknown>; masked_fields: string[] };
    expect(body.data).toMatchObject({ notes: PII_MASK, ssn: PII_MASK, ward: 'B' });
    expect(body.masked_fields).toEqual(expect.arrayContaining(['notes', 'ssn']));
    const list = await t.request('GET', '/api/resource/clinic.Patient?fields=["name","notes"]', {
      headers: { authorization: clerk },
    });
    expect(await list.text()).not.toContain('allergic');
    expect((await allEntries()).length).toBe(before);

    const echoed = await t.request('PUT', `/api/resource/clinic.Patient/${flagged}`, {
      headers: { authorization: clerk },
      body: { notes: PII_MASK },
    });
    expect(echoed.status).toBe(422);
    expect(((await echoed.json()) as { error: { code: string } }).error.code).toBe('masked_value');
    const stored = await t.request('GET', `/api/resource/clinic.Patient/${flagged}`);
    expect(((await stored.json()) as { data: { notes: string } }).data.notes).toBe('allergic');
  });
});
