/**
 * The Desk as a restricted user sees it (the sample apps' Support Agent: reads customers, works tickets,
 * nothing of leads or stock), against the mock backend: Home lists only readable lists, the Ctrl+K palette
 * offers only readable lists and only the creations granted (and, finding nothing, says that personal data
 * the user may not see finds nothing), the header has no Developer details toggle,
 * and a Customer opens read-only; a System Manager keeps all of it.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { App, createQueryClient } from '../../../src/shell/views/App';
import { CommandPalette } from '../../../src/shell/views/CommandPalette';
import { Home } from '../../../src/shell/views/Home';
import { setDeveloperDetails } from '../../../src/shell/words/developer-details';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

// The build defines it (webpack DefinePlugin): false outside offline development.
(globalThis as { __DESK_DEV__?: boolean }).__DESK_DEV__ = false;

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  setDeveloperDetails(false);
  window.location.hash = '';
});
afterAll(() => backend.server.close());

const none = { read: false, create: false, write: false, delete: false, read_pii: false };
const SAM: SessionUser = {
  user: 'sam',
  roles: ['Support Agent'],
  permissions: {
    'crm.Customer': { ...none, read: true },
    'crm.Lead': none,
    'support.Ticket': { ...none, read: true, create: true, write: true, read_pii: true },
    'stock.Item': none,
    'stock.Warehouse': none,
  },
};

/** A platform signed in as `user` that knows the three sample services (data only: no remote widgets). */
async function platformFor(user?: SessionUser): Promise<DeskPlatform> {
  const platform = testPlatform(user);
  for (const service of ['crm', 'stock', 'support']) {
    await platform.catalog.addService({
      service,
      url: null,
      apiUrl: `${ORIGIN}/api`,
      metaUrl: `${ORIGIN}/api/meta/${service}`,
    });
  }
  return platform;
}

const optionLabels = () =>
  within(screen.getByRole('listbox', { name: 'Results' }))
    .queryAllByRole('option')
    .map((o) => o.querySelector('.desk-palette__label')?.textContent);

describe('a Support Agent', () => {
  it('finds on Home only the lists they may read', async () => {
    render(
      <DeskFrame platform={await platformFor(SAM)}>
        <Home />
      </DeskFrame>,
    );
    const main = await screen.findByRole('heading', { level: 2, name: 'Lists' });
    const cards = main.nextElementSibling as HTMLElement;
    await waitFor(() =>
      expect(
        within(cards)
          .getAllByRole('link')
          .map((a) => a.textContent),
      ).toEqual(['CustomersCRM', 'TicketsSupport']),
    );
  });

  it('is offered by the palette only readable lists and only New Ticket', async () => {
    render(
      <DeskFrame platform={await platformFor(SAM)}>
        <CommandPalette onClose={() => {}} navigate={() => {}} />
      </DeskFrame>,
    );
    await waitFor(() => expect(optionLabels()).toEqual(['Customers', 'Tickets']));
    // Typing "new" lists the creations the user may make: tickets, not customers or warehouses.
    const input = screen.getByRole('combobox');
    input.focus();
    fireEvent.change(input, { target: { value: 'new' } });
    await waitFor(() => expect(optionLabels()).toContain('New Ticket'));
    expect(optionLabels().filter((l) => l?.startsWith('New '))).toEqual(['New Ticket']);
  });

  it('is told, when the search finds nothing, that personal data they may not see finds nothing', async () => {
    const platform = await platformFor(SAM);
    const status = async (user: 'sam' | 'admin') => {
      render(
        <DeskFrame platform={user === 'sam' ? platform : await platformFor()}>
          <CommandPalette onClose={() => {}} navigate={() => {}} />
        </DeskFrame>,
      );
      const input = screen.getByRole('combobox');
      fireEvent.change(input, { target: { value: 'nobody@example.com' } });
      const found = await screen.findByText(/^No records match\./);
      const text = found.textContent;
      cleanup();
      return text;
    };
    // Customers' emails are personal data the agent may not see: an email typed finds no customer.
    expect(await status('sam')).toBe(
      'No records match. Personal data you may not see, such as an email, finds nothing.',
    );
    expect(await status('admin')).toBe('No records match.');
  });

  it('has no Developer details toggle, and sees no details even if this browser had them on', async () => {
    setDeveloperDetails(true);
    const platform = await platformFor(SAM);
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    await screen.findByRole('heading', { level: 1, name: 'Home' });
    expect(screen.queryByRole('button', { name: 'Developer details' })).toBeNull();
    // The deployment line of Home is a developer detail.
    expect(screen.queryByText(/Monolith · version/)).toBeNull();
  });

  it('opens a customer read-only (no Save, no Delete) and may not start a new one', async () => {
    const platform = await platformFor(SAM);
    const customer = (
      await backend.env.store.list(backend.env.doctypes.get('crm.Customer')!, {
        filters: [],
        orderBy: [],
        start: 0,
        pageLength: 1,
      })
    ).data[0]!;
    window.location.hash = `#/app/crm.Customer/${customer.name}`;
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    expect(await screen.findByText(/You may view this customer but not change it/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();

    window.location.hash = '#/app/crm.Customer/new';
    expect(await screen.findByText('You may not create customers.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  });
});

describe('every screen', () => {
  it('is titled after what it shows, also a record page opened again from the cache', async () => {
    const platform = await platformFor(SAM);
    const customer = (
      await backend.env.store.list(backend.env.doctypes.get('crm.Customer')!, {
        filters: [],
        orderBy: [],
        start: 0,
        pageLength: 1,
      })
    ).data[0]!;
    const recordTitle = `${String(customer.customer_name)} · Customer · Desk`;
    window.location.hash = `#/app/crm.Customer/${customer.name}`;
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    await waitFor(() => expect(document.title).toBe(recordTitle));
    window.location.hash = '#/app/crm.Customer';
    await waitFor(() => expect(document.title).toBe('Customers · Desk'));
    // Back to the record: its data comes from the cache at once, and the page keeps its name as title.
    window.location.hash = `#/app/crm.Customer/${customer.name}`;
    await screen.findByText(/You may view this customer/);
    await waitFor(() => expect(document.title).toBe(recordTitle));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.title).toBe(recordTitle);
  });
});

describe('a System Manager', () => {
  it('keeps every list, every creation and the Developer details toggle', async () => {
    const platform = await platformFor();
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    await screen.findByRole('heading', { level: 1, name: 'Home' });
    expect(screen.getByRole('button', { name: 'Developer details' })).toBeTruthy();
    cleanup();
    render(
      <DeskFrame platform={platform}>
        <CommandPalette onClose={() => {}} navigate={() => {}} />
      </DeskFrame>,
    );
    await waitFor(() =>
      expect(optionLabels()).toEqual(['Customers', 'Leads', 'Items', 'Warehouses', 'Tickets']),
    );
  });
});
