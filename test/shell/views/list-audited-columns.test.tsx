/**
 * The generic list of a DocType with two personal-data fields, one a column and one not, against the mock
 * backend: a user with read_pii gets the column's values, and the audit names only that field; the field
 * the list does not show is neither asked for nor audited as revealed. Its filter input finds a whole value
 * (an equals filter, the only one the server answers on encrypted data), and is not offered to a user
 * without read_pii.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineApp, defineDocType, z } from '../../../src/app';
import type { ListState } from '../../../src/contract/remote';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { emptyListState } from '../../../src/shell/routing/route';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

const Contact = defineDocType({
  name: 'hr.Contact',
  label: 'Contact',
  titleField: 'full_name',
  namePrefix: 'CON',
  model: z.object({
    full_name: z.string().min(1).max(140).meta({ label: 'Full Name', inList: true }),
    email: z.email().max(254).meta({ label: 'Email', pii: true, inList: true }).optional(),
    phone: z.string().max(40).meta({ label: 'Phone', pii: true }).optional(),
  }),
});
const hrApp = defineApp({ name: 'hr', label: 'HR', doctypes: [Contact], permissions: {} });

let backend: TestBackend;
let contact: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ apps: [hrApp], signedIn: false });
  const definition = backend.env.doctypes.get('hr.Contact')!;
  for (const i of [1, 2]) {
    await backend.env.store.insert(definition, {
      full_name: `Contact ${i}`,
      email: `contact${i}@example.com`,
      phone: `+44 20 7946 000${i}`,
    });
  }
  const platform = newTestPlatform();
  await platform.login('Administrator', 'admin');
  contact = (await fetchServiceMetadata(`${ORIGIN}/api/meta/hr`)).doctypes[0]!;
  await platform.logout();
  DiscoveryClient.reset();
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
});
afterAll(() => backend.server.close());

describe('the list of personal data', () => {
  it('asks only for the fields it shows, so a reveal is audited for the shown column only', async () => {
    const platform = newTestPlatform();
    await platform.discovery.resolve('hr.Contact');
    await platform.login('Administrator', 'admin');
    const before = (await backend.env.ctx.audit!.list({ limit: 1000 })).total;
    render(
      <PlatformProvider platform={platform}>
        <QueryClientProvider client={createQueryClient()}>
          <GenericList docType="hr.Contact" schema={contact} onOpen={() => {}} onCreate={() => {}} />
        </QueryClientProvider>
      </PlatformProvider>,
    );
    const list = await screen.findByRole('region', { name: 'Contact list' });
    await within(list).findByText('contact1@example.com');
    expect(list.textContent).not.toContain('7946');

    const asked = backend.requests.filter(
      (r) => r.method === 'GET' && r.url.pathname === '/api/resource/hr.Contact',
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const request of asked) {
      expect(JSON.parse(request.url.searchParams.get('fields') ?? '[]')).toEqual([
        'name',
        'full_name',
        'email',
        'modified',
        'modified_by',
      ]);
    }
    const added = await waitFor(async () => {
      const { data } = await backend.env.ctx.audit!.list({ start: before, limit: 1000 });
      expect(data).toHaveLength(2);
      return data;
    });
    expect(added.map((e) => [e.user, e.route, e.fields])).toEqual([
      ['Administrator', 'list', ['email']],
      ['Administrator', 'list', ['email']],
    ]);
    await platform.logout();
  });
});

/** Renders the Contact list signed in as Administrator, its address state `state`; returns the region. */
let signedIn: DeskPlatform | undefined;
async function renderList(
  state: ListState,
  rights?: SessionUser['permissions'],
  onStateChange: (state: ListState) => void = () => {},
): Promise<HTMLElement> {
  const platform = newTestPlatform();
  signedIn = platform;
  await platform.discovery.resolve('hr.Contact');
  await platform.login('Administrator', 'admin');
  // The rights the Desk offers by (the server still answers the Administrator's requests).
  if (rights) platform.session.signedIn({ user: 'clerk', roles: ['Clerk'], permissions: rights });
  render(
    <PlatformProvider platform={platform}>
      <QueryClientProvider client={createQueryClient()}>
        <GenericList
          docType="hr.Contact"
          schema={contact}
          onOpen={() => {}}
          onCreate={() => {}}
          state={state}
          onStateChange={onStateChange}
        />
      </QueryClientProvider>
    </PlatformProvider>,
  );
  const list = await screen.findByRole('region', { name: 'Contact list' });
  await within(list).findByText('Contact 1');
  return list;
}

