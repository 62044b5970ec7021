/**
 * The Audit page against the mock backend (its own data and audit routes, the audit log in memory): reveals
 * newest first with the chain's status, filters and pages carried in the route; anyone but a System
 * Manager is refused without the audit API being asked.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeskRoute } from '../../../src/shell/routing/route';
import { AUDIT_PAGE_SIZE, AuditPage } from '../../../src/shell/views/AuditPage';
import { adminAuthorization, ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';
import { catchSavedFiles } from '../support/saved-files';

let backend: TestBackend;
let names: string[];
/** Lists read of all the customers: one reveal per customer each. */
const LISTS = 9;
beforeAll(async () => {
  backend = await startBackend();
  const definition = backend.env.doctypes.get('crm.Customer')!;
  names = [];
  for (const customer_name of ['Ada Ltd', 'Bob Ltd', 'Cy Ltd']) {
    const stored = await backend.env.store.insert(definition, {
      customer_name,
      email: 'x@example.com',
      status: 'Active',
    });
    names.push(stored.name);
  }
  const headers = await adminAuthorization(backend);
  for (let i = 0; i < LISTS; i++) {
    const res = await fetch(`${ORIGIN}/api/resource/crm.Customer`, { headers });
    expect(res.status).toBe(200);
  }
  // The newest entry: one record opened.
  expect((await fetch(`${ORIGIN}/api/resource/crm.Customer/${names[1]}`, { headers })).status).toBe(200);
});
afterEach(() => {
  cleanup();
  backend.requests.length = 0;
  backend.server.resetHandlers();
});
afterAll(() => backend.server.close());

type AuditRoute = Extract<DeskRoute, { kind: 'audit' }>;

function renderPage(route: AuditRoute, roles = ['System Manager']) {
  const navigate = vi.fn();
  render(
    <DeskFrame platform={testPlatform({ user: 'Administrator', roles, permissions: {} })}>
      <AuditPage route={route} navigate={navigate} />
    </DeskFrame>,
  );
  return navigate;
}

const rows = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );

