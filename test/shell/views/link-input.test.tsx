/**
 * The Link field of the generic form, against the mock backend (the platform's own routes over the seeded
 * records): typing searches the target DocType by title once per pause, the keyboard picks a record, and the
 * record's id is what is saved; the list shows the linked record's title as a link to it.
 */
import { Refine } from '@refinedev/core';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeskRecord } from '../../../src/contract/remote';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericForm } from '../../../src/shell/views/GenericForm';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, storedRecord, type TestBackend } from '../../sdk/helpers';
import '../support/css-escape';
import { testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: DocTypeSchema;
let customers: Array<{ name: string; title: string }>;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes[0]!;
  const listed = await backend.env.store.list(backend.env.doctypes.get('crm.Customer')!, {
    filters: [],
    orderBy: [{ field: 'name', direction: 'asc' }],
    start: 0,
    pageLength: 10,
  });
  customers = listed.data.map((r) => ({ name: r.name, title: String(r.customer_name) }));
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

function platform(): DeskPlatform {
  return testPlatform();
}

function renderIn(p: DeskPlatform, children: React.ReactNode) {
  render(
    <PlatformProvider platform={p}>
      <Refine
        dataProvider={p.dataProvider}
        options={{ reactQuery: { clientConfig: createQueryClient() }, disableTelemetry: true }}
      >
        {children}
      </Refine>
    </PlatformProvider>,
  );
}

const customerSearches = () =>
  backend
    .to('/api/resource/crm.Customer', 'GET')
    .filter((r) => (r.url.searchParams.get('filters') ?? '').includes('customer_name'));

describe('the Link field', () => {
  it('starts a new ticket from the defaults, searches customers once per pause, and saves the picked id', async () => {
    const onSaved = vi.fn<(record: DeskRecord) => void>();
    renderIn(
      platform(),
      <GenericForm docType="support.Ticket" schema={ticket} onSaved={onSaved} onCancel={() => {}} />,
    );
    expect((screen.getByLabelText(/^Status/) as HTMLSelectElement).value).toBe('Open');
    expect((screen.getByLabelText(/^Priority/) as HTMLSelectElement).value).toBe('Medium');
    expect(screen.getByLabelText(/^Description/).tagName).toBe('TEXTAREA');

    fireEvent.change(screen.getByLabelText(/^Subject/), { target: { value: 'Screen flickers' } });
    const combobox = screen.getByRole('combobox', { name: /^Customer/ });
    const target = customers[1]!;
    const prefix = target.title.slice(0, 4);
    // Typing letter by letter without a pause sends one search, for the whole text.
    for (let i = 1; i <= prefix.length; i++)
      fireEvent.change(combobox, { target: { value: prefix.slice(0, i) } });
    await waitFor(() => expect(customerSearches()).toHaveLength(1));
    const searches = customerSearches();
    expect(searches[0]!.url.searchParams.get('filters')).toContain(`%${prefix}%`);
    const option = await screen.findByRole('option', {
      name: new RegExp(target.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    });

    // The keyboard moves to the option and picks it.
    for (let i = 0; i < 5 && option.getAttribute('aria-selected') !== 'true'; i++) {
      fireEvent.keyDown(combobox, { key: 'ArrowDown' });
    }
    fireEvent.keyDown(combobox, { key: 'Enter' });
    await waitFor(() => expect((combobox as HTMLInputElement).value).toBe(target.title));

    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const saved = onSaved.mock.calls[0]![0];
    expect(saved).toMatchObject({ subject: 'Screen flickers', customer: target.name });
    expect(await storedRecord(backend, 'support.Ticket', String(saved.name))).toMatchObject({
      customer: target.name,
    });
  });

  it('keeps its list open when focus leaves and comes straight back, as when a dialog hands focus back', async () => {
    renderIn(
      platform(),
      <GenericForm docType="support.Ticket" schema={ticket} onSaved={() => {}} onCancel={() => {}} />,
    );
    const combobox = screen.getByRole('combobox', { name: /^Customer/ });
    const listbox = screen.getByRole('listbox', { hidden: true });
    fireEvent.focus(combobox);
    fireEvent.blur(combobox);
    // Back before the list's closing moment has passed: the list stays, and takes the search.
    fireEvent.focus(combobox);
    const title = customers[0]!.title;
    fireEvent.change(combobox, { target: { value: title.slice(0, 4) } });
    await screen.findByRole('option', { name: new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(listbox.hidden).toBe(false);
    expect(combobox.getAttribute('aria-expanded')).toBe('true');
  });

  it('never offers the records of an earlier search for text that matches none of them', async () => {
    renderIn(
      platform(),
      <GenericForm docType="support.Ticket" schema={ticket} onSaved={() => {}} onCancel={() => {}} />,
    );
    const combobox = screen.getByRole('combobox', { name: /^Customer/ });
    fireEvent.focus(combobox);
    // Opening the list shows the first customers (the empty search).
    await screen.findByRole('option', {
      name: new RegExp(customers[0]!.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    });
    fireEvent.change(combobox, { target: { value: 'Nobody at all' } });
    // Right away, before the search for the new text has answered, the old options are gone.
    const offered = () => document.querySelectorAll('.desk-link__option').length;
    expect(offered()).toBe(0);
    await screen.findByText('No matching records.');
    expect(offered()).toBe(0);
  });

  it("lists tickets with the linked customer's title as a link to the customer", async () => {
    renderIn(
      platform(),
      <GenericList docType="support.Ticket" schema={ticket} onOpen={() => {}} onCreate={() => {}} />,
    );
    const list = await screen.findByRole('region', { name: 'Ticket list' });
    const first = customers[0]!;
    const link = await within(list).findByRole('link', { name: first.title });
    expect(link.getAttribute('href')).toBe(`#/app/crm.Customer/${first.name}`);
  });
});