/** The list requests the backend received since `from`, as their query parameters. */
const listRequests = (from: number) =>
  backend.requests
    .slice(from)
    .filter((r) => r.method === 'GET' && r.url.pathname === '/api/resource/hr.Contact')
    .map((r) => r.url.searchParams);

describe('sorting and filtering by personal data', () => {
  afterEach(async () => {
    await signedIn?.logout();
    signedIn = undefined;
  });

  it('offers no sort on a personal-data column, and one on the others', async () => {
    const list = await renderList(emptyListState());
    const headers = within(list).getAllByRole('columnheader');
    const email = headers.find((h) => h.textContent === 'Email')!;
    expect(within(email).queryByRole('button')).toBeNull();
    expect(email.getAttribute('aria-sort')).toBeNull();
    const name = headers.find((h) => h.textContent?.startsWith('Full Name'))!;
    expect(within(name).getByRole('button')).toBeTruthy();
  });

  it('leaves out a sort by personal data the address asks for, says why, and still lists', async () => {
    const from = backend.requests.length;
    const written: ListState[] = [];
    const list = await renderList(
      { ...emptyListState(), sort: { field: 'email', order: 'asc' } },
      undefined,
      (next) => written.push(next),
    );
    expect(within(list).getByRole('status').textContent).toBe(
      'Not sorted by Email: personal data is stored encrypted and cannot be sorted.',
    );
    // Out of the address too: a bookmark of the page no longer asks for it.
    expect(written).not.toHaveLength(0);
    expect(written.at(-1)!.sort).toBeUndefined();
    const asked = listRequests(from);
    expect(asked.length).toBeGreaterThan(0);
    for (const params of asked) expect(params.get('order_by') ?? '').not.toMatch(/email/);
  });

  it('leaves out a filter on personal data the user may not see, and says so', async () => {
    const from = backend.requests.length;
    const none = { read: true, create: false, write: false, delete: false, read_pii: false };
    const written: ListState[] = [];
    const list = await renderList(
      { ...emptyListState(), conditions: [{ field: 'email', op: 'eq', value: 'contact1@example.com' }] },
      { 'hr.Contact': none },
      (next) => written.push(next),
    );
    expect(within(list).getByRole('status').textContent).toBe(
      "The link's filter on Email was left out: it is personal data you may not see.",
    );
    expect(written.at(-1)?.conditions).toEqual([]);
    for (const params of listRequests(from)) expect(params.get('filters') ?? '').not.toMatch(/email/);
  });
});

describe('the filter bar on a personal-data column', () => {
  afterEach(async () => {
    await signedIn?.logout();
    signedIn = undefined;
  });

  it('finds a whole value for a user who may see it: an equals filter, which the server can answer', async () => {
    const from = backend.requests.length;
    const list = await renderList({ ...emptyListState(), filters: { email: 'contact1@example.com' } });
    await waitFor(() => expect(within(list).queryByText('Contact 2')).toBeNull());
    expect(within(list).getByText('contact1@example.com')).toBeTruthy();
    expect(within(list).queryByRole('alert')).toBeNull();
    const filters = listRequests(from).map((params) => JSON.parse(params.get('filters') ?? '[]'));
    expect(filters.at(-1)).toEqual([['email', '=', 'contact1@example.com']]);
    // The input says it takes a whole value, not a part of one.
    expect(within(list).getByLabelText('Email').getAttribute('placeholder')).toBe('Whole value…');
  });

  it('offers no filter input on it to a user who may not see it, and sends no filter on it', async () => {
    const from = backend.requests.length;
    const none = { read: true, create: false, write: false, delete: false, read_pii: false };
    const list = await renderList(
      { ...emptyListState(), filters: { email: 'contact1@example.com' } },
      { 'hr.Contact': none },
    );
    expect(within(list).queryByLabelText('Email')).toBeNull();
    for (const params of listRequests(from)) expect(params.get('filters') ?? '').not.toMatch(/email/);
  });
});
