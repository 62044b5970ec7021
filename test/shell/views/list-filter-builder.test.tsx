/**
 * The list's filter builder and column picker against the mock backend (the backend's own routes): a
 * condition built in the panel filters the request and the rows, shows as a removable chip and goes into the
 * URL, and the same URL shows the same rows; a flagged field only offers equals / not equals, and the API
 * answers its condition; conditions and columns are remembered per user and DocType, the URL winning when it
 * names them; picked columns are the table's and the export's.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { formatListState, parseListState } from '../../../src/shell/routing/route';
import { GenericList } from '../../../src/shell/views/GenericList';
import { listMemoryKey } from '../../../src/shell/views/list/list-memory';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';
import { catchSavedFiles } from '../support/saved-files';

let backend: TestBackend;
let customer: DocTypeSchema;
let customers: Array<Record<string, unknown>>;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  customer = (await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`)).doctypes.find(
    (d) => d.name === 'crm.Customer',
  )!;
  customers = (
    await backend.env.store.list(backend.env.doctypes.get('crm.Customer')!, {
      filters: [],
      orderBy: [{ field: 'name', direction: 'asc' }],
      start: 0,
      pageLength: 50,
    })
  ).data as Array<Record<string, unknown>>;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  localStorage.clear();
  vi.restoreAllMocks();
});
afterAll(() => backend.server.close());

/** The list with its state in a URL query, as the Desk keeps it in the hash; `urls` logs each new query. */
function RoutedList({ initial, urls }: { initial: string; urls: string[] }): React.JSX.Element {
  const [query, setQuery] = useState(initial);
  return (
    <GenericList
      docType="crm.Customer"
      schema={customer}
      onOpen={() => {}}
      onCreate={() => {}}
      state={parseListState(query)}
      onStateChange={(state) => {
        const next = formatListState(state);
        urls.push(next);
        setQuery(next);
      }}
    />
  );
}

function renderList(initial = '', platform: DeskPlatform = testPlatform()) {
  const urls: string[] = [];
  render(
    <DeskFrame platform={platform}>
      <RoutedList initial={initial} urls={urls} />
    </DeskFrame>,
  );
  return urls;
}

/** The `filters` of the last list request. */
function lastFilters(): unknown {
  const asked = backend.to('/api/resource/crm.Customer', 'GET');
  return JSON.parse(asked.at(-1)?.url.searchParams.get('filters') ?? '[]');
}

const rowNames = (list: HTMLElement) =>
  within(list)
    .getAllByRole('row')
    .slice(1)
    .map((r) => r.querySelector('td a')?.textContent);

async function addCondition(field: string, op: string, value?: (panel: HTMLElement) => void) {
  const list = screen.getByRole('region', { name: 'Customer list' });
  fireEvent.click(within(list).getByRole('button', { name: /^Filter/ }));
  const panel = await within(list).findByRole('form', { name: 'New filter' });
  fireEvent.change(within(panel).getByLabelText('Field'), { target: { value: field } });
  fireEvent.change(within(panel).getByLabelText('Operator'), { target: { value: op } });
  value?.(panel);
  fireEvent.click(within(panel).getByRole('button', { name: 'Add filter' }));
}

