/**
 * The personal-data mask is never stored in place of a value (docs/permissions.md#personal-data), also when
 * it is sent in a form the model turns into the mask: with spaces around it that a `.trim()` removes, or in
 * a Unicode form that normalises to it. Each is 422 `masked_value`, by a create, an update and an import.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PII_MASK } from '../../../src/protocol';
import { appFolder } from '../../helpers/app-folder';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

/** A Patient whose `notes` are personal data, trimmed like most text fields; Clerks see them masked. */
function makeClinicApp(): string {
  return appFolder(
    'mask-variants',
    'defineApp, defineDocType, z',
    `const Patient = defineDocType({
  name: 'clinic.Patient', label: 'Patient', titleField: 'full_name', namePrefix: 'PAT',
  model: z.object({
    full_name: z.string().trim().min(1).max(140).meta({ label: 'Full Name' }),
    notes: z.string().trim().max(500).meta({ label: 'Notes', pii: true }).optional(),
  }),
});
export default defineApp({
  name: 'clinic', label: 'Clinic', doctypes: [Patient],
  permissions: { [Patient.name]: [{ role: 'Clerk', read: true, create: true, write: true }] },
});
`,
  );
}

let dir: string;
let t: TestApp;
let clerk: string;
let patient: string;

const VARIANTS = [` ${PII_MASK} `, `${PII_MASK}\n`, `\t${PII_MASK}`];

beforeAll(async () => {
  dir = makeClinicApp();
  t = await createTestApp({ config: { apps: [dir] } });
  clerk = await userWithRoles(t.ctx, 'clerk.mask', ['Clerk']);
  const res = await t.request('POST', '/api/resource/clinic.Patient', {
    body: { full_name: 'Zelda', notes: 'allergic to penicillin' },
  });
  expect(res.status).toBe(201);
  patient = ((await res.json()) as { data: { name: string } }).data.name;
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function codeOf(res: Response): Promise<string> {
  return `${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code}`;
}

describe('the mask in another form', () => {
  it('is refused by a create and an update, and the stored value stays', async () => {
    for (const notes of VARIANTS) {
      const created = await t.request('POST', '/api/resource/clinic.Patient', {
        headers: { authorization: clerk },
        body: { full_name: 'Echo', notes },
      });
      expect(await codeOf(created), JSON.stringify(notes)).toBe('422 masked_value');
      const updated = await t.request('PUT', `/api/resource/clinic.Patient/${patient}`, {
        headers: { authorization: clerk },
        body: { notes },
      });
      expect(await codeOf(updated), JSON.stringify(notes)).toBe('422 masked_value');
    }
    const read = await t.request('GET', `/api/resource/clinic.Patient/${patient}`);
    expect(((await read.json()) as { data: { notes: string } }).data.notes).toBe('allergic to penicillin');
    const list = await t.request('GET', '/api/resource/clinic.Patient?fields=["name"]');
    expect(((await list.json()) as { total: number }).total).toBe(1);
  });

  it('is refused row by row by the import', async () => {
    const res = await t.request('POST', '/api/import/clinic.Patient/preview', {
      headers: { authorization: clerk },
      body: { csv: `Full Name,Notes\r\nA,"${VARIANTS[0]}"\r\n` },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { errors: { row: number; code: string }[] } };
    expect(data.errors.map(({ row, code }) => ({ row, code }))).toEqual([{ row: 2, code: 'masked_value' }]);
  });
});
