/**
 * "Personal data seen by" under a record's form, against the mock backend (its own data and audit routes,
 * the audit log in memory): a System Manager sees who was shown the record's personal data, when and which
 * fields (and the RPC method, for a reveal made by one), again after each read of the record; anyone else
 * sees nothing of it, and the audit API is not asked.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { recordKeys } from '../../../src/shell/data/records';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { createQueryClient } from '../../../src/shell/views/App';
import { RecordPage } from '../../../src/shell/views/RecordPage';
import { RecordSeenBy } from '../../../src/shell/views/RecordSeenBy';
import { adminAuthorization, ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let customer: DocTypeSchema;
let lead: DocTypeSchema;
let seen: string;
let unseen: string;
beforeAll(async () => {
  backend = await startBackend();
  const { doctypes } = await fetchServiceMetadata(`${ORIGIN}/api/meta/crm`);
  customer = doctypes.find((d) => d.name === 'crm.Customer')!;
  lead = doctypes.find((d) => d.name === 'crm.Lead')!;
  const definition = backend.env.doctypes.get('crm.Customer')!;
  const store = (customer_name: string) =>
    backend.env.store.insert(definition, { customer_name, email: 'grace@example.com', status: 'Active' });
  seen = (await store('Seen Ltd')).name;
  unseen = (await store('Unseen Ltd')).name;
});
afterEach(() => {
  cleanup();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

/** Reads a customer through the data API as the mock's Administrator (an audited reveal). */
async function readCustomer(name: string): Promise<void> {
  const res = await fetch(`${ORIGIN}/api/resource/crm.Customer/${name}`, {
    headers: await adminAuthorization(backend),
  });
  expect(res.status).toBe(200);
}

function renderSection(schema: DocTypeSchema, id: string, user?: SessionUser) {
  render(
    <DeskFrame platform={testPlatform(user)}>
      <RecordSeenBy docType={schema.name} schema={schema} id={id} readAt={1} />
    </DeskFrame>,
  );
}

describe('Personal data seen by', () => {
  it('lists to a System Manager who was shown the personal data, when, and which fields', async () => {
    await readCustomer(seen);
    renderSection(customer, seen);
    const section = await screen.findByRole('region', { name: 'Personal data seen by' });
    const item = await within(section).findByRole('listitem');
    expect(item.textContent).toMatch(/^Administrator saw Email, Phone /);
    expect(
      within(item)
        .getByText((_, el) => el?.tagName === 'TIME')
        .getAttribute('datetime'),
    ).toMatch(/^\d{4}-\d\d-\d\dT/);
    const asked = backend.to('/api/audit', 'GET');
    expect(asked).toHaveLength(1);
    expect(Object.fromEntries(asked[0]!.url.searchParams)).toMatchObject({
      doctype: 'crm.Customer',
      record: seen,
      order: 'newest',
    });
    expect(within(section).getByRole('link', { name: 'Open in the audit log' }).getAttribute('href')).toBe(
      `#/audit?doctype=crm.Customer&record=${seen}`,
    );
  });

  it('says so when nobody has been shown the personal data yet', async () => {
    renderSection(customer, unseen);
    expect(await screen.findByText('Nobody has been shown the personal data of this customer.')).toBeTruthy();
  });

  it('shows nothing, and asks nothing, to a user who may not read the audit log', async () => {
    renderSection(customer, seen, {
      user: 'sally',
      roles: ['Sales Manager'],
      permissions: {
        'crm.Customer': { read: true, create: true, write: true, delete: false, read_pii: true },
      },
    });
    expect(screen.queryByRole('region', { name: 'Personal data seen by' })).toBeNull();
    expect(document.body.textContent).toBe('');
    expect(backend.to('/api/audit')).toHaveLength(0);
  });

  it('shows nothing for a DocType without personal data', () => {
    renderSection(lead, 'LEAD-00001');
    expect(screen.queryByRole('region', { name: 'Personal data seen by' })).toBeNull();
    expect(backend.to('/api/audit')).toHaveLength(0);
  });

  it("lists the read that shows the record again after a save, the form's own reveal included", async () => {
    const definition = backend.env.doctypes.get('crm.Customer')!;
    const { name } = await backend.env.store.insert(definition, {
      customer_name: 'Saved Ltd',
      email: 'saved@example.com',
      status: 'Active',
    });
    const client = createQueryClient();
    render(
      <PlatformProvider platform={testPlatform()}>
        <QueryClientProvider client={client}>
          <RecordPage
            docType="crm.Customer"
            label="Customer"
            schema={customer}
            listLabel="Customers"
            titleField="customer_name"
            service="crm"
            id={name}
            back={() => {}}
            onDeleted={() => {}}
          >
            {null}
          </RecordPage>
        </QueryClientProvider>
      </PlatformProvider>,
    );
    const section = await screen.findByRole('region', { name: 'Personal data seen by' });
    // The read that opened the page.
    await waitFor(() => expect(within(section).getAllByRole('listitem')).toHaveLength(1));

    // A save makes the record stale (DocTypePage's onSaved), and the page reads it again: a second reveal.
    await client.invalidateQueries({ queryKey: recordKeys.one('crm.Customer', name) });

    await waitFor(() => expect(within(section).getAllByRole('listitem')).toHaveLength(2));
  });

  it("names the RPC method that read the personal data on the caller's behalf", async () => {
    const definition = backend.env.doctypes.get('crm.Customer')!;
    const { name } = await backend.env.store.insert(definition, {
      customer_name: 'Called Ltd',
      email: 'called@example.com',
      status: 'Active',
    });
    // What an app's method reading the record through records.get appends (docs/permissions.md#reveals-are-audited).
    await backend.env.ctx.audit!.append([
      {
        at: new Date().toISOString(),
        user: 'Administrator',
        via: 'session',
        doctype: 'crm.Customer',
        record: name,
        fields: ['email'],
        route: 'POST /api/method/crm.api.customer_card',
        client_address: '127.0.0.1',
      },
    ]);
    renderSection(customer, name);
    const section = await screen.findByRole('region', { name: 'Personal data seen by' });
    const item = await within(section).findByRole('listitem');
    expect(item.textContent).toMatch(/^Administrator saw Email through crm\.api\.customer_card /);
  });
});
