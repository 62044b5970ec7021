/**
 * A DocType past the server's exact-count bound, through the mock backend, the SDK's data provider and the
 * Desk's list: the pager says "1–20 of 1,000+ tickets" and keeps Next open past the bound's last page.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXACT_TOTAL_LIMIT } from '../../../backend/data/list-query';
import type { DocTypeSchema } from '../../../src/protocol';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { GenericList } from '../../../src/shell/views/GenericList';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { testPlatform } from '../support/desk-frame';

let backend: TestBackend;
let ticket: DocTypeSchema;
beforeAll(async () => {
  backend = await startBackend({ records: 'seeded' });
  ticket = (await fetchServiceMetadata(`${ORIGIN}/api/meta/support`)).doctypes[0]!;
  const tickets = backend.env.doctypes.get('support.Ticket')!;
  for (let n = 0; n <= EXACT_TOTAL_LIMIT; n++) {
    await backend.env.store.insert(tickets, { subject: `Bulk ${n}`, status: 'Open', priority: 'Low' });
  }
});
afterEach(() => {
  cleanup();
  DiscoveryClient.reset();
});
afterAll(() => backend.server.close());

function renderList(page: number) {
  render(
    <PlatformProvider platform={testPlatform()}>
      <QueryClientProvider client={createQueryClient()}>
        <GenericList
          docType="support.Ticket"
          schema={ticket}
          onOpen={() => {}}
          onCreate={() => {}}
          state={{ filters: {}, page, pageSize: 20, sort: undefined }}
          onStateChange={() => {}}
        />
      </QueryClientProvider>
    </PlatformProvider>,
  );
}

describe('a list past the exact-count bound', () => {
  it('shows the total as a lower bound', async () => {
    renderList(1);
    const pager = await screen.findByRole('navigation', { name: 'Pagination' });
    await waitFor(() => expect(pager.textContent).toContain('1–20 of 1,000+ tickets'));
    expect(pager.textContent).toContain('Page 1 of 50+');
    expect(within(pager).getByRole('button', { name: 'Next' })).toHaveProperty('disabled', false);
  });

  it('keeps Next open on the bound’s last page', async () => {
    renderList(50);
    const pager = await screen.findByRole('navigation', { name: 'Pagination' });
    await waitFor(() => expect(pager.textContent).toContain('981–1000 of 1,000+ tickets'));
    expect(within(pager).getByRole('button', { name: 'Next' })).toHaveProperty('disabled', false);
  });
});
