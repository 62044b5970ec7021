/**
 * The audit chain checked against heads recorded earlier (docs/operators.md#the-audit-log): the chain has no
 * key, so an owner of the database who removes an entry and renumbers and re-hashes the rest leaves a chain
 * that holds; only a head recorded before, kept where the database's operators cannot write, tells.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  type AuditFacts,
  type ChainVerdict,
  chain,
  GENESIS_HASH,
  parseRecordedHead,
  verifyChain,
} from '../../../backend/audit/chain';
import type { Database } from '../../../backend/db/database';
import { createTestApp, type TestApp } from '../../helpers/test-app';

const facts = (n: number, record = 'CUST-1'): AuditFacts[] =>
  Array.from({ length: n }, (_, i) => ({
    at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
    user: `user${i}`,
    via: 'session',
    doctype: 'crm.Customer',
    record,
    fields: ['email'],
    route: 'get',
    client_address: '127.0.0.1',
  }));

/** SHA-256 of an entry as anyone reading the source can compute it: no key is involved. */
function attackerHash(prev: string, e: Omit<AuditEntry, 'hash' | 'prev_hash'>): string {
  const fields = [e.seq, e.at, e.user, e.via, e.doctype, e.record, e.fields, e.route, e.client_address];
  return createHash('sha256')
    .update(`${prev}\n${JSON.stringify(fields)}`)
    .digest('hex');
}

/** `entries` without the one at `victim`, renumbered and re-hashed from the genesis on. */
function rewritten(entries: readonly AuditEntry[], victim: number): AuditEntry[] {
  let prev = GENESIS_HASH;
  return entries
    .filter((e) => e.seq !== victim)
    .map((e, i) => {
      const unhashed = { ...e, seq: i + 1, prev_hash: prev };
      prev = attackerHash(prev, unhashed);
      return { ...unhashed, hash: prev };
    });
}

/** The same attack on the table, as its owner: triggers off, the entry deleted, the rest renumbered and re-hashed. */
async function rewriteTable(db: Pick<Database, 'exec' | 'query'>, victim: number): Promise<void> {
  const { rows } = await db.query<AuditEntry & { seq: string | number; at: Date | string }>(
    'SELECT seq, at, "user", via, doctype, record, fields, route, client_address, prev_hash, hash FROM audit_log ORDER BY seq',
  );
  const entries = rows.map((r) => ({ ...r, seq: Number(r.seq), at: new Date(r.at).toISOString() }));
  await db.exec('ALTER TABLE audit_log DISABLE TRIGGER USER');
  try {
    await db.exec('DELETE FROM audit_log');
    for (const e of rewritten(entries, victim)) {
      await db.query(
        'INSERT INTO audit_log (seq, at, "user", via, doctype, record, fields, route, client_address, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)',
        [
          e.seq,
          e.at,
          e.user,
          e.via,
          e.doctype,
          e.record,
          JSON.stringify(e.fields),
          e.route,
          e.client_address,
          e.prev_hash,
          e.hash,
        ],
      );
    }
  } finally {
    await db.exec('ALTER TABLE audit_log ENABLE TRIGGER USER');
  }
}

describe('parseRecordedHead', () => {
  const hash = 'ab'.repeat(32);

  it('reads <seq>:<hash> and <service>/<seq>:<hash>, the hash in lower case', () => {
    expect(parseRecordedHead(`12:${hash}`)).toEqual({ seq: 12, hash });
    expect(parseRecordedHead(`crm/12:${hash.toUpperCase()}`)).toEqual({ service: 'crm', seq: 12, hash });
  });

  it('refuses anything else', () => {
    for (const text of ['12', `12 ${hash}`, `0:${hash}`, `12:${hash.slice(1)}`, `x:${hash}`, `/12:${hash}`]) {
      expect(parseRecordedHead(text), text).toBeUndefined();
    }
  });
});

