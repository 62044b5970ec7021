/**
 * The generic form against the mock backend (the platform's own data routes): nothing is lost in silence
 * and nothing is offered that the user may not do. A read-only user gets no Save; a masked field is shown
 * masked and cannot be edited, also once taken from a newer version, and a user without read_pii sends
 * only the personal data they changed; Ctrl+S saves; a Link whose text names no record blocks Save; a save of a
 * record changed meanwhile gets 409 `conflict` and shows both versions; leaving a changed form asks first.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MemoryRecordStore } from '../../../backend/data/memory-record-store';
import type { DeskRecord } from '../../../src/contract/remote';
import { type DocTypeSchema, PII_MASK } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import type { SessionUser } from '../../../src/shell/platform/session';
import { GenericForm } from '../../../src/shell/views/GenericForm';
import { LeaveDialog } from '../../../src/shell/views/LeaveDialog';
import {
  decryptWithBackendKeys,
  ORIGIN,
  startBackend,
  storedRecord,
  type TestBackend,
} from '../../sdk/helpers';
import '../support/css-escape';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let item: DocTypeSchema;
let customer: DocTypeSchema;
let ticket: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  item = (await fetchServiceMetadata(`${ORIGIN}/api/meta/stock`)).doctypes.find(
    (d) => d.name === 'stock.Item',
  )!;
  customer = (await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`)).doctypes.find(
    (d) => d.name === 'crm.Customer',
  )!;
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes[0]!;
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

const store = () => backend.env.store as MemoryRecordStore;
const doctype = (name: string) => backend.env.doctypes.get(name)!;

function renderForm(
  schema: DocTypeSchema,
  options: { id?: string; readOnly?: boolean; user?: SessionUser } = {},
) {
  const onSaved = vi.fn<(record: DeskRecord) => void>();
  render(
    <DeskFrame platform={testPlatform(options.user)}>
      <GenericForm
        docType={schema.name}
        schema={schema}
        id={options.id}
        readOnly={options.readOnly}
        onSaved={onSaved}
        onCancel={() => {}}
      />
      <LeaveDialog />
    </DeskFrame>,
  );
  return { onSaved };
}

const input = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: RegExp, value: string) => fireEvent.change(input(label), { target: { value } });
const errorOf = (element: HTMLElement) =>
  document.getElementById(element.getAttribute('aria-describedby')?.split(' ')[0] ?? '')?.textContent;

describe('a user who may not save', () => {
  it('sees the record read-only: values shown, inputs disabled, no Save', async () => {
    const stored = store().insertAt(
      doctype('stock.Item'),
      { item_code: 'RO-1', item_name: 'Anvil' },
      new Date(),
    );
    renderForm(item, { id: stored.name, readOnly: true });

    expect((await screen.findByLabelText(/^Item Name/)) as HTMLInputElement).toMatchObject({
      value: 'Anvil',
      disabled: true,
    });
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.getByText(/You may view this item but not change it/)).toBeTruthy();
    // Ctrl+S does nothing either.
    fireEvent.keyDown(window, { key: 's', ctrlKey: true });
    await backend.settle();
    expect(backend.to(`/api/resource/stock.Item/${stored.name}`, 'PUT')).toHaveLength(0);
  });

  it('sees a masked field as masked and not editable, the other fields editable', async () => {
    const stored = store().insertAt(
      doctype('crm.Customer'),
      { customer_name: 'Grace', email: 'grace@example.com' },
      new Date(),
    );
    // The server masks personal data for a reader without read_pii (docs/permissions.md#personal-data).
    backend.server.use(
      http.get(`${ORIGIN}/api/resource/crm.Customer/${stored.name}`, () =>
        HttpResponse.json({ data: { ...stored, email: PII_MASK }, masked_fields: ['email'] }),
      ),
    );
    renderForm(customer, { id: stored.name });

    const email = (await screen.findByLabelText(/^Email/)) as HTMLInputElement;
    expect(email.value).toBe(PII_MASK);
    expect(email.readOnly).toBe(true);
    expect(errorOf(email)).toBe('Hidden: personal data you may not see.');
    // The other fields stay editable.
    expect(input(/^Customer Name/).disabled).toBe(false);
  });
});

/** A Sales User: changes customers, sees none of their personal data. */
const SALES_USER: SessionUser = {
  user: 'sally',
  roles: ['Sales User'],
  permissions: {
    'crm.Customer': { read: true, create: true, write: true, delete: false, read_pii: false },
  },
};

