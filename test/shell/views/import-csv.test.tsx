/**
 * The list's Import action against the mock backend: choosing a file shows the preview (the field of each
 * column, the counts, the bad rows and why), changing a column's field checks the file again with that
 * mapping, and confirming imports the good rows with a progress bar and a summary; the records are stored
 * and the list shows them. A user who may not create is not offered the action.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import type { SessionUser } from '../../../src/shell/platform/session';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ records: 'empty' });
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes[0]!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
});
afterAll(() => backend.server.close());

function renderList(user?: SessionUser) {
  render(
    <DeskFrame platform={testPlatform(user)}>
      <GenericList
        docType="support.Ticket"
        schema={ticket}
        onOpen={() => {}}
        onCreate={() => {}}
        state={{ filters: {}, page: 1, pageSize: 20 }}
        onStateChange={() => {}}
      />
    </DeskFrame>,
  );
}

const CSV =
  'Title,Status,Priority,Urgent\r\n' +
  'Printer jams,Open,High,Yes\r\n' +
  'No status,Pending,Low,No\r\n' +
  '"Screen, flickers",Replied,Medium,No\r\n' +
  ',Open,Low,No\r\n';

/** Renders the Ticket list, opens its Import dialog and chooses `file`. */
async function openImport(file: File): Promise<{ list: HTMLElement; dialog: HTMLElement }> {
  renderList();
  const list = await screen.findByRole('region', { name: 'Ticket list' });
  const importButton = await waitFor(() => {
    const button = within(list).getByRole('button', { name: 'Import' }) as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    return button;
  });
  fireEvent.click(importButton);
  const dialog = await screen.findByRole('dialog', { name: 'Import tickets' });
  fireEvent.change(within(dialog).getByLabelText('CSV file'), { target: { files: [file] } });
  return { list, dialog };
}

describe('the list Import action', () => {
  it('previews the file, remaps a column, imports the good rows and shows them', async () => {
    const { list, dialog } = await openImport(new File([CSV], 'tickets.csv', { type: 'text/csv' }));

    // "Title" is no field's label or name: not imported by default, so every row misses its subject.
    await waitFor(() =>
      expect(dialog.textContent).toContain('tickets.csv: 4 rows, 0 ready to import, 4 with problems'),
    );
    const titleField = within(dialog).getByLabelText('Field for column Title') as HTMLSelectElement;
    expect(titleField.value).toBe('');
    expect((within(dialog).getByLabelText('Field for column Status') as HTMLSelectElement).value).toBe(
      'status',
    );
    expect(
      (within(dialog).getByRole('button', { name: 'Import 0 rows' }) as HTMLButtonElement).disabled,
    ).toBe(true);

    backend.requests.length = 0;
    fireEvent.change(titleField, { target: { value: 'subject' } });
    await waitFor(() => expect(dialog.textContent).toContain('4 rows, 2 ready to import, 2 with problems'));
    const previews = backend.to('/api/import/support.Ticket/preview', 'POST');
    expect(previews).toHaveLength(1);
    expect(JSON.parse(previews[0]!.body ?? '{}')).toMatchObject({ mapping: { Title: 'subject' } });
    const problems = within(dialog).getByRole('table', { name: 'Rows that will not be imported' });
    const rows = within(problems)
      .getAllByRole('row')
      .slice(1)
      .map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows).toEqual([
      ['3', 'Status', 'Status must be one of: Open, Replied, Closed.'],
      ['5', 'Subject', 'Subject is required.'],
    ]);

    fireEvent.click(within(dialog).getByRole('button', { name: 'Import 2 rows' }));
    await waitFor(() =>
      expect(dialog.textContent).toContain('Import finished: 2 tickets created, 2 rows not imported.'),
    );
    expect(within(dialog).getByRole('table', { name: 'Rows not imported' })).toBeTruthy();
    const started = backend.to('/api/import/support.Ticket', 'POST');
    expect(started).toHaveLength(1);
    expect(started[0]!.headers.get('prefer')).toBe('respond-async');

    const stored = await backend.env.store.list(backend.env.doctypes.get('support.Ticket')!, {
      filters: [],
      orderBy: [{ field: 'name', direction: 'asc' }],
      start: 0,
      pageLength: 10,
    });
    expect(stored.data.map((r) => [r.subject, r.status, r.priority, r.urgent])).toEqual([
      ['Printer jams', 'Open', 'High', true],
      ['Screen, flickers', 'Replied', 'Medium', false],
    ]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    // The list was refreshed: it shows the imported records.
    await waitFor(() => expect(list.textContent).toContain('Screen, flickers'));
  });

  it('says which unique personal fields the preview left for the run to check', async () => {
    // A caller without read_pii: the server does not look up those values among stored records.
    backend.server.use(
      http.post(`${ORIGIN}/api/import/support.Ticket/preview`, () =>
        HttpResponse.json({
          data: {
            mapping: [{ column: 'Subject', field: 'subject' }],
            total: 1,
            valid: 1,
            invalid: 0,
            errors: [],
            unchecked_stored: ['subject'],
          },
        }),
      ),
    );
    const { dialog } = await openImport(new File(['Subject\r\nA\r\n'], 'one.csv', { type: 'text/csv' }));
    await waitFor(() =>
      expect(dialog.textContent).toContain(
        'Subject must be unique, and is personal data you may not see: whether a value is already used',
      ),
    );
    backend.server.resetHandlers();
  });

  it('is not offered to a user who may read but not create', async () => {
    const none = { read: false, create: false, write: false, delete: false, read_pii: false };
    renderList({
      user: 'reader',
      roles: ['Reader'],
      permissions: { 'support.Ticket': { ...none, read: true } },
    });
    const list = await screen.findByRole('region', { name: 'Ticket list' });
    await waitFor(() => expect(within(list).getByRole('button', { name: 'Export CSV' })).toBeTruthy());
    expect(within(list).queryByRole('button', { name: 'Import' })).toBeNull();
  });
});