describe('verifyChain with recorded heads', () => {
  const log = chain({ seq: 0, hash: GENESIS_HASH }, facts(5));
  const recorded = { seq: 4, hash: log[3]!.hash };

  it('holds when each recorded head is still in the chain, and after it', async () => {
    expect(await verifyChain(log, [recorded, { seq: 5, hash: log[4]!.hash }])).toEqual({
      ok: true,
      entries: 5,
      head: { seq: 5, hash: log[4]!.hash },
    });
  });

  it('cannot tell a rewritten chain without one: the attack leaves a chain that holds', async () => {
    expect(await verifyChain(rewritten(log, 2))).toMatchObject({ ok: true, entries: 4 });
  });

  it('names the recorded head a rewrite changed', async () => {
    const forged = [...rewritten(log, 2), ...chain({ seq: 4, hash: rewritten(log, 2)[3]!.hash }, facts(1))];
    expect(await verifyChain(forged, [recorded])).toEqual({
      ok: false,
      entries: 4,
      seq: 4,
      problem: `entry 4 does not match the head recorded (4:${recorded.hash}): its hash is now ${forged[3]!.hash}; the log was rewritten since`,
    });
  });

  it('names a recorded head the log no longer reaches (cut, or rewritten shorter)', async () => {
    const verdict = await verifyChain(rewritten(log, 2), [{ seq: 5, hash: log[4]!.hash }]);
    expect(verdict).toEqual({
      ok: false,
      entries: 4,
      seq: 5,
      problem: `entry 5 does not match the head recorded (5:${log[4]!.hash}): the log ends at entry 4; the log was rewritten, or cut, since`,
    });
    expect(await verifyChain(log.slice(0, 3), [recorded])).toMatchObject({ ok: false, seq: 4 });
  });

  it('checks each service’s chain against its own recorded head in a merged log', async () => {
    const crm = chain({ seq: 0, hash: GENESIS_HASH }, facts(3)).map((e) => ({ ...e, service: 'crm' }));
    const stock = chain({ seq: 0, hash: GENESIS_HASH }, facts(2, 'ITEM-1')).map((e) => ({
      ...e,
      service: 'stock',
    }));
    const merged = [crm[0]!, stock[0]!, crm[1]!, stock[1]!, crm[2]!];
    const held = await verifyChain(merged, [{ service: 'stock', seq: 2, hash: stock[1]!.hash }]);
    expect(held).toEqual({
      ok: true,
      entries: 5,
      head: { seq: 3, hash: crm[2]!.hash },
      heads: { crm: { seq: 3, hash: crm[2]!.hash }, stock: { seq: 2, hash: stock[1]!.hash } },
    });
    // The same seq and hash in crm's chain is another entry.
    expect(await verifyChain(merged, [{ service: 'crm', seq: 2, hash: stock[1]!.hash }])).toMatchObject({
      ok: false,
      seq: 2,
      problem: expect.stringMatching(/^crm: entry 2 does not match the head recorded \(crm\/2:/),
    });
    expect(await verifyChain(merged, [{ seq: 2, hash: stock[1]!.hash }])).toMatchObject({
      ok: false,
      seq: 2,
      problem: expect.stringContaining('name it in the head recorded'),
    });
  });
});

describe('GET /api/audit/verify?head=<seq>:<hash>', () => {
  let t: TestApp;
  const verify = async (query: string, status = 200) => {
    const res = await t.request('GET', `/api/audit/verify${query}`);
    expect(res.status).toBe(status);
    return ((await res.json()) as { data: ChainVerdict }).data;
  };

  beforeAll(async () => {
    t = await createTestApp();
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Ada', email: 'ada.verify-head@example.com' },
    });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    for (let i = 0; i < 4; i++) {
      expect((await t.request('GET', `/api/resource/crm.Customer/${name}`)).status).toBe(200);
    }
  });
  afterAll(() => t.close());

  it('refuses a head in another form with 400 invalid_query', async () => {
    for (const query of ['?head=3', `?head=crm/3:${'a'.repeat(64)}`, `?head=3:${'g'.repeat(64)}`]) {
      const res = await t.request('GET', `/api/audit/verify${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
    }
  });

  it('holds against the head it answered, then fails against it once the table is rewritten', async () => {
    const before = await verify('');
    if (!before.ok) throw new Error(before.problem);
    const { seq, hash } = before.head;
    expect(await verify(`?head=${seq}:${hash}`)).toEqual(before);

    await rewriteTable(t.ctx.db, 2);
    // Without the head, the forged chain holds.
    expect(await verify('')).toMatchObject({ ok: true, entries: before.entries - 1 });
    expect(await verify(`?head=${seq}:${hash}&head=1:${'0'.repeat(64)}`)).toMatchObject({
      ok: false,
      seq: 1,
      problem: expect.stringContaining('entry 1 does not match the head recorded'),
    });
    expect(await verify(`?head=${seq}:${hash}`)).toMatchObject({
      ok: false,
      seq,
      problem: `entry ${seq} does not match the head recorded (${seq}:${hash}): the log ends at entry ${seq - 1}; the log was rewritten, or cut, since`,
    });
  });
});
