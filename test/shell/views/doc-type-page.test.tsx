/**
 * A DocType screen whose service ships a broken UI remote: the failure stays inside the remote's part of the
 * page, the rest of the screen keeps working, and the standard view lists the service's records.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RemoteViews } from '../../../src/contract/remote';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { createQueryClient } from '../../../src/shell/views/App';
import { DocTypePage } from '../../../src/shell/views/DocTypePage';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform, preloadRemoteScope } from '../support/desk-frame';

let backend: TestBackend;
let seededItems: string[];
beforeAll(async () => {
  await preloadRemoteScope();
  backend = await startBackend({ remotes: ['stock'], records: 'seeded' });
  const listed = await backend.env.store.list(backend.env.doctypes.get('stock.Item')!, {
    filters: [],
    orderBy: [],
    start: 0,
    pageLength: 100,
  });
  seededItems = listed.data.map((r) => String(r.item_code));
});
beforeEach(() => {
  // React reports the error the boundary caught on the console; the test asserts on the page instead.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  DiscoveryClient.reset();
  backend.server.resetHandlers();
});
afterAll(() => backend.server.close());

/** A remote list view that fails on render. */
function ThrowingList(): React.JSX.Element {
  throw new Error('stock list crashed');
}

function renderItemList(platform: DeskPlatform) {
  render(
    <PlatformProvider platform={platform}>
      <QueryClientProvider client={createQueryClient()}>
        <DocTypePage route={{ kind: 'list', docType: 'stock.Item' }} navigate={() => {}} />
      </QueryClientProvider>
    </PlatformProvider>,
  );
}

function platformWithStockViews(views: RemoteViews | Error): DeskPlatform {
  const platform = newTestPlatform();
  // The Desk renders DocType screens only when signed in (metadata needs a session).
  platform.session.signedIn('Administrator');
  // Stands in for the stock remote's `./views` module (no remote script runs in jsdom): its exports, or
  // the error loading it raised.
  if (views instanceof Error) vi.spyOn(platform.remotes, 'load').mockRejectedValue(views);
  else vi.spyOn(platform.remotes, 'load').mockResolvedValue(views);
  return platform;
}

describe('DocTypePage with a UI remote', () => {
  it('contains a remote list that throws, keeps the page around it, and falls back to the standard list', async () => {
    const platform = platformWithStockViews({ views: { 'stock.Item': { list: ThrowingList } } });
    renderItemList(platform);

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The item list stopped working.');
    expect(alert.textContent).not.toContain('remote_render_failed');
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
    expect(platform.remotes.load).toHaveBeenCalledWith('stock', './views');
    // The rest of the screen is the shell's and still works.
    expect(screen.getByRole('heading', { level: 1, name: 'Items' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'New Item' })).toBeTruthy();

    fireEvent.click(within(alert).getByRole('button', { name: 'Use the standard view' }));

    const list = await screen.findByRole('region', { name: 'Item list' });
    for (const code of seededItems)
      expect(await within(list).findByRole('link', { name: code })).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows a contained notice when the remote cannot load, and the standard list below it', async () => {
    const error = Object.assign(new Error('remoteEntry.js answered 500'), { code: 'remote_load_failed' });
    const platform = platformWithStockViews(error);
    renderItemList(platform);

    const notice = await screen.findByRole('alert');
    expect(notice.textContent).toContain('Part of this page could not be loaded. Showing the standard view.');
    expect(notice.textContent).not.toContain('remote_load_failed');
    expect(notice.textContent).not.toContain('stock');
    expect(within(notice).getByRole('button', { name: 'Try again' })).toBeTruthy();
    const list = await screen.findByRole('region', { name: 'Item list' });
    expect(await within(list).findByRole('link', { name: seededItems[0]! })).toBeTruthy();
  });
});
