/**
 * crm's own Customer form (a remote's form, backend/apps/crm/ui) against the mock backend (the platform's own
 * data routes), held to what the Desk's generic form does: personal data the server masked is shown
 * read-only and never sent; an emptied field is cleared; its phone rule is the server's; a refusal reads as
 * the Desk's words; and, through `guardLeave`, leaving with edits asks first and Ctrl+S saves.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer } from '../../../backend/apps/crm/doctypes';
import { CustomerForm } from '../../../backend/apps/crm/ui/CustomerForm';
import { PHONE_FORMAT_MESSAGE, PHONE_PATTERN } from '../../../backend/apps/crm/ui/customer-rules';
import type { MemoryRecordStore } from '../../../backend/data/memory-record-store';
import type { DeskRecord } from '../../../src/contract/remote';
import { type DocTypeSchema, PII_MASK } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { guardForm } from '../../../src/shell/routing/guard-form';
import { LeaveDialog } from '../../../src/shell/views/LeaveDialog';
import { RemoteBoundary } from '../../../src/shell/views/RemoteBoundary';
import { decryptWithBackendKeys, ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import '../support/css-escape';
import { DeskFrame, preloadRemoteScope, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let customer: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend();
  await preloadRemoteScope();
  customer = (await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`)).doctypes.find(
    (d) => d.name === 'crm.Customer',
  )!;
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

/** A stored customer (bypassing the API), as the form will load it. */
const stored = (values: Record<string, unknown>) =>
  store().insertAt(backend.env.doctypes.get('crm.Customer')!, values, new Date());

function renderForm(id?: string) {
  const onSaved = vi.fn<(record: DeskRecord) => void>();
  render(
    <DeskFrame platform={testPlatform()}>
      <RemoteBoundary service="crm" what="The customer form">
        <CustomerForm
          docType="crm.Customer"
          schema={customer}
          id={id}
          onSaved={onSaved}
          onCancel={() => {}}
          guardLeave={guardForm}
        />
      </RemoteBoundary>
      <LeaveDialog />
    </DeskFrame>,
  );
  return { onSaved };
}

const input = (label: RegExp) => screen.getByLabelText(label) as HTMLInputElement;
const type = (label: RegExp, value: string) => fireEvent.change(input(label), { target: { value } });
/** The bodies of the PUTs of customer `name`, decrypted as the backend's middleware does (they carry pii). */
async function putBodies(name: string): Promise<Record<string, unknown>[]> {
  await backend.settle();
  const path = `/api/resource/crm.Customer/${name}`;
  return Promise.all(
    backend
      .to(path, 'PUT')
      .map(
        async (r) => (await decryptWithBackendKeys(backend, r.body, 'PUT', path)) as Record<string, unknown>,
      ),
  );
}

describe('personal data the server masked', () => {
  it('is shown read-only with the Desk hint, and never sent back', async () => {
    const ada = stored({ customer_name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000' });
    backend.server.use(
      http.get(`${ORIGIN}/api/resource/crm.Customer/${ada.name}`, () =>
        HttpResponse.json({
          data: { ...ada, email: PII_MASK, phone: PII_MASK },
          masked_fields: ['email', 'phone'],
        }),
      ),
    );
    const form = renderForm(ada.name);
    const email = (await screen.findByLabelText(/^Email/)) as HTMLInputElement;
    expect(email).toMatchObject({ value: PII_MASK, readOnly: true });
    expect(input(/^Phone/)).toMatchObject({ value: PII_MASK, readOnly: true });
    expect(screen.getAllByText('Hidden: personal data you may not see.')).toHaveLength(2);

    type(/^Customer name/, 'Ada Lovelace');
    fireEvent.click(screen.getByRole('button', { name: 'Save customer' }));
    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));
    const [body] = await putBodies(ada.name);
    expect(body).toMatchObject({ customer_name: 'Ada Lovelace' });
    expect(body).not.toHaveProperty('email');
    expect(body).not.toHaveProperty('phone');
  });
});

describe('saving', () => {
  it('clears a field the user emptied', async () => {
    const grace = stored({ customer_name: 'Grace', phone: '+1 555 0100' });
    const form = renderForm(grace.name);
    await waitFor(() => expect(input(/^Phone/).value).toBe('+1 555 0100'));
    type(/^Phone/, '');
    fireEvent.click(screen.getByRole('button', { name: 'Save customer' }));
    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));
    expect((await putBodies(grace.name))[0]).toMatchObject({ phone: null });
    expect(await store().get(backend.env.doctypes.get('crm.Customer')!, grace.name)).not.toHaveProperty(
      'phone',
    );
  });

  it("refuses a phone number the server would refuse, in the form's own words", async () => {
    renderForm();
    type(/^Customer name/, 'Berlin office');
    type(/^Phone/, '(030) 1234567');
    fireEvent.click(screen.getByRole('button', { name: 'Save customer' }));
    await waitFor(() => expect(screen.getByText(PHONE_FORMAT_MESSAGE)).toBeTruthy());
    await backend.settle();
    expect(backend.to('/api/resource/crm.Customer', 'POST')).toHaveLength(0);
  });

  it('accepts exactly the phone numbers the DocType stores: both check with one pattern', () => {
    const phone = Customer.model.shape.phone;
    for (const sample of [
      '+49 30 1234567',
      '030 1234567',
      '(030) 1234567',
      '+(030) 1234567',
      '555-0100',
      '1234',
      '123',
      '+1 (555) 010.0100/2',
      'call me',
      `1${'2'.repeat(24)}`,
      `1${'2'.repeat(25)}`,
    ]) {
      expect(PHONE_PATTERN.test(sample), sample).toBe(phone.safeParse(sample).success);
    }
  });

  it("tells a user whose right to save was taken away what the Desk tells them, not the server's words", async () => {
    const ada = stored({ customer_name: 'Ada' });
    backend.server.use(
      http.put(`${ORIGIN}/api/resource/crm.Customer/${ada.name}`, () =>
        HttpResponse.json(
          { error: { code: 'forbidden', message: 'You may not write crm.Customer.' } },
          { status: 403 },
        ),
      ),
    );
    renderForm(ada.name);
    await waitFor(() => expect(input(/^Customer name/).value).toBe('Ada'));
    type(/^Customer name/, 'Ada L.');
    fireEvent.click(screen.getByRole('button', { name: 'Save customer' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('You do not have permission to do this. Ask an administrator.');
  });
});

describe('unsaved edits', () => {
  it('are marked, saved by Ctrl+S, and unmarked once saved', async () => {
    const form = renderForm();
    expect(screen.queryByText('Unsaved changes')).toBeNull();
    type(/^Customer name/, 'Saved by keyboard');
    expect(screen.getByText('Unsaved changes')).toBeTruthy();

    fireEvent.keyDown(window, { key: 's', ctrlKey: true });
    await waitFor(() => expect(form.onSaved).toHaveBeenCalledTimes(1));
    expect(backend.to('/api/resource/crm.Customer', 'POST')).toHaveLength(1);
    expect(screen.queryByText('Unsaved changes')).toBeNull();
  });

  it('make leaving ask Save, Discard or Stay, and Stay keeps them', async () => {
    window.location.hash = '#/app/crm.Customer/new';
    await new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
    renderForm();
    type(/^Customer name/, 'Half typed');

    window.location.hash = '#/app/crm.Customer';
    const dialog = await screen.findByRole('alertdialog', { name: 'Leave without saving?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(window.location.hash).toBe('#/app/crm.Customer/new');
    expect(input(/^Customer name/).value).toBe('Half typed');
  });
});
