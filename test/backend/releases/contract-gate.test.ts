import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractFingerprint } from '../../../backend/releases/fingerprint';
import {
  act,
  buildFiles,
  createReleaseTestApp,
  crmFingerprint,
  publish,
  type ReleaseTestApp,
} from './support';

let t: ReleaseTestApp;
beforeAll(async () => {
  t = await createReleaseTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The crm contract with one change applied. */
function changed(edit: (f: ContractFingerprint) => void): ContractFingerprint {
  const fingerprint = structuredClone(crmFingerprint());
  edit(fingerprint);
  return fingerprint;
}

let build = 0;
async function promoteRefused(fingerprint: ContractFingerprint) {
  const version = await publish(t, buildFiles(`gate-${build++}`), { fingerprint });
  const res = await act(t, 'promote', { version });
  return {
    version,
    status: res.status,
    body: (await res.json()) as { error: { code: string; fields: unknown[] } },
  };
}

describe('the contract gate', () => {
  it('refuses a release relying on a field the service no longer has, naming it', async () => {
    const refused = await promoteRefused(
      changed((f) => {
        f.doctypes['crm.Customer']!.loyalty_tier = { type: 'string', required: false, flags: [] };
      }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'contract_incompatible',
      fields: [{ field: 'crm.Customer.loyalty_tier', code: 'field_removed' }],
    });
  });

  it('refuses a release built without a field the service requires, a changed type, and a removed argument', async () => {
    const refused = await promoteRefused(
      changed((f) => {
        delete f.doctypes['crm.Customer']!.customer_name;
        f.doctypes['crm.Customer']!.email!.type = 'string';
        f.methods['crm.api.customer_count']!.kwargs.push('region');
      }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'crm.Customer.customer_name', code: 'field_missing' }),
        expect.objectContaining({ field: 'crm.Customer.email', code: 'type_changed' }),
        expect.objectContaining({ field: 'crm.api.customer_count(region)', code: 'argument_removed' }),
      ]),
    );
    expect(refused.body.error.fields).toHaveLength(3);
  });

  it('accepts a release that knows less than the service offers (additions are compatible)', async () => {
    const version = await publish(t, buildFiles('older'), {
      fingerprint: changed((f) => {
        delete f.doctypes['crm.Customer']!.email; // optional on the service
        delete f.doctypes['crm.Lead'];
        delete f.methods['crm.api.ping'];
      }),
    });
    expect((await act(t, 'promote', { version })).status).toBe(200);
  });

  it('promotes a refused release with force and records it in the history', async () => {
    const refused = await promoteRefused(
      changed((f) => {
        delete f.doctypes['crm.Customer']!.customer_name;
      }),
    );
    expect(refused.status).toBe(409);
    const forced = await act(t, 'promote', { version: refused.version, force: true });
    expect(forced.status).toBe(200);
    const { data } = (await (await t.request('GET', '/api/releases/crm')).json()) as {
      data: { channel: { live: string }; history: Array<Record<string, unknown>> };
    };
    expect(data.channel.live).toBe(refused.version);
    expect(data.history[0]).toMatchObject({
      action: 'promote',
      version: refused.version,
      forced: true,
      actor: 'Administrator',
      detail: [{ field: 'crm.Customer.customer_name', code: 'field_missing', message: expect.any(String) }],
    });
  });
});
