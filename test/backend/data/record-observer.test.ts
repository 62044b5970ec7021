/**
 * The data API tells its observers what it answered and stored (a record's history, the audit of reveals),
 * after the fact and before the answer leaves, with the caller and the flagged fields given in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordReadEvent, RecordWriteEvent } from '../../../backend/data/record-observer';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

describe('record observers', () => {
  let t: TestApp;
  const reads: RecordReadEvent[] = [];
  const writes: RecordWriteEvent[] = [];
  let failNextRead = false;

  beforeAll(async () => {
    t = await createTestApp({
      recordObservers: [
        {
          read(event) {
            if (failNextRead) {
              failNextRead = false;
              throw new Error('audit store down');
            }
            reads.push(event);
          },
          written: (event) => void writes.push(event),
        },
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('hear each write with its kind, record, before and after, and the caller', async () => {
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Ada', email: 'ada@example.com' },
    });
    const { data } = (await created.json()) as { data: { name: string } };
    await t.request('PUT', `/api/resource/crm.Customer/${data.name}`, { body: { status: 'Inactive' } });
    await t.request('DELETE', `/api/resource/crm.Customer/${data.name}`);
    expect(writes.map((w) => [w.kind, w.name, w.principal?.user])).toEqual([
      ['create', data.name, 'Administrator'],
      ['update', data.name, 'Administrator'],
      ['delete', data.name, 'Administrator'],
    ]);
    expect(writes[1]?.before?.status).toBe('Active');
    expect(writes[1]?.after?.status).toBe('Inactive');
    expect(writes[2]?.after).toBeUndefined();
  });

  it('hear each read with the flagged fields the caller got in clear', async () => {
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Grace', email: 'grace@example.com' },
    });
    const { data } = (await created.json()) as { data: { name: string } };
    reads.length = 0;
    await t.request('GET', `/api/resource/crm.Customer/${data.name}`);
    const salesUser = await userWithRoles(t.ctx, 'sally', ['Sales User']);
    await t.request('GET', '/api/resource/crm.Customer', { headers: { authorization: salesUser } });
    expect(reads.map((r) => [r.route, r.principal?.user, r.revealed])).toEqual([
      ['get', 'Administrator', ['email', 'phone']],
      ['list', 'sally', []],
    ]);
    expect(reads[0]?.names).toEqual([data.name]);
    expect(reads[1]?.names).toContain(data.name);
    expect(reads[0]?.clientAddress).toBeTypeOf('string');
  });

  it('fail the request when an observer fails, so nothing is answered unobserved', async () => {
    failNextRead = true;
    const res = await t.request('GET', '/api/resource/crm.Customer');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('internal_error');
  });
});
