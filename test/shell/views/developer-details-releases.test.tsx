/**
 * Releases in the Desk's views against the mock backend (the backend's own routes) with MONOLITH's releases
 * API. The release columns of the developer details: the release this tab runs, the live one and the
 * user's channel, from the remotes map the tab started with; opening the section asks the gateway again, so
 * a promotion since shows as the new live release while the tab's stays the one it loaded. The release
 * offer at a navigation: one request, the discovery revalidation, whose answer names the remotes' entries;
 * the remotes map is fetched only when an answer names none (an older gateway).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { DeveloperDetails } from '../../../src/shell/views/DeveloperDetails';
import { ReleaseOffer } from '../../../src/shell/views/ReleaseOffer';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';
import { openReleasesBackend, type ReleasesBackend } from '../support/releases-backend';

let releases: ReleasesBackend;
let backend: TestBackend;
const admin = { user: 'Administrator' };
beforeAll(async () => {
  releases = await openReleasesBackend();
  backend = await startBackend({ remotes: ['crm'], releases: releases.routes });
  // Only stops a hung start: an embedded database starts here, as in the node project's hooks.
}, 120_000);
afterEach(() => {
  cleanup();
  backend.server.resetHandlers();
});
afterAll(async () => {
  backend.server.close();
  await releases.close();
});

/** The text of each line of the crm row's release cell ("This tab …", "Live …", "Your channel …"). */
function crmRelease(): string[] {
  const row = screen.getByRole('rowheader', { name: 'crm' }).closest('tr')!;
  const cell = within(row).getAllByRole('cell')[2]!;
  return [...cell.querySelectorAll('dt')].map(
    (dt) => `${dt.textContent} ${dt.nextElementSibling?.textContent}`,
  );
}

describe('developer details of releases', () => {
  it('shows the release this tab runs, the live one and the channel, asking again when opened', async () => {
    const v1 = await releases.publish('one', { packageVersion: '1.0.0' });
    const v2 = await releases.publish('two', { packageVersion: '1.1.0' });
    await releases.service.promote('crm', v1, {}, admin);
    await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, v2, admin);
    const platform = testPlatform();
    await platform.catalog.loadRemotes();
    render(
      <DeskFrame platform={platform}>
        <DeveloperDetails />
      </DeskFrame>,
    );
    expect(crmRelease()).toEqual([`This tab ${v2}`, `Live ${v1}`, 'Your channel pinned']);

    const v3 = await releases.publish('three', { packageVersion: '1.2.0' });
    await releases.service.promote('crm', v3, {}, admin);
    const asked = backend.to('/api/gateway/remotes', 'GET').length;
    const reasked = backend.answered('/api/gateway/remotes');
    fireEvent.click(screen.getByText('Developer details'));
    await reasked;
    await waitFor(() =>
      expect(crmRelease()).toEqual([`This tab ${v2}`, `Live ${v3}`, 'Your channel pinned']),
    );
    expect(backend.to('/api/gateway/remotes', 'GET')).toHaveLength(asked + 1);
  });
});

/** Moves to `hash` as a link does, once the browser told of it. */
async function navigate(hash: string): Promise<void> {
  if (window.location.hash === hash) return;
  const changed = new Promise((resolve) => window.addEventListener('hashchange', resolve, { once: true }));
  window.location.hash = hash;
  await changed;
}

/** The requests the Desk sent to its gateway since `from` (an index into the backend's requests). */
async function gatewayRequestsSince(from: number): Promise<string[]> {
  await backend.settle();
  return backend.requests
    .slice(from)
    .filter((r) => r.url.pathname.startsWith('/api/'))
    .map((r) => `${r.method} ${r.url.pathname}`);
}

describe('the release offer at a navigation', () => {
  /** A tab on the customer list with the offer mounted, started with the release its user gets now. */
  async function openTab(): Promise<DeskPlatform> {
    await navigate('#/app/crm.Customer');
    const platform = testPlatform();
    await platform.catalog.loadRemotes();
    await platform.discovery.prewarm(['crm']);
    render(
      <DeskFrame platform={platform}>
        <ReleaseOffer />
      </DeskFrame>,
    );
    return platform;
  }

  it('makes one request per navigation, the discovery query, whose answer brings the new release', async () => {
    const started = await releases.publish('four', { packageVersion: '1.3.0' });
    await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, started, admin);
    await openTab();
    const newer = await releases.publish('five', { packageVersion: '1.4.0' });
    await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, newer, admin);

    const from = backend.requests.length;
    await navigate('#/app/crm.Lead');
    await screen.findByText(/A new version of/);
    expect(await gatewayRequestsSince(from)).toEqual(['POST /api/gateway/discovery/query']);
    const [query] = backend.requests.slice(from);
    expect(JSON.parse(query!.body)).toMatchObject({ remotes: true });

    // A navigation with nothing new: one request again, and the offer stays.
    const next = backend.requests.length;
    const answered = backend.answered('/api/gateway/discovery/query');
    await navigate('#/app/crm.Customer');
    await answered;
    expect(await gatewayRequestsSince(next)).toEqual(['POST /api/gateway/discovery/query']);
    expect(screen.getByText(/A new version of/)).toBeDefined();
  });

  it('fetches the remotes map when the discovery answer names no entries, as an older gateway answers', async () => {
    const started = await releases.publish('six', { packageVersion: '1.5.0' });
    await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, started, admin);
    await openTab();
    const newer = await releases.publish('seven', { packageVersion: '1.6.0' });
    await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, newer, admin);
    backend.server.use(
      http.post('*/api/gateway/discovery/query', () => HttpResponse.json({ resources: {}, services: {} })),
    );

    const from = backend.requests.length;
    await navigate('#/app/crm.Lead');
    await screen.findByText(/A new version of/);
    expect(await gatewayRequestsSince(from)).toEqual([
      'POST /api/gateway/discovery/query',
      'GET /api/gateway/remotes',
    ]);
  });
});
