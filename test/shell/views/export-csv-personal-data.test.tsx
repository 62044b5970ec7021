/**
 * The list's CSV export of a DocType whose personal data is a list column, against the mock backend: a user
 * without read_pii saves the mask (and nothing is audited), a user with it saves the values, each record's
 * reveal audited as a list read of that user; an export the server refuses says so in words.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineApp, defineDocType, z } from '../../../src/app';
import type { DocTypeSchema } from '../../../src/protocol';
import { PII_MASK } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ExportCsv } from '../../../src/shell/views/list/ExportCsv';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';
import { catchSavedFiles } from '../support/saved-files';

const Contact = defineDocType({
  name: 'hr.Contact',
  label: 'Contact',
  titleField: 'full_name',
  namePrefix: 'CON',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name', inList: true }),
    email: z.email().max(254).meta({ label: 'Email', pii: true, inList: true }).optional(),
  }),
});
/** Clerks read contacts without their personal data; System Managers (Administrator) with it. */
const hrApp = defineApp({
  name: 'hr',
  label: 'HR',
  doctypes: [Contact],
  permissions: { [Contact.name]: [{ role: 'Clerk', read: true }] },
});

let backend: TestBackend;
let contact: DocTypeSchema;
const EMAILS = ['ada@example.com', 'bob@example.com', 'cy@example.com'];
beforeAll(async () => {
  backend = await startBackend({ apps: [hrApp], signedIn: false });
  await backend.env.ctx.security.users.addUser('clerk', 'clerk-password', ['Clerk']);
  const definition = backend.env.doctypes.get('hr.Contact')!;
  for (const [i, email] of EMAILS.entries()) {
    await backend.env.store.insert(definition, { full_name: `Contact ${i}`, email });
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
  vi.restoreAllMocks();
});
afterAll(() => backend.server.close());

/** The audit entries the last export added. */
let revealed: Array<{ user: string; record: string; fields: string[]; route: string }> = [];

/** Exports the contact list signed in as `user`; returns the saved file's lines and notes what it revealed. */
async function exportAs(user: string, password: string): Promise<string[]> {
  const platform = newTestPlatform();
  // Discovery is asked without the session (`credentials: 'omit'`), which this test's cookie jar would not
  // honour: resolved before signing in, as a browser would send it.
  await platform.discovery.resolve('hr.Contact');
  await platform.login(user, password);
  const files = catchSavedFiles();
  render(
    <PlatformProvider platform={platform}>
      <QueryClientProvider client={createQueryClient()}>
        <GenericList
          docType="hr.Contact"
          schema={contact}
          onOpen={() => {}}
          onCreate={() => {}}
          state={{ filters: {}, page: 1, pageSize: 1, sort: { field: 'name', order: 'asc' } }}
          onStateChange={() => {}}
        />
      </QueryClientProvider>
    </PlatformProvider>,
  );
  const list = await screen.findByRole('region', { name: 'Contact list' });
  await waitFor(() => expect(list.textContent).toContain(`of ${EMAILS.length} contacts`));
  const exportButton = await waitFor(() => {
    const button = within(list).getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    return button;
  });
  const before = (await backend.env.ctx.audit!.list({ limit: 1000 })).total;
  fireEvent.click(exportButton);
  await waitFor(() => expect(files.blob).toBeDefined());
  const lines = (await files.blob!.text()).split('\r\n').filter(Boolean);
  await platform.logout();
  cleanup();
  // What the export itself revealed, after the list on screen.
  revealed = (await backend.env.ctx.audit!.list({ start: before, limit: 1000 })).data;
  return lines;
}

describe('the CSV export of personal data', () => {
  it('saves the mask for a user without read_pii, and audits nothing', async () => {
    const lines = await exportAs('clerk', 'clerk-password');
    expect(lines[0]).toBe('ID,Full Name,Email');
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(EMAILS.map(() => PII_MASK));
    expect(lines.join('\n')).not.toContain('@example.com');
    expect(revealed).toEqual([]);
  });

  it('saves the values for a user with read_pii, each record audited as revealed to them', async () => {
    const lines = await exportAs('Administrator', 'admin');
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(EMAILS);
    expect(revealed.map((e) => [e.user, e.route, e.fields])).toEqual(
      EMAILS.map(() => ['Administrator', 'list', ['email']]),
    );
    expect(revealed.map((e) => e.record).sort()).toEqual(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    );
  });
});

describe('an export the server refuses', () => {
  it('says it stopped and why in words, saves nothing, and offers the export again', async () => {
    const platform = newTestPlatform();
    await platform.discovery.resolve('hr.Contact');
    await platform.login('clerk', 'clerk-password');
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    // A filter on personal data the clerk receives masked would reveal it: the server refuses the export.
    render(
      <PlatformProvider platform={platform}>
        <ExportCsv
          docType="hr.Contact"
          plural="Contacts"
          columns={[]}
          filters={[{ field: 'email', operator: 'contains', value: 'ada' }]}
        />
      </PlatformProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(
      'The export stopped. You do not have permission to do this. Ask an administrator.',
    );
    expect(click).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
    const asked = backend.to('/api/resource/hr.Contact/export.csv', 'GET').at(-1);
    expect(JSON.parse(asked?.url.searchParams.get('filters') ?? '[]')).toEqual([['email', 'like', '%ada%']]);
    await platform.logout();
  });
});
