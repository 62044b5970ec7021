/**
 * A record's attachments against the real MONOLITH app, files under a temporary data directory: an upload is
 * listed and downloaded with headers that keep a browser from rendering or sniffing it, HTML comes back as
 * `application/octet-stream`, a file past `attachments.max_bytes` is 413 (while one of that size passes the
 * smaller general body limit), rights are the record's, and a deleted record takes its rows and files along.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Attachment } from '../../../backend/attachments/attachment';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

const MAX_BYTES = 4096;
let t: TestApp;
let dataDir: string;
let salesUser: string;
let salesUser2: string;
let agent: string;
let clerk: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'attachments-'));
  t = await createTestApp({
    config: {
      apps: ['crm', 'stock', 'support'],
      'server.data_dir': dataDir,
      // Smaller than an attachment may be: the upload route alone is allowed more.
      'server.max_body_bytes': 1024,
      'attachments.max_bytes': MAX_BYTES,
    },
  });
  salesUser = await userWithRoles(t.ctx, 'sally', ['Sales User']);
  salesUser2 = await userWithRoles(t.ctx, 'sid', ['Sales User']);
  agent = await userWithRoles(t.ctx, 'sam', ['Support Agent']);
  clerk = await userWithRoles(t.ctx, 'clerk', ['Stock User']);
});
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const filesDir = () => join(dataDir, 'attachments');
const data = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const base = (name: string) => `/api/resource/crm.Customer/${name}/attachments`;
const as = (authorization?: string): Record<string, string> => (authorization ? { authorization } : {});

async function newCustomer(name: string): Promise<string> {
  const res = await t.request('POST', '/api/resource/crm.Customer', {
    body: { customer_name: name, status: 'Active' },
  });
  expect(res.status).toBe(201);
  return (await data<{ name: string }>(res)).name;
}

function upload(record: string, fileName: string, bytes: Uint8Array, type: string, authorization?: string) {
  return t.request('POST', `${base(record)}?filename=${encodeURIComponent(fileName)}`, {
    body: bytes,
    headers: { 'content-type': type, 'content-length': String(bytes.byteLength), ...as(authorization) },
  });
}

const text = (s: string) => new TextEncoder().encode(s);

describe('uploading, listing and downloading', () => {
  it('stores an upload, lists it, and serves it as a download that is not rendered, sniffed or cached', async () => {
    const name = await newCustomer('Attached');
    const pdf = text('%PDF-1.4 a small report');
    const res = await upload(name, 'report.pdf', pdf, 'application/pdf', salesUser);
    expect(res.status).toBe(201);
    const attachment = await data<Attachment>(res);
    expect(attachment).toMatchObject({
      doctype: 'crm.Customer',
      record: name,
      file_name: 'report.pdf',
      media_type: 'application/pdf',
      size: pdf.byteLength,
      uploader: 'sally',
    });
    expect(attachment.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(filesDir())).toContain(attachment.sha256);

    const list = await t.request('GET', base(name), { headers: as(agent) });
    expect(list.status).toBe(200);
    expect((await data<Attachment[]>(list)).map((a) => [a.id, a.file_name, a.uploader])).toEqual([
      [attachment.id, 'report.pdf', 'sally'],
    ]);

    const download = await t.request('GET', `${base(name)}/${attachment.id}`, { headers: as(agent) });
    expect(download.status).toBe(200);
    expect(Object.fromEntries(download.headers)).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': "attachment; filename*=UTF-8''report.pdf",
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      'content-security-policy': 'sandbox',
    });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(pdf);

    // The record's timeline says who attached what.
    const timeline = await data<Array<{ kind: string; user: string; changes: unknown[] }>>(
      await t.request('GET', `/api/history/crm.Customer/${name}`),
    );
    expect(timeline.filter((e) => e.kind === 'attach')).toMatchObject([
      { user: 'sally', changes: [{ field: 'attachment', new: 'report.pdf' }] },
    ]);
  });

  it('serves an HTML upload as application/octet-stream, sandboxed, under an RFC 8187 name', async () => {
    const name = await newCustomer('Html');
    const html = text('<script>alert(document.cookie)</script>');
    const res = await upload(name, '../../Résumé "final".html', html, 'text/html');
    expect(res.status).toBe(201);
    const attachment = await data<Attachment>(res);
    expect(attachment.file_name).toBe('Résumé final.html');
    expect(attachment.media_type).toBe('text/html');

    const download = await t.request('GET', `${base(name)}/${attachment.id}`);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('content-security-policy')).toBe('sandbox');
    expect(download.headers.get('content-disposition')).toBe(
      "attachment; filename*=UTF-8''R%C3%A9sum%C3%A9%20final.html",
    );
    expect(await download.text()).toBe('<script>alert(document.cookie)</script>');
  });

  it('takes a file of exactly attachments.max_bytes past the smaller body limit, and refuses one byte more (413)', async () => {
    const name = await newCustomer('Large');
    const exact = await upload(
      name,
      'exact.bin',
      new Uint8Array(MAX_BYTES).fill(7),
      'application/octet-stream',
    );
    expect(exact.status).toBe(201);
    const over = await upload(name, 'over.bin', new Uint8Array(MAX_BYTES + 1), 'application/octet-stream');
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    // Elsewhere the general limit still holds.
    const record = await t.request('POST', '/api/resource/crm.Customer', {
      body: text(JSON.stringify({ customer_name: 'x'.repeat(2000) })),
      headers: { 'content-type': 'application/json', 'content-length': '2026' },
    });
    expect(record.status).toBe(413);
    expect((await data<Attachment[]>(await t.request('GET', base(name)))).map((a) => a.file_name)).toEqual([
      'exact.bin',
    ]);
  });

  it('refuses an upload without a file name (400) and to a record that does not exist (404)', async () => {
    const name = await newCustomer('Unnamed');
    const bytes = text('x');
    const noName = await t.request('POST', base(name), {
      body: bytes,
      headers: { 'content-type': 'text/plain' },
    });
    expect(noName.status).toBe(400);
    expect((await upload('CUST-99999', 'a.txt', bytes, 'text/plain')).status).toBe(404);
    expect((await t.request('GET', base('CUST-99999'))).status).toBe(404);
  });
});

describe('a file missing from the data directory (an incomplete restore)', () => {
  it('is 404 not_found on download, not a server error', async () => {
    const name = await newCustomer('Restored');
    const row = await data<Attachment>(
      await upload(name, 'lost.txt', text('lost in a restore'), 'text/plain'),
    );
    rmSync(join(filesDir(), row.sha256));
    const res = await t.request('GET', `${base(name)}/${row.id}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('rights like the record', () => {
  it('refuses list and download without read, upload without write (403 forbidden)', async () => {
    const name = await newCustomer('Guarded');
    const stored = await data<Attachment>(await upload(name, 'notes.txt', text('notes'), 'text/plain'));
    for (const res of [
      await t.request('GET', base(name), { headers: as(clerk) }),
      await t.request('GET', `${base(name)}/${stored.id}`, { headers: as(clerk) }),
      await upload(name, 'mine.txt', text('mine'), 'text/plain', agent),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden' } });
    }
    expect((await data<Attachment[]>(await t.request('GET', base(name)))).map((a) => a.file_name)).toEqual([
      'notes.txt',
    ]);
  });

  it('lets the uploader or a writer delete, not a reader who did not upload it', async () => {
    const name = await newCustomer('Deletable');
    const first = await data<Attachment>(await upload(name, 'a.txt', text('a'), 'text/plain', salesUser));
    const second = await data<Attachment>(await upload(name, 'b.txt', text('b'), 'text/plain', salesUser));
    const byReader = await t.request('DELETE', `${base(name)}/${first.id}`, { headers: as(agent) });
    expect(byReader.status).toBe(403);
    expect((await t.request('DELETE', `${base(name)}/${first.id}`, { headers: as(salesUser) })).status).toBe(
      204,
    );
    // Another writer of the record may remove it too.
    expect(
      (await t.request('DELETE', `${base(name)}/${second.id}`, { headers: as(salesUser2) })).status,
    ).toBe(204);
    expect(await data<Attachment[]>(await t.request('GET', base(name)))).toEqual([]);
    expect((await t.request('DELETE', `${base(name)}/${first.id}`)).status).toBe(404);
    expect((await t.request('GET', `${base(name)}/${first.id}`)).status).toBe(404);
    const timeline = await data<Array<{ kind: string; user: string }>>(
      await t.request('GET', `/api/history/crm.Customer/${name}`),
    );
    expect(timeline.filter((e) => e.kind === 'detach').map((e) => e.user)).toEqual(['sally', 'sid']);
  });
});

describe('a deleted record', () => {
  it('takes its attachment rows and the files no other attachment uses', async () => {
    const keep = await newCustomer('Keeps a copy');
    const gone = await newCustomer('Goes away');
    const shared = text('the same content in two records');
    const own = text('only in the deleted record');
    const sharedRow = await data<Attachment>(await upload(gone, 'shared.txt', shared, 'text/plain'));
    await upload(keep, 'shared.txt', shared, 'text/plain');
    const ownRow = await data<Attachment>(await upload(gone, 'own.txt', own, 'text/plain'));

    expect((await t.request('DELETE', `/api/resource/crm.Customer/${gone}`)).status).toBe(200);
    // The rows went with the delete's commit; the files it no longer needs go right after.
    await t.ctx.attachments!.idle();
    const { rows } = await t.ctx.db.query('SELECT id FROM record_attachments WHERE record = $1', [gone]);
    expect(rows).toEqual([]);
    expect(existsSync(join(filesDir(), ownRow.sha256))).toBe(false);
    expect(existsSync(join(filesDir(), sharedRow.sha256))).toBe(true);
    expect((await data<Attachment[]>(await t.request('GET', base(keep)))).map((a) => a.file_name)).toEqual([
      'shared.txt',
    ]);
  });
});

describe('in metadata encryption mode', () => {
  it('takes a plaintext upload to a DocType with personal-data fields, whose record writes must be encrypted', async () => {
    const metadataDir = mkdtempSync(join(tmpdir(), 'attachments-metadata-'));
    const m = await createTestApp({
      config: {
        apps: ['crm'],
        'server.data_dir': metadataDir,
        'security.payload_encryption.mode': 'metadata',
      },
    });
    try {
      const record = await m.ctx.records.insert(m.ctx.doctypes.get('crm.Customer')!, {
        customer_name: 'Plain',
        status: 'Active',
      });
      const bytes = text('a scanned contract');
      const res = await m.request(
        'POST',
        `/api/resource/crm.Customer/${record.name}/attachments?filename=c.txt`,
        {
          body: bytes,
          headers: { 'content-type': 'text/plain' },
        },
      );
      expect(res.status).toBe(201);
      const plainWrite = await m.request('PUT', `/api/resource/crm.Customer/${record.name}`, {
        body: { customer_name: 'Changed' },
      });
      expect(plainWrite.status).toBe(415);
    } finally {
      await m.close();
      rmSync(metadataDir, { recursive: true, force: true });
    }
  });
});
