import { afterEach, describe, expect, it } from 'vitest';
import { createEncryptionPolicy } from '../../../backend/security/encryption-policy';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, sdkJwe, sendJose } from './jwe-support';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const appIn = async (mode: string, extra: Record<string, unknown> = {}) => {
  t = await createTestApp({ config: { 'security.payload_encryption.mode': mode, ...extra } });
  return t;
};

describe('encryption modes (docs/security.md#the-server-enforces-the-mode)', () => {
  it('selective: plaintext login is 415 and no session is created; an encrypted login works', async () => {
    const app = await appIn('selective');
    const res = await app.request('POST', '/api/method/login', {
      body: { usr: 'Administrator', pwd: 'admin' },
      anonymous: true,
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('encryption_required');
    expect(res.headers.get('set-cookie')).toBeNull();
    const { rows } = await app.ctx.db.query('SELECT 1 FROM auth_sessions');
    expect(rows).toHaveLength(0);

    const jwe = await sdkJwe(app.ctx, 'POST', '/api/method/login', { usr: 'Administrator', pwd: 'admin' });
    const ok = await app.request('POST', '/api/method/login', {
      body: jwe,
      headers: { 'content-type': 'application/jose' },
      anonymous: true,
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { message: string }).message).toBe('Logged In');
  });

  it('selective: configured route globs are merged with the built-in ones', async () => {
    const app = await appIn('selective', { 'security.payload_encryption.routes': ['/api/resource/crm.*'] });
    const res = await app.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'Glob' } });
    expect(res.status).toBe(415);
    const plain = await app.request('POST', '/api/resource/stock.Item', { body: {} });
    expect(plain.status).not.toBe(415);
  });

  it('strict: every mutating plaintext body is 415, reads and discovery stay plaintext', async () => {
    const app = await appIn('strict');
    const before = await app.ctx.db.query('SELECT count(*)::int AS n FROM records');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await app.request(method, '/api/resource/crm.Lead', { body: { lead_name: 'Strict' } });
      expect(res.status).toBe(415);
    }
    expect(await app.ctx.db.query('SELECT count(*)::int AS n FROM records')).toEqual(before);
    expect((await app.request('GET', '/api/resource/crm.Lead')).status).toBe(200);
    const discovery = await app.request('POST', '/api/gateway/discovery/query', {
      body: { resources: ['crm.Lead'] },
    });
    expect(discovery.status).toBe(200);
    const jwe = await sdkJwe(app.ctx, 'POST', '/api/resource/crm.Lead', { lead_name: 'Encrypted' });
    expect((await sendJose(app, 'POST', '/api/resource/crm.Lead', jwe)).status).toBeLessThan(300);
  });

  it('disabled: an application/jose body is 415 encryption_disabled', async () => {
    const app = await appIn('strict');
    const jwe = await sdkJwe(app.ctx, 'POST', '/api/resource/crm.Lead', { lead_name: 'Off' });
    await app.close();
    const off = await appIn('disabled');
    const res = await sendJose(off, 'POST', '/api/resource/crm.Lead', jwe);
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('encryption_disabled');
  });

  it('metadata: only DocTypes with encrypted/pii fields need encryption', () => {
    const policy = createEncryptionPolicy({
      mode: 'metadata',
      routes: [],
      doctypes: {
        get: (name) =>
          name === 'crm.Customer'
            ? { fields: [{ name: 'email', type: 'email', label: 'Email', required: false, pii: true }] }
            : { fields: [] },
      },
    });
    expect(policy.requiresEncryption('POST', '/api/resource/crm.Customer')).toBe(true);
    expect(policy.requiresEncryption('PUT', '/api/resource/crm.Customer/CUST-00001')).toBe(true);
    expect(policy.requiresEncryption('GET', '/api/resource/crm.Customer')).toBe(false);
    expect(policy.requiresEncryption('POST', '/api/resource/crm.Lead')).toBe(false);
    expect(policy.requiresEncryption('POST', '/api/method/login')).toBe(false);
  });
});
