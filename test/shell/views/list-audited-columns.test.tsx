/**
 * The generic list of a DocType with two personal-data fields, one a column and one not, against the mock
 * backend: a user with read_pii gets the column's values, and the audit names only that field; the field
 * the list does not show is neither asked for nor audited as revealed.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineApp, defineDocType, z } from '../../../src/app';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

const Contact = defineDocType({
  name: 'hr.Contact',
  label: 'Contact',
  titleField: 'full_name',
  namePrefix: 'CON',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name', inList: true }),
    email: z.email().max(254).meta({ label: 'Email', pii: true, inList: true }).optional(),
    phone: z.string().max(40).meta({ label: 'Phone', pii: true }).optional(),
  }),
});
const hrApp = defineApp({ name: 'hr', label: 'HR', doctypes: [Contact], permissions: {} });

let backend: TestBackend;
let contact: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ apps: [hrApp], signedIn: false });
  const definition = backend.env.doctypes.get('hr.Contact')!;
  for (const i of [1, 2]) {
    await backend.env.store.insert(definition, {
      full_name: `Contact ${i}`,
      email: `contact${i}@example.com`,
      phone: `+44 20 7946 000${i}`,
    });
  }
  const platform = newTestPlatform();
  await platform.login('Administrator', 'admin');
  contact = (await fetchServiceMetadata(`${ORIGIN}/api/meta/hr`)).doctypes[0]!;
  await platform.logout();
  DiscoveryClient.reset();
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
});
afterAll(() => backend.server.close());

describe('the list of personal data', () => {
  it('asks only for the fields it shows, so a reveal is audited for the shown column only', async () => {
    const platform = newTestPlatform();
    await platform.discovery.resolve('hr.Contact');
    await platform.login('Administrator', 'admin');
    const before = (await backend.env.ctx.audit!.list({ limit: 1000 })).total;
    render(
      <PlatformProvider platform={platform}>
        <QueryClientProvider client={createQueryClient()}>
          <GenericList docType="hr.Contact" schema={contact} onOpen={() => {}} onCreate={() => {}} />
        </QueryClientProvider>
      </PlatformProvider>,
    );
    const list = await screen.findByRole('region', { name: 'Contact list' });
    await within(list).findByText('contact1@example.com');
    expect(list.textContent).not.toContain('7946');

    const asked = backend.requests.filter(
      (r) => r.method === 'GET' && r.url.pathname === '/api/resource/hr.Contact',
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked) {
      expect(JSON.parse(request.url.searchParams.get('fields') ?? '[]')).toEqual([
        'name',
        'full_name',
        'email',
        'modified',
        'modified_by',
      ]);
    }
    const added = await waitFor(async () => {
      const { data } = await backend.env.ctx.audit!.list({ start: before, limit: 1000 });
      expect(data).toHaveLength(2);
      return data;
    });
    expect(added.map((e) => [e.user, e.route, e.fields])).toEqual([
      ['Administrator', 'list', ['email']],
      ['Administrator', 'list', ['email']],
    ]);
    await platform.logout();
  });
});
