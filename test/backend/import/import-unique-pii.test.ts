/**
 * A `unique` field of personal data in the CSV import, against the real MONOLITH app: the preview of a
 * caller who gets the field masked does not look for its values among the stored records (it writes
 * nothing, so it would tell which values other records hold, row after row) and says so; it still finds a
 * value repeated within the file. The caller who may read the field gets the stored duplicate in the
 * preview, and the import's run checks it for everyone.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportPreview, ImportProgress } from '../../../src/protocol/import';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

/** A Patient whose `email` is personal data and unique; Clerks create patients without seeing it. */
function makeClinicApp(): string {
  return appFolder(
    'clinic',
    'defineApp, defineDocType, z',
    `const Patient = defineDocType({
  name: 'clinic.Patient', label: 'Patient', titleField: 'full_name', namePrefix: 'PAT',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name' }),
    email: z.email().max(254).meta({ label: 'Email', pii: true, unique: true }).optional(),
  }),
});
export default defineApp({
  name: 'clinic', label: 'Clinic', doctypes: [Patient],
  permissions: { [Patient.name]: [{ role: 'Clerk', read: true, create: true }] },
});
`,
  );
}

let dir: string;
let t: TestApp;
let clerk: string;

/** A stored address, one nobody holds, and the latter again: rows 2, 3 and 4 of the file. */
const CSV = 'Full Name,Email\r\nA,zelda@secret.org\r\nB,guess@example.org\r\nC,guess@example.org\r\n';

beforeAll(async () => {
  dir = makeClinicApp();
  t = await createTestApp({ config: { apps: [dir] } });
  const res = await t.request('POST', '/api/resource/clinic.Patient', {
    body: { full_name: 'Zelda', email: 'zelda@secret.org' },
  });
  expect(res.status).toBe(201);
  clerk = await userWithRoles(t.ctx, 'clerk', ['Clerk']);
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function preview(authorization?: string): Promise<ImportPreview> {
  const res = await t.request('POST', '/api/import/clinic.Patient/preview', {
    body: { csv: CSV },
    headers: authorization ? { authorization } : undefined,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: ImportPreview }).data;
}

const problems = (p: { errors: { row: number; field: string; code: string }[] }) =>
  p.errors.map(({ row, field, code }) => ({ row, field, code }));

describe('a unique personal field in the import preview', () => {
  it('is not looked up among stored records for a caller who gets it masked, and the answer says so', async () => {
    const answer = await preview(clerk);
    expect(problems(answer)).toEqual([{ row: 4, field: 'email', code: 'duplicate' }]);
    expect(answer.unchecked_stored).toEqual(['email']);
  });

  it('is looked up for a caller who may read it', async () => {
    const answer = await preview();
    expect(problems(answer)).toEqual([
      { row: 2, field: 'email', code: 'duplicate' },
      { row: 4, field: 'email', code: 'duplicate' },
    ]);
    expect(answer.unchecked_stored).toBeUndefined();
  });

  it('is still checked by the import run of a caller who gets it masked', async () => {
    const res = await t.request('POST', '/api/import/clinic.Patient', {
      body: { csv: CSV },
      headers: { authorization: clerk },
    });
    expect(res.status).toBe(200);
    const progress = ((await res.json()) as { data: ImportProgress }).data;
    expect(progress).toMatchObject({ status: 'done', created: 1, failed: 2 });
    expect(problems(progress)).toEqual([
      { row: 2, field: 'email', code: 'duplicate' },
      { row: 4, field: 'email', code: 'duplicate' },
    ]);
  });
});
