/**
 * The generic list against the mock backend: its loading state lasts until the page's rows are rendered (they
 * render deferred, in the background), and its bulk delete: rows are selected, Delete asks in a dialog
 * (Cancel deletes nothing), and confirming sends one DELETE per selected record and confirms with a notice.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let warehouse: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  warehouse = (await fetchServiceMetadata(`${ORIGIN}/api/meta/stock`)).doctypes.find(
    (d) => d.name === 'stock.Warehouse',
  )!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
});
afterAll(() => backend.server.close());

function platform(): DeskPlatform {
  return testPlatform();
}

/** The generic list of stock.Warehouse, with its own query cache. */
function renderWarehouses(p: DeskPlatform): void {
  render(
    <PlatformProvider platform={p}>
      <QueryClientProvider client={createQueryClient()}>
        <GenericList docType="stock.Warehouse" schema={warehouse} onOpen={() => {}} onCreate={() => {}} />
      </QueryClientProvider>
    </PlatformProvider>,
  );
}

describe('GenericList loading', () => {
  it('shows its loading state until the rows are rendered, and never the empty state of a list with rows', async () => {
    // Every text the page ever held, commit by commit: a state shown for one frame counts.
    const seen: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) seen.push(node.textContent ?? '');
    });
    observer.observe(document.body, { childList: true, subtree: true });
    try {
      renderWarehouses(platform());
      const list = await screen.findByRole('region', { name: 'Warehouse list' });
      await within(list).findByText('1–2 of 2 warehouses');
      expect(within(list).getAllByRole('row').length).toBeGreaterThan(2);
    } finally {
      observer.disconnect();
    }
    expect(seen.some((text) => text.includes('Loading warehouses'))).toBe(true);
    expect(seen.filter((text) => text.includes('No warehouses yet.'))).toEqual([]);
  });
});

describe('GenericList bulk delete', () => {
  it('asks before deleting the selected rows, deletes nothing on Cancel, and deletes each on confirmation', async () => {
    const p = platform();
    renderWarehouses(p);
    const list = await screen.findByRole('region', { name: 'Warehouse list' });
    await within(list).findByText('1–2 of 2 warehouses');
    fireEvent.click(within(list).getByRole('checkbox', { name: 'Select all on this page' }));
    const selection = within(list).getByRole('region', { name: 'Selection' });
    expect(selection.textContent).toContain('2 warehouses selected');

    fireEvent.click(within(selection).getByRole('button', { name: 'Delete' }));
    let dialog = await screen.findByRole('alertdialog', { name: 'Delete 2 warehouses?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(backend.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);

    fireEvent.click(within(selection).getByRole('button', { name: 'Delete' }));
    dialog = await screen.findByRole('alertdialog', { name: 'Delete 2 warehouses?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(backend.requests.filter((r) => r.method === 'DELETE')).toHaveLength(2));
    await within(list).findByText('No warehouses yet.');
    expect(p.notices.getSnapshot().map((n) => n.message)).toContain('Deleted 2 warehouses.');
  });
});