/** The fields an update sent, decrypted when the form encrypted them. */
async function sentBody(path: string, index: number): Promise<Record<string, unknown>> {
  await backend.settle();
  const put = backend.to(path, 'PUT')[index]!;
  return (put.headers.get('content-type') ?? '').startsWith('application/jose')
    ? ((await decryptWithBackendKeys(backend, put.body, 'PUT', path)) as Record<string, unknown>)
    : (JSON.parse(put.body) as Record<string, unknown>);
}

describe('a user who may not read personal data', () => {
  it('sends no personal-data field they did not change (the server would record it as changed)', async () => {
    const stored = store().insertAt(
      doctype('crm.Customer'),
      { customer_name: 'Grace', email: 'grace@example.com', status: 'Active' },
      new Date('2026-01-01T00:00:00Z'),
    );
    const path = `/api/resource/crm.Customer/${stored.name}`;
    // The email is masked; the phone is empty, so it is shown (and editable) as empty.
    backend.server.use(
      http.get(`${ORIGIN}${path}`, () =>
        HttpResponse.json({ data: { ...stored, email: PII_MASK }, masked_fields: ['email'] }),
      ),
    );
    const form = renderForm(customer, { id: stored.name, user: SALES_USER });
    await screen.findByDisplayValue('Grace');
    type(/^Customer Name/, 'Grace Hopper');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));

    const first = await sentBody(path, 0);
    expect(first).toMatchObject({ customer_name: 'Grace Hopper' });
    expect(Object.keys(first)).not.toContain('phone');
    expect(Object.keys(first)).not.toContain('email');

    // A phone typed in is sent.
    type(/^Phone/, '+44 20 7946 0958');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(2));
    expect(await sentBody(path, 1)).toMatchObject({ phone: '+44 20 7946 0958' });
    expect(Object.keys(await sentBody(path, 1))).not.toContain('email');
  });
});

describe('a user who may not read personal data, meeting a newer version', () => {
  it('shows personal data the saved version masks as hidden once taken, not as a value to edit', async () => {
    const stored = store().insertAt(
      doctype('crm.Customer'),
      { customer_name: 'Grace', status: 'Active' },
      new Date('2026-01-01T00:00:00Z'),
    );
    const path = `/api/resource/crm.Customer/${stored.name}`;
    // Reads as the server answers a Sales User: the phone masked once it holds a value.
    backend.server.use(
      http.get(`${ORIGIN}${path}`, async () => {
        const now = (await storedRecord(backend, 'crm.Customer', stored.name))!;
        return HttpResponse.json({
          data: { ...now, ...(now.phone ? { phone: PII_MASK } : {}) },
          masked_fields: now.phone ? ['phone'] : [],
        });
      }),
    );
    renderForm(customer, { id: stored.name, user: SALES_USER });
    await screen.findByDisplayValue('Grace');
    // Empty when loaded: shown, and editable.
    expect(input(/^Phone/).readOnly).toBe(false);
    // Someone else adds a phone meanwhile.
    await store().update(doctype('crm.Customer'), stored.name, {
      customer_name: 'Grace',
      phone: '+44 20 7946 0958',
    });
    type(/^Customer Name/, 'Grace Hopper');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const panel = await screen.findByRole('alert');
    fireEvent.click(within(panel).getByRole('button', { name: 'Use the saved version' }));

    const phone = input(/^Phone/);
    expect(phone.value).toBe(PII_MASK);
    expect(phone.readOnly).toBe(true);
    expect(errorOf(phone)).toBe('Hidden: personal data you may not see.');
  });
});

