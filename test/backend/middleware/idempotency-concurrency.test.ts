/**
 * Concurrent duplicates of one `Idempotency-Key` (docs/security.md#idempotency): exactly one runs and stores
 * one record; every other request gets either that run's answer replayed or 409 `idempotency_in_flight`
 * with `Retry-After`, never a second record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('concurrent duplicates of one Idempotency-Key', () => {
  it('store one record; the others replay it or answer 409 idempotency_in_flight', async () => {
    const body = { lead_name: 'Concurrent duplicate', source: 'Website' };
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        t.request('POST', '/api/resource/crm.Lead', { body, headers: { 'idempotency-key': 'dup-key-1' } }),
      ),
    );
    const originals = answers.filter(
      (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
    );
    const replays = answers.filter(
      (r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true',
    );
    const inFlight = answers.filter((r) => r.status === 409);
    expect(originals).toHaveLength(1);
    expect(originals.length + replays.length + inFlight.length).toBe(answers.length);
    for (const res of inFlight) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('idempotency_in_flight');
    }
    const created = (await originals[0]!.json()) as { data: { name: string } };
    for (const res of replays)
      expect(((await res.json()) as { data: { name: string } }).data.name).toBe(created.data.name);

    const list = await t.request('GET', '/api/resource/crm.Lead?limit=500&fields=["lead_name"]');
    const { data } = (await list.json()) as { data: { lead_name: string }[] };
    expect(data.filter((row) => row.lead_name === body.lead_name)).toHaveLength(1);
  });
});
