/**
 * A DocType whose title field is personal data (encrypted at rest) in the global search, against the real
 * MONOLITH app: the exact value finds the record through the title's blind index (case and surrounding
 * spaces aside), a part of it finds nothing and the service still answers, the data API keeps refusing a
 * pattern on the title with field_encrypted, a reader without read_pii finds nothing, and the title shown to
 * a reader with read_pii is audited as revealed.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchAnswer } from '../../../src/protocol';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

/** An app whose Patient is titled by a `pii` name; Clerks read patients without their personal data. */
function makeClinicApp(): string {
  return appFolder(
    'clinic',
    'defineApp, defineDocType, z',
    `const Patient = defineDocType({
  name: 'clinic.Patient', label: 'Patient', titleField: 'full_name', namePrefix: 'PAT',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name', pii: true, inList: true }),
    score: z.number().int().meta({ label: 'Score', pii: true }).optional(),
  }),
});
export default defineApp({
  name: 'clinic', label: 'Clinic', doctypes: [Patient],
  permissions: { [Patient.name]: [{ role: 'Clerk', read: true }] },
});
`,
  );
}

let dir: string;
let t: TestApp;
let ada: string;

beforeAll(async () => {
  dir = makeClinicApp();
  t = await createTestApp({ config: { apps: ['crm', dir] } });
  const res = await t.request('POST', '/api/resource/clinic.Patient', {
    body: { full_name: 'Ada Lovelace', score: 42 },
  });
  expect(res.status).toBe(201);
  ada = ((await res.json()) as { data: { name: string } }).data.name;
  await t.request('POST', '/api/resource/clinic.Patient', { body: { full_name: 'Charles Babbage' } });
  await t.request('POST', '/api/resource/crm.Customer', { body: { customer_name: 'Ada Lovelace' } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function search(q: string, authorization?: string): Promise<SearchAnswer> {
  const res = await t.request('GET', `/api/search?${new URLSearchParams({ q })}`, {
    headers: authorization ? { authorization } : undefined,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as SearchAnswer;
}

const hitsIn = (answer: SearchAnswer, docType: string) =>
  answer.groups.find((g) => g.docType === docType)?.hits ?? [];

describe('a title encrypted at rest in the global search', () => {
  it('finds the record by the exact value, whatever its case and surrounding spaces', async () => {
    const answer = await search('  ada LOVELACE ');
    expect(answer.incomplete).toEqual([]);
    expect(hitsIn(answer, 'clinic.Patient')).toEqual([{ name: ada, title: 'Ada Lovelace' }]);
    // A plain title of another app is still searched by its text.
    expect(hitsIn(answer, 'crm.Customer').map((h) => h.title)).toEqual(['Ada Lovelace']);
  });

  it('finds nothing by a part of it, and the service still answers', async () => {
    const answer = await search('Ada');
    expect(answer.incomplete).toEqual([]);
    expect(hitsIn(answer, 'clinic.Patient')).toEqual([]);
    expect(hitsIn(answer, 'crm.Customer').map((h) => h.title)).toEqual(['Ada Lovelace']);
  });

  it('keeps refusing a pattern on the title in the data API with field_encrypted', async () => {
    const filters = JSON.stringify([['full_name', 'like', '%Ada%']]);
    const res = await t.request('GET', `/api/resource/clinic.Patient?${new URLSearchParams({ filters })}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'field_encrypted' } });
  });

  it('finds nothing for a reader without read_pii, and names no service unavailable', async () => {
    const clerk = await userWithRoles(t.ctx, 'clinic.clerk', ['Clerk']);
    const answer = await search('Ada Lovelace', clerk);
    expect(answer.incomplete).toEqual([]);
    expect(hitsIn(answer, 'clinic.Patient')).toEqual([]);
  });

  it('audits the title it showed a reader with read_pii as revealed', async () => {
    const before = (await t.ctx.audit!.list({ limit: 1000 })).total;
    await search('Ada Lovelace');
    const added = (await t.ctx.audit!.list({ start: before, limit: 1000 })).data;
    expect(added.map((e) => [e.doctype, e.record, e.fields, e.route])).toEqual([
      ['clinic.Patient', ada, ['full_name'], 'list'],
    ]);
  });

  it('asks a number field only for a number: a text still finds by the title, the service answering whole', async () => {
    const byTitle = await search('Ada Lovelace');
    expect(hitsIn(byTitle, 'clinic.Patient').map((h) => h.name)).toEqual([ada]);
    expect(byTitle.incomplete).toEqual([]);
    const byScore = await search('42');
    expect(hitsIn(byScore, 'clinic.Patient').map((h) => h.name)).toEqual([ada]);
    expect(byScore.incomplete).toEqual([]);
  });
});
