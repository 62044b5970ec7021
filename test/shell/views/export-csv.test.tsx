/**
 * The generic list's CSV export against the mock backend's seeded records: the file holds the rows the
 * list's filter matches (every page of them, not only the one on screen), with its columns and the record
 * ids, streamed by the server from one request carrying the list's filter, sort and columns.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { testPlatform } from '../support/desk-frame';
import { catchSavedFiles } from '../support/saved-files';

let backend: TestBackend;
let ticket: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes[0]!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  vi.restoreAllMocks();
});
afterAll(() => backend.server.close());

describe('the list CSV export', () => {
  it("saves every row the list's filter matches, on all pages, with its columns", async () => {
    const tickets = backend.env.doctypes.get('support.Ticket')!;
    for (const n of [1, 2, 3, 4])
      await backend.env.store.insert(tickets, {
        subject: `Export, part ${n}`,
        status: 'Replied',
        priority: 'Low',
      });
    const open = (
      await backend.env.store.list(backend.env.doctypes.get('support.Ticket')!, {
        filters: [{ field: 'status', op: '=', value: 'Replied' }],
        orderBy: [{ field: 'name', direction: 'asc' }],
        start: 0,
        pageLength: 500,
      })
    ).data;
    expect(open.length).toBeGreaterThan(1);
    const files = catchSavedFiles();
    render(
      <PlatformProvider platform={testPlatform()}>
        <QueryClientProvider client={createQueryClient()}>
          <GenericList
            docType="support.Ticket"
            schema={ticket}
            onOpen={() => {}}
            onCreate={() => {}}
            state={{
              filters: { status: 'Replied' },
              page: 1,
              pageSize: 1,
              sort: { field: 'name', order: 'asc' },
            }}
            onStateChange={() => {}}
          />
        </QueryClientProvider>
      </PlatformProvider>,
    );
    const list = await screen.findByRole('region', { name: 'Ticket list' });
    await waitFor(() => expect(list.textContent).toContain(`of ${open.length} tickets`));
    backend.requests.length = 0;

    // The button holds its place while the export's code loads, and acts once it has.
    const exportButton = await waitFor(() => {
      const button = within(list).getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement;
      expect(button.disabled).toBe(false);
      return button;
    });
    fireEvent.click(exportButton);

    await waitFor(() => expect(files.blob).toBeDefined());
    const lines = (await files.blob!.text()).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('ID,Subject,Customer,Status,Priority');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(open.map((r) => r.name));
    expect(lines.slice(1).every((l) => l.includes(',Replied,'))).toBe(true);
    // A comma in a value is quoted, not a new column.
    expect(lines).toContain(
      `${open.find((r) => r.subject === 'Export, part 1')!.name},"Export, part 1",,Replied,Low`,
    );
    // One request, the server's stream: the list's filter, sort and columns, not a page of records.
    expect(backend.to('/api/resource/support.Ticket', 'GET')).toEqual([]);
    const asked = backend.to('/api/resource/support.Ticket/export.csv', 'GET');
    expect(asked).toHaveLength(1);
    expect(JSON.parse(asked[0]!.url.searchParams.get('filters') ?? '[]')).toEqual([
      ['status', '=', 'Replied'],
    ]);
    expect(asked[0]!.url.searchParams.get('order_by')).toBe('name asc');
    expect(JSON.parse(asked[0]!.url.searchParams.get('fields') ?? '[]')).toEqual([
      'subject',
      'customer',
      'status',
      'priority',
    ]);
    expect(within(list).getByRole('button', { name: 'Export CSV' })).toBeTruthy();
  });
});
