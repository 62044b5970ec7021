/**
 * Bulk edit of one field against the mock backend: the selected rows get the new value, one update per row,
 * after a confirmation naming how many; a row that cannot be updated is named with its reason while the
 * others are updated; only a user who may write is offered Edit.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocTypeDefinition } from '../../../src/contract/doctype';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: DocTypeSchema;
let definition: DocTypeDefinition;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes.find(
    (d) => d.name === 'support.Ticket',
  )!;
  definition = backend.env.doctypes.get('support.Ticket')!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  localStorage.clear();
});
afterAll(() => backend.server.close());

/** Two new open tickets with the subjects `<prefix> A` and `<prefix> B`; their ids. */
async function twoTickets(prefix: string): Promise<[string, string]> {
  const a = await backend.env.store.insert(definition, {
    subject: `${prefix} A`,
    status: 'Open',
    priority: 'Low',
  });
  const b = await backend.env.store.insert(definition, {
    subject: `${prefix} B`,
    status: 'Open',
    priority: 'Low',
  });
  return [String(a.name), String(b.name)];
}

/** The ticket list showing only those whose subject starts `<prefix> …`. */
async function renderList(prefix: string, platform: DeskPlatform = testPlatform()): Promise<HTMLElement> {
  render(
    <DeskFrame platform={platform}>
      <GenericList
        docType="support.Ticket"
        schema={ticket}
        onOpen={() => {}}
        onCreate={() => {}}
        state={{
          filters: {},
          conditions: [{ field: 'subject', op: 'like', value: prefix }],
          page: 1,
          pageSize: 20,
        }}
        onStateChange={() => {}}
      />
    </DeskFrame>,
  );
  const list = await screen.findByRole('region', { name: 'Ticket list' });
  await within(list).findByText('1–2 of 2 tickets');
  return list;
}

/** Selects both rows, opens Edit, sets Status to `value`, and submits the panel. */
async function editStatus(list: HTMLElement, value: string): Promise<void> {
  fireEvent.click(within(list).getByRole('checkbox', { name: 'Select all on this page' }));
  const selection = within(list).getByRole('region', { name: 'Selection' });
  fireEvent.click(within(selection).getByRole('button', { name: 'Edit' }));
  const panel = await within(list).findByRole('form', { name: 'Edit 2 tickets' });
  fireEvent.change(within(panel).getByLabelText('Field'), { target: { value: 'status' } });
  fireEvent.change(within(panel).getByLabelText(/^Status/), { target: { value } });
  fireEvent.click(within(panel).getByRole('button', { name: 'Update 2 tickets…' }));
}

const statusOf = async (id: string) => (await backend.env.store.get(definition, id))?.status;

describe('bulk edit', () => {
  it('sets one field on the selected rows after a confirmation, one update per row', async () => {
    const ids = await twoTickets('Bulk set');
    const platform = testPlatform();
    const list = await renderList('Bulk set', platform);
    await editStatus(list, 'Closed');

    const dialog = await screen.findByRole('alertdialog', { name: 'Update 2 tickets?' });
    expect(dialog.textContent).toContain('Status is set to “Closed” on each of them.');
    // Cancel changes nothing.
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(backend.requests.filter((r) => r.method === 'PUT')).toHaveLength(0);

    fireEvent.click(
      within(await within(list).findByRole('form', { name: 'Edit 2 tickets' })).getByRole('button', {
        name: 'Update 2 tickets…',
      }),
    );
    fireEvent.click(
      within(await screen.findByRole('alertdialog', { name: 'Update 2 tickets?' })).getByRole('button', {
        name: 'Update',
      }),
    );
    await waitFor(() =>
      expect(platform.notices.getSnapshot().map((n) => n.message)).toContain('Updated 2 tickets.'),
    );
    const puts = backend.requests.filter((r) => r.method === 'PUT').map((r) => r.url.pathname);
    expect(puts.sort()).toEqual(ids.map((id) => `/api/resource/support.Ticket/${id}`).sort());
    expect([await statusOf(ids[0]), await statusOf(ids[1])]).toEqual(['Closed', 'Closed']);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('names each row it could not update, with the reason, and updates the others', async () => {
    const [kept, gone] = await twoTickets('Bulk fail');
    const platform = testPlatform();
    const list = await renderList('Bulk fail', platform);
    await editStatus(list, 'Replied');
    // The second row is deleted elsewhere before the edit runs.
    await backend.env.store.delete(definition, gone);
    fireEvent.click(
      within(await screen.findByRole('alertdialog', { name: 'Update 2 tickets?' })).getByRole('button', {
        name: 'Update',
      }),
    );
    const failures = await within(list).findByRole('alert', { name: 'Rows not updated' });
    expect(
      within(failures)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([expect.stringMatching(/^Bulk fail B: .+/)]);
    expect(platform.notices.getSnapshot().map((n) => n.message)).toContain(
      'Updated 1 of 2 tickets; 1 could not be updated.',
    );
    expect(await statusOf(kept)).toBe('Replied');
  });

  it('offers Edit only to who may write, and selection only to who may write or delete', async () => {
    await twoTickets('Bulk rights');
    const none = { read: false, create: false, write: false, delete: false, read_pii: false };
    const user = (rights: Partial<typeof none>): SessionUser => ({
      user: 'sam',
      roles: ['Support Agent'],
      permissions: { 'support.Ticket': { ...none, read: true, ...rights } },
    });

    let list = await renderList('Bulk rights', testPlatform(user({ delete: true })));
    fireEvent.click(within(list).getByRole('checkbox', { name: 'Select all on this page' }));
    let selection = within(list).getByRole('region', { name: 'Selection' });
    expect(within(selection).queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(within(selection).getByRole('button', { name: 'Delete' })).toBeTruthy();
    cleanup();

    list = await renderList('Bulk rights', testPlatform(user({ write: true })));
    fireEvent.click(within(list).getByRole('checkbox', { name: 'Select all on this page' }));
    selection = within(list).getByRole('region', { name: 'Selection' });
    expect(within(selection).getByRole('button', { name: 'Edit' })).toBeTruthy();
    expect(within(selection).queryByRole('button', { name: 'Delete' })).toBeNull();
    cleanup();

    list = await renderList('Bulk rights', testPlatform(user({})));
    expect(within(list).queryAllByRole('checkbox')).toHaveLength(0);
  });
});