describe('no silent loss', () => {
  it('saves with Ctrl+S (and ⌘S)', async () => {
    const form = renderForm(item);
    type(/^Item Code/, 'KEY-1');
    type(/^Item Name/, 'Saved by keyboard');

    fireEvent.keyDown(window, { key: 's', ctrlKey: true });

    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));
    expect(backend.to('/api/resource/stock.Item', 'POST')).toHaveLength(1);
    expect(form.onSaved.mock.calls[0]![0]).toMatchObject({ item_name: 'Saved by keyboard' });
  });

  it('shows an inline error for Link text that names no record, and sends nothing on Save', async () => {
    renderForm(ticket);
    type(/^Subject/, 'Printer on fire');
    const link = screen.getByRole('combobox', { name: /^Customer/ }) as HTMLInputElement;
    fireEvent.focus(link);
    fireEvent.change(link, { target: { value: 'Nobody at all' } });
    fireEvent.blur(link);

    await waitFor(() =>
      expect(errorOf(link)).toBe(
        'No record matches “Nobody at all”. Pick one from the list, or clear Customer.',
      ),
    );
    expect(link.value).toBe('Nobody at all');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await backend.settle();
    expect(backend.to('/api/resource/support.Ticket', 'POST')).toHaveLength(0);
    expect(link.getAttribute('aria-invalid')).toBe('true');
  });

  it('answers a save of a record changed meanwhile with both versions, and saves mine when asked', async () => {
    const loaded = store().insertAt(
      doctype('stock.Item'),
      { item_code: 'C-1', item_name: 'Original' },
      new Date('2026-01-01T00:00:00Z'),
    );
    renderForm(item, { id: loaded.name });
    await screen.findByDisplayValue('Original');
    // Someone else saves the record after this form loaded it.
    await store().update(doctype('stock.Item'), loaded.name, { item_code: 'C-1', item_name: 'Theirs' });

    type(/^Item Name/, 'Mine');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));

    const panel = await screen.findByRole('alert');
    expect(panel.textContent).toContain('Someone else saved this record while you were editing it.');
    const row = within(panel).getByRole('row', { name: /Item Name/ });
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['Mine', 'Theirs']);
    const puts = backend.to(`/api/resource/stock.Item/${loaded.name}`, 'PUT');
    expect(puts).toHaveLength(1);
    expect(JSON.parse(puts[0]!.body)).toMatchObject({ item_name: 'Mine', modified: loaded.modified });
    expect((await storedRecord(backend, 'stock.Item', loaded.name))?.item_name).toBe('Theirs');

    fireEvent.click(within(panel).getByRole('button', { name: 'Save my version' }));

    await waitFor(async () =>
      expect((await storedRecord(backend, 'stock.Item', loaded.name))?.item_name).toBe('Mine'),
    );
    await waitFor(() => expect(screen.queryByText(/Someone else saved this record/)).toBeNull());
  });

  it('takes the saved version when the user chooses it, and sends nothing', async () => {
    const loaded = store().insertAt(
      doctype('stock.Item'),
      { item_code: 'C-2', item_name: 'Original' },
      new Date('2026-01-01T00:00:00Z'),
    );
    renderForm(item, { id: loaded.name });
    await screen.findByDisplayValue('Original');
    await store().update(doctype('stock.Item'), loaded.name, { item_code: 'C-2', item_name: 'Theirs' });
    type(/^Item Name/, 'Mine');
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    const panel = await screen.findByRole('alert');

    fireEvent.click(within(panel).getByRole('button', { name: 'Use the saved version' }));

    expect(input(/^Item Name/).value).toBe('Theirs');
    expect(screen.queryByText('Unsaved changes')).toBeNull();
    expect(backend.to(`/api/resource/stock.Item/${loaded.name}`, 'PUT')).toHaveLength(1);
  });

  it('asks Save, Discard or Stay when a changed form is left, and Stay keeps the edits', async () => {
    window.location.hash = '#/app/stock.Item/new';
    await new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    renderForm(item);
    type(/^Item Name/, 'Half typed');
    expect(screen.getByText('Unsaved changes')).toBeTruthy();

    window.location.hash = '#/app/stock.Item';
    const dialog = await screen.findByRole('alertdialog', { name: 'Leave without saving?' });
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Stay', 'Discard changes', 'Save']);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));

    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(window.location.hash).toBe('#/app/stock.Item/new');
    expect(input(/^Item Name/).value).toBe('Half typed');
  });
});