describe('the filter builder', () => {
  it('filters by a built condition, shows it as a chip, keeps it in the URL, and the URL shows the same rows', async () => {
    const prospect = customers.find((c) => c.status === 'Prospect')!;
    const urls = renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    await within(list).findByText(`1–${customers.length} of ${customers.length} customers`);

    await addCondition('status', 'in', (panel) => {
      fireEvent.click(within(panel).getByRole('checkbox', { name: 'Prospect' }));
    });
    await within(list).findByText('1–1 of 1 customer');
    expect(lastFilters()).toEqual([['status', 'in', ['Prospect']]]);
    expect(rowNames(list)).toEqual([prospect.customer_name]);
    const chips = within(list).getByRole('list', { name: 'Filters' });
    expect(chips.textContent).toContain('Status is one of Prospect');
    const url = urls.at(-1)!;
    expect(new URLSearchParams(url).getAll('filter')).toEqual(['status:in:["Prospect"]']);

    // The same URL in a new Desk (another tab): the same rows.
    cleanup();
    localStorage.clear();
    renderList(url);
    const again = await screen.findByRole('region', { name: 'Customer list' });
    await within(again).findByText('1–1 of 1 customer');
    expect(rowNames(again)).toEqual([prospect.customer_name]);

    // Removing the chip lists every customer again.
    fireEvent.click(within(again).getByRole('button', { name: 'Remove filter: Status is one of Prospect' }));
    await within(again).findByText(`1–${customers.length} of ${customers.length} customers`);
    expect(within(again).queryByRole('list', { name: 'Filters' })).toBeNull();
  });

  it('moves focus into the panel as it opens, and Escape closes it back onto its button', async () => {
    renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    const button = within(list).getByRole('button', { name: /^Filter/ });
    fireEvent.click(button);
    const panel = await within(list).findByRole('form', { name: 'New filter' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement).toBe(within(panel).getByLabelText('Field'));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(within(list).queryByRole('form', { name: 'New filter' })).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  it('combines conditions with AND', async () => {
    renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    await within(list).findByText(`1–${customers.length} of ${customers.length} customers`);
    await addCondition('status', 'eq', (panel) => {
      fireEvent.change(within(panel).getByLabelText('Value'), { target: { value: 'Active' } });
    });
    const active = customers.filter((c) => c.status === 'Active');
    await within(list).findByText(`1–${active.length} of ${active.length} customers`);
    const first = active[0]!;
    await addCondition('customer_name', 'like', (panel) => {
      fireEvent.change(within(panel).getByLabelText('Value'), {
        target: { value: String(first.customer_name) },
      });
    });
    await within(list).findByText('1–1 of 1 customer');
    expect(lastFilters()).toEqual([
      ['status', '=', 'Active'],
      ['customer_name', 'like', `%${first.customer_name}%`],
    ]);
  });

  it('offers a personal-data field only equals and not equals, and the API answers its condition', async () => {
    const target = customers[0]!;
    renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    await within(list).findByText(`1–${customers.length} of ${customers.length} customers`);
    fireEvent.click(within(list).getByRole('button', { name: /^Filter/ }));
    const panel = await within(list).findByRole('form', { name: 'New filter' });
    fireEvent.change(within(panel).getByLabelText('Field'), { target: { value: 'email' } });
    const operators = within(panel).getByLabelText('Operator') as HTMLSelectElement;
    expect([...operators.options].map((o) => o.textContent)).toEqual(['equals', 'not equals']);
    fireEvent.change(within(panel).getByLabelText('Value'), { target: { value: String(target.email) } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Add filter' }));
    await within(list).findByText('1–1 of 1 customer');
    expect(lastFilters()).toEqual([['email', '=', target.email]]);
    expect(rowNames(list)).toEqual([target.customer_name]);
    // Its value stays in the URL only: the browser's storage does not keep personal data past the session.
    expect(localStorage.getItem(listMemoryKey('Administrator', 'crm.Customer'))).toBeNull();
  });

  it('remembers conditions and columns per user and DocType; the URL wins when it names them', async () => {
    const urls = renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    await within(list).findByText(`1–${customers.length} of ${customers.length} customers`);
    await addCondition('status', 'eq', (panel) => {
      fireEvent.change(within(panel).getByLabelText('Value'), { target: { value: 'Prospect' } });
    });
    await within(list).findByText('1–1 of 1 customer');
    expect(urls.at(-1)).toBe('filter=status%3Aeq%3AProspect');
    expect(JSON.parse(localStorage.getItem(listMemoryKey('Administrator', 'crm.Customer'))!)).toEqual({
      conditions: ['status:eq:Prospect'],
      columns: [],
    });

    // The list opened again without them in its URL: the remembered condition, written into the URL.
    cleanup();
    const reopened = renderList();
    const again = await screen.findByRole('region', { name: 'Customer list' });
    await within(again).findByText('1–1 of 1 customer');
    expect(reopened).toContain('filter=status%3Aeq%3AProspect');
    expect(lastFilters()).toEqual([['status', '=', 'Prospect']]);

    // A URL with its own condition wins over the remembered one.
    cleanup();
    renderList('filter=status:eq:Active');
    const shared = await screen.findByRole('region', { name: 'Customer list' });
    const active = customers.filter((c) => c.status === 'Active').length;
    await within(shared).findByText(`1–${active} of ${active} customers`);
    expect(lastFilters()).toEqual([['status', '=', 'Active']]);

    // Another user remembers nothing of it.
    cleanup();
    localStorage.setItem(
      listMemoryKey('Administrator', 'crm.Customer'),
      JSON.stringify({ conditions: ['status:eq:Prospect'] }),
    );
    renderList('', testPlatform({ user: 'ada', roles: ['System Manager'], permissions: {} }));
    const other = await screen.findByRole('region', { name: 'Customer list' });
    await within(other).findByText(`1–${customers.length} of ${customers.length} customers`);
    expect(lastFilters()).toEqual([]);
  });
});

describe('the column picker', () => {
  it('shows the picked columns in their order, keeps them in the URL, and exports them', async () => {
    const urls = renderList();
    const list = await screen.findByRole('region', { name: 'Customer list' });
    await within(list).findByText(`1–${customers.length} of ${customers.length} customers`);
    const headers = () =>
      within(list)
        .getAllByRole('columnheader')
        .map((h) => h.textContent?.replace(/[▲▼↕]/g, ''))
        .filter(Boolean);
    // Every list ends with who changed each record last, whatever columns are picked.
    expect(headers()).toEqual(['Customer Name', 'Status', 'Last changed by']);

    fireEvent.click(within(list).getByRole('button', { name: 'Columns' }));
    const picker = await within(list).findByRole('group', { name: 'Shown columns' });
    fireEvent.click(within(picker).getByRole('checkbox', { name: 'Email' }));
    fireEvent.click(within(picker).getByRole('button', { name: 'Move Status up' }));
    await waitFor(() => expect(headers()).toEqual(['Status', 'Customer Name', 'Email', 'Last changed by']));
    // The record's link stays on its title, not on the column that is now first.
    const first = customers[0]!;
    expect(
      within(list)
        .getByRole('link', { name: String(first.customer_name) })
        .getAttribute('href'),
    ).toBe(`#/app/crm.Customer/${first.name}`);
    expect(within(list).queryByRole('link', { name: String(first.status) })).toBeNull();
    expect(new URLSearchParams(urls.at(-1)).get('columns')).toBe('status,customer_name,email');
    expect(JSON.parse(localStorage.getItem(listMemoryKey('Administrator', 'crm.Customer'))!).columns).toEqual(
      ['status', 'customer_name', 'email'],
    );

    // The export: the same columns, in the same order.
    const files = catchSavedFiles();
    const exportButton = await waitFor(() => {
      const button = within(list).getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement;
      expect(button.disabled).toBe(false);
      return button;
    });
    fireEvent.click(exportButton);
    await waitFor(() => expect(files.blob).toBeDefined());
    const lines = (await files.blob!.text()).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('ID,Status,Customer Name,Email');
    // The export is asked for the picked columns in their order (the ID column is always its first).
    const asked = backend.to('/api/resource/crm.Customer/export.csv', 'GET').at(-1)!;
    expect(JSON.parse(asked.url.searchParams.get('fields')!)).toEqual(['status', 'customer_name', 'email']);

    // Back to the DocType's own columns.
    fireEvent.click(within(picker).getByRole('button', { name: 'Default columns' }));
    await waitFor(() => expect(headers()).toEqual(['Customer Name', 'Status', 'Last changed by']));
    expect(urls.at(-1)).not.toContain('columns');
  });

  it('offers personal data only to who may read it', async () => {
    const none = { read: false, create: false, write: false, delete: false, read_pii: false };
    renderList(
      '',
      testPlatform({
        user: 'sam',
        roles: ['Support Agent'],
        permissions: { 'crm.Customer': { ...none, read: true } },
      }),
    );
    const list = await screen.findByRole('region', { name: 'Customer list' });
    fireEvent.click(within(list).getByRole('button', { name: 'Columns' }));
    const picker = await within(list).findByRole('group', { name: 'Shown columns' });
    const offered = within(picker)
      .getAllByRole('checkbox')
      .map((c) => c.parentElement?.textContent);
    expect(offered).toEqual(['Customer Name', 'Status']);
  });
});