describe('Audit page', () => {
  it('lists the reveals newest first with the chain intact, a page at a time', async () => {
    const navigate = renderPage({ kind: 'audit' });
    const total = LISTS * names.length + 1;
    expect((await screen.findByText(/^The audit log is intact/)).textContent?.replace(/\s+/g, ' ')).toBe(
      `The audit log is intact: ${total} entries, none removed or changed.`,
    );
    await screen.findByRole('table');
    expect(rows()).toHaveLength(AUDIT_PAGE_SIZE);
    // The DocType and fields by their labels, once the Desk knows the DocType's schema.
    await waitFor(() =>
      expect(rows()[0]!.slice(1, 6)).toEqual([
        'Administrator',
        'Customer',
        names[1],
        'Email, Phone',
        'opened · token',
      ]),
    );
    expect(screen.getByText(`1–${AUDIT_PAGE_SIZE} of ${total}`)).toBeTruthy();
    expect(backend.to('/api/audit/verify', 'GET')).toHaveLength(1);

    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(navigate).toHaveBeenCalledWith({ kind: 'audit', filters: undefined, page: 2 }, { replace: true });
  });

  it('shows the page the route names', async () => {
    renderPage({ kind: 'audit', page: 2 });
    const total = LISTS * names.length + 1;
    expect(await screen.findByText(`${AUDIT_PAGE_SIZE + 1}–${total} of ${total}`)).toBeTruthy();
    expect(rows()).toHaveLength(total - AUDIT_PAGE_SIZE);
    expect(screen.getByRole('button', { name: 'Next' })).toHaveProperty('disabled', true);
  });

  it('shows only the reveals the route filters on, and asks the API for those', async () => {
    renderPage({ kind: 'audit', filters: { record: names[0] } });
    await screen.findByRole('table');
    expect(rows().map((r) => r[3])).toEqual(Array(LISTS).fill(names[0]));
    expect(rows().every((r) => r[5] === 'in a list · token')).toBe(true);
    expect(screen.getByLabelText('Record')).toHaveProperty('value', names[0]);
    const asked = backend.to('/api/audit', 'GET').map((r) => Object.fromEntries(r.url.searchParams));
    expect(asked).toEqual([
      {
        order: 'newest',
        record: names[0],
        limit_start: '0',
        limit_page_length: String(AUDIT_PAGE_SIZE),
      },
    ]);
  });

  it('offers the first page when the route names a page past the end', async () => {
    const navigate = renderPage({ kind: 'audit', filters: { record: names[0] }, page: 3 });
    fireEvent.click(await screen.findByRole('button', { name: 'Go to the first page' }));
    expect(navigate).toHaveBeenCalledWith(
      { kind: 'audit', filters: { record: names[0] }, page: 1 },
      { replace: true },
    );
  });

  it('applies the filters typed as a new route, from the first page', async () => {
    const navigate = renderPage({ kind: 'audit' });
    await screen.findByRole('table');
    fireEvent.change(screen.getByLabelText('User'), { target: { value: 'Administrator' } });
    fireEvent.change(screen.getByLabelText('DocType'), { target: { value: 'crm.Customer' } });
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }));
    expect(navigate).toHaveBeenCalledWith({
      kind: 'audit',
      filters: { user: 'Administrator', doctype: 'crm.Customer' },
    });
  });

  it('offers the DocTypes to filter by by their labels, not their internal names, those with personal data only', async () => {
    renderPage({ kind: 'audit' });
    await screen.findByRole('table');
    const select = screen.getByLabelText('DocType') as HTMLSelectElement;
    await waitFor(() =>
      expect([...select.options].find((o) => o.value === 'crm.Customer')?.textContent).toBe('Customer'),
    );
    expect(select.options[0]).toMatchObject({ value: '', textContent: 'Any' });
    // A lead, an item or a ticket holds no personal data: no reveal of one is ever logged.
    expect([...select.options].map((o) => o.value)).toEqual(['', 'crm.Customer']);
  });

  it('says when nothing matches, naming what was filtered by', async () => {
    renderPage({ kind: 'audit', filters: { user: 'nobody' } });
    expect(await screen.findByText('No personal data matching user “nobody” was shown.')).toBeTruthy();
  });

  it('names the DocType filtered by with its label in the empty state', async () => {
    renderPage({ kind: 'audit', filters: { doctype: 'crm.Customer', record: 'CUST-99999', user: 'nobody' } });
    expect(
      await screen.findByText(
        'No personal data matching DocType “Customer”, record “CUST-99999” and user “nobody” was shown.',
      ),
    ).toBeTruthy();
  });

  it('refuses a user who is not a System Manager without asking the audit API', () => {
    renderPage({ kind: 'audit' }, ['Sales Manager']);
    expect(screen.getByText('Only a System Manager may read the audit log.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(backend.requests.filter((r) => r.url.pathname.startsWith('/api/audit'))).toHaveLength(0);
  });

  it('sends the days chosen as their midnights in the browser, the last day whole', async () => {
    renderPage({ kind: 'audit', filters: { from: '2020-01-01', to: '2020-01-31' } });
    expect(await screen.findByText(/^No personal data was shown in clear between .+ and .+\.$/)).toBeTruthy();
    const [asked] = backend.to('/api/audit', 'GET').map((r) => Object.fromEntries(r.url.searchParams));
    expect(asked).toMatchObject({
      from: new Date(2020, 0, 1).toISOString(),
      to: new Date(2020, 1, 1).toISOString(),
    });
    expect(screen.getByLabelText('From')).toHaveProperty('value', '2020-01-01');
    expect(screen.getByLabelText('To')).toHaveProperty('value', '2020-01-31');
  });

  it('lists the reveals of a range that holds them, and applies days typed as a new route', async () => {
    const now = new Date();
    const day = (d: Date) =>
      [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0')).join('-');
    const today = day(now);
    const navigate = renderPage({ kind: 'audit', filters: { from: today, to: today } });
    await screen.findByRole('table');
    expect(rows()).toHaveLength(AUDIT_PAGE_SIZE);
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-01-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Filter' }));
    expect(navigate).toHaveBeenCalledWith({ kind: 'audit', filters: { from: '2026-01-01' } });
  });

  it('saves the reveals filtered as a CSV file, the server writing every one of them', async () => {
    const files = catchSavedFiles();
    try {
      renderPage({ kind: 'audit', filters: { record: names[0] } });
      await screen.findByRole('table');
      fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(files.blob).toBeDefined());
      const [header, ...lines] = (await files.blob!.text()).trim().split('\r\n');
      expect(header).toBe('seq,at,user,via,doctype,record,fields,route,client_address,prev_hash,hash');
      expect(lines).toHaveLength(LISTS);
      expect(lines.every((line) => line.split(',')[5] === names[0])).toBe(true);
      const [asked] = backend.to('/api/audit/export.csv', 'GET');
      expect(Object.fromEntries(asked!.url.searchParams)).toEqual({ record: names[0] });
      expect(files.name).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
    } finally {
      files.restore();
    }
  });

  // Last: it adds an entry to the log the tests above count.
  it('says which RPC method read the personal data on the caller\'s behalf, not "opened"', async () => {
    await backend.env.ctx.audit!.append([
      {
        at: new Date().toISOString(),
        user: 'Administrator',
        via: 'api_key',
        doctype: 'crm.Customer',
        record: 'CUST-RPC-1',
        fields: ['email'],
        route: 'POST /api/method/crm.api.customer_card',
        client_address: '127.0.0.1',
      },
    ]);
    renderPage({ kind: 'audit', filters: { record: 'CUST-RPC-1' } });
    await screen.findByRole('table');
    expect(rows().map((r) => r[5])).toEqual(['through crm.api.customer_card · API key']);
  });

  it('says in one sentence which entry breaks the chain, as the server found it', async () => {
    backend.server.use(
      http.get(`${ORIGIN}/api/audit/verify`, () =>
        HttpResponse.json({
          data: { ok: false, entries: 7, seq: 5, problem: 'crm: entry 5 was changed after it was written' },
        }),
      ),
    );
    renderPage({ kind: 'audit' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent?.replace(/\s+/g, ' ')).toBe(
      'The audit log is not intact: crm: entry 5 was changed after it was written.',
    );
  });
});
