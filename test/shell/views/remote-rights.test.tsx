/**
 * A remote's widgets and views ask the Desk what the signed-in user may do (`can` of the remote contract):
 * Home gives the crm remote's customer-count widget the session's permissions, so a Support Agent (reads
 * customers, may not create them) sees the count without "Add a customer" and a System Manager sees both;
 * a DocType screen gives a remote's list view the same answers.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import crmViews from '../../../backend/apps/crm/ui/views';
import type { FormViewProps, ListViewProps, RemoteViews, RightsProps } from '../../../src/contract/remote';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { App, createQueryClient } from '../../../src/shell/views/App';
import { Home } from '../../../src/shell/views/Home';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, preloadRemoteScope, testPlatform } from '../support/desk-frame';

// The build defines it (webpack DefinePlugin): false outside offline development.
(globalThis as { __DESK_DEV__?: boolean }).__DESK_DEV__ = false;

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  await preloadRemoteScope();
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
  window.location.hash = '';
});
afterAll(() => backend.server.close());

const none = { read: false, create: false, write: false, delete: false, read_pii: false };
const SAM: SessionUser = {
  user: 'sam',
  roles: ['Support Agent'],
  permissions: { 'crm.Customer': { ...none, read: true }, 'crm.Lead': none },
};
const CLERK: SessionUser = {
  user: 'clerk',
  roles: ['Sales User'],
  permissions: { 'crm.Customer': { ...none, read: true, create: true }, 'crm.Lead': none },
};

/** A platform signed in as `user` (Administrator when omitted) whose crm service has `views` as its remote. */
async function platformWithCrmViews(views: RemoteViews, user?: SessionUser): Promise<DeskPlatform> {
  const platform = testPlatform(user);
  await platform.catalog.addService({
    service: 'crm',
    url: `${ORIGIN}/mfe/crm/remoteEntry.js`,
    apiUrl: `${ORIGIN}/api`,
    metaUrl: `${ORIGIN}/api/meta/crm`,
  });
  // The remote's module as Module Federation would hand it over, without fetching a remote entry.
  platform.remoteViews.set('crm', views);
  return platform;
}

/** Renders Home and waits for the crm Customers card to show the count from the backend. */
async function customersCard(user?: SessionUser): Promise<HTMLElement> {
  render(
    <DeskFrame platform={await platformWithCrmViews(crmViews, user)}>
      <Home />
    </DeskFrame>,
  );
  const card = (await screen.findByRole('region', { name: 'Customers' })) as HTMLElement;
  await waitFor(() => expect(card.querySelector('.desk-widget__number')?.textContent).toMatch(/^[1-9]\d*$/));
  return card;
}

describe('the crm customer-count widget on Home', () => {
  it('shows a Support Agent, who may not create customers, the count without "Add a customer"', async () => {
    const card = await customersCard(SAM);
    expect(card.textContent).toMatch(/customers?$/);
    expect(within(card).queryByRole('link', { name: 'Add a customer' })).toBeNull();
    // The count itself came from the crm RPC method.
    expect(backend.to('/api/method/crm.api.customer_count', 'POST').length).toBeGreaterThan(0);
  });

  it('offers "Add a customer" to a user who may create customers', async () => {
    const card = await customersCard(CLERK);
    const link = within(card).getByRole('link', { name: 'Add a customer' });
    expect(link.getAttribute('href')).toBe('#/app/crm.Customer/new');
  });

  it('offers "Add a customer" to a System Manager', async () => {
    const card = await customersCard();
    expect(within(card).getByRole('link', { name: 'Add a customer' })).toBeTruthy();
  });
});

/** A remote list view that prints what `can` answers for the operations of crm.Customer. */
function RightsList({ docType, can }: ListViewProps & RightsProps): React.JSX.Element {
  const ops = (['read', 'create', 'write', 'delete'] as const).filter((op) => can(op, docType));
  return <p data-testid="remote-list">may: {ops.join(',') || 'nothing'}</p>;
}

/** A remote form view that prints what `can` answers for the operations of its DocType. */
function RightsForm({ docType, can }: FormViewProps & RightsProps): React.JSX.Element {
  const ops = (['read', 'create', 'write', 'delete'] as const).filter((op) => can(op, docType));
  return <p data-testid="remote-form">may: {ops.join(',') || 'nothing'}</p>;
}

describe('a remote view', () => {
  it("(a list) is told the signed-in user's rights on its DocType by the Desk", async () => {
    const platform = await platformWithCrmViews({ views: { 'crm.Customer': { list: RightsList } } }, SAM);
    window.location.hash = '#/app/crm.Customer';
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    expect((await screen.findByTestId('remote-list')).textContent).toBe('may: read');
  });

  it("(a form) is told the signed-in user's rights on its DocType by the Desk", async () => {
    const platform = await platformWithCrmViews({ views: { 'crm.Customer': { form: RightsForm } } }, CLERK);
    window.location.hash = '#/app/crm.Customer/new';
    render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
    expect((await screen.findByTestId('remote-form')).textContent).toBe('may: read,create');
  });
});
