/**
 * `m audit verify --file` (docs/operators.md#the-audit-log): a copy of the whole log saved from
 * `GET /api/audit/export.csv` is checked as the server's own log is, against a head recorded earlier; a cell
 * edited in the file, a file that starts past the first entry (an export filtered), and a file that is not an
 * export each fail with exit 1 and say why.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditFacts, ChainVerdict } from '../../backend/audit/chain';
import { spawnM } from '../faults/helpers/serve-process';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let dir: string;
let whole: string;
let head: { seq: number; hash: string };

/** `m <args>`, as `node bin/m.js`: its exit code and what it wrote. */
async function m(args: string[]) {
  const run = spawnM(args, {});
  return { code: await run.exited, output: run.output() };
}

const facts = (i: number): AuditFacts => ({
  at: new Date(Date.UTC(2026, 10, 1, 8, 0, i)).toISOString(),
  // A user name a spreadsheet would run: the export writes it guarded, the check reads it back as it was.
  user: i === 3 ? '=SUM(A1)' : `reader${i}`,
  via: 'session',
  doctype: 'crm.Customer',
  record: `CUST-${String(i).padStart(5, '0')}`,
  fields: i === 5 ? [] : ['email', 'phone'],
  route: 'get',
  client_address: i === 4 ? null : '127.0.0.1',
});

async function saveExport(query: string, name: string): Promise<string> {
  const res = await t.request('GET', `/api/audit/export.csv${query}`);
  expect(res.status).toBe(200);
  const path = join(dir, name);
  writeFileSync(path, await res.text());
  return path;
}

beforeAll(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'desk-audit-file-'));
  await t.ctx.audit!.append(Array.from({ length: 12 }, (_, i) => facts(i)));
  whole = await saveExport('', 'audit-log.csv');
  const res = await t.request('GET', '/api/audit/verify');
  head = ((await res.json()) as { data: ChainVerdict & { ok: true } }).data.head;
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('m audit verify --file', () => {
  it("checks a whole export as the server does, and prints the server's head", async () => {
    expect(readFileSync(whole, 'utf8')).toContain(`,'=SUM(A1),`);
    const run = await m(['audit', 'verify', '--file', whole, '--head', `${head.seq}:${head.hash}`]);
    expect(run.output).toContain(`audit log intact: 12 entries; head ${head.seq} ${head.hash}`);
    expect(run.code).toBe(0);
  });

  it('checks an export written newest first the same way', async () => {
    const newest = await saveExport('?order=newest', 'newest.csv');
    const run = await m(['audit', 'verify', '--file', newest]);
    expect(run.output).toContain(`head ${head.seq} ${head.hash}`);
    expect(run.code).toBe(0);
  });

  it('names the entry whose cell was edited in the file', async () => {
    const edited = join(dir, 'edited.csv');
    writeFileSync(edited, readFileSync(whole, 'utf8').replace(',reader7,', ',reader8,'));
    const run = await m(['audit', 'verify', '--file', edited]);
    expect(run.output).toContain('audit log BROKEN at entry 8: entry 8 was changed after it was written');
    expect(run.code).toBe(1);
  });

  it('refuses an export that starts past the first entry, and a file that is not an export', async () => {
    const from = await saveExport(`?from=${encodeURIComponent(facts(6).at)}`, 'from.csv');
    const cut = await m(['audit', 'verify', '--file', from]);
    expect(cut.output).toContain(
      'starts at entry 7: only an export of the whole log (no filters) can be checked',
    );
    expect(cut.code).toBe(1);

    // Filtered on a record whose first reveal is entry 1: its gap could be the filter or a removal.
    await t.ctx.audit!.append([{ ...facts(0), at: new Date(Date.UTC(2026, 10, 1, 9)).toISOString() }]);
    const record = await saveExport(`?record=${facts(0).record}`, 'record.csv');
    const gap = await m(['audit', 'verify', '--file', record]);
    expect(gap.output).toContain(
      `audit log BROKEN at entry 2: entry 2 is missing (the next one is 13); if ${record} is a filtered export (doctype, record, user, from), it cannot be checked: only an export of the whole log (no filters) can`,
    );
    expect(gap.code).toBe(1);

    const other = join(dir, 'Customers.csv');
    writeFileSync(other, 'ID,Name\r\nCUST-00001,Ada\r\n');
    const wrong = await m(['audit', 'verify', '--file', other]);
    expect(wrong.output).toContain('not an audit log export: its first line must be seq,at,user,');
    expect(wrong.code).toBe(1);

    const missing = await m(['audit', 'verify', '--file', join(dir, 'nothing.csv')]);
    expect(missing.output).toContain('cannot read');
    expect(missing.output).toContain('ENOENT');
    expect(missing.code).toBe(1);
  });

  it('refuses --file with --url as a usage error', async () => {
    const run = await m(['audit', 'verify', '--file', whole, '--url', 'http://127.0.0.1:9']);
    expect(run.output).toContain('--url and --file name two logs');
    expect(run.code).toBe(2);
  });
});
