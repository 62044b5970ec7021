/**
 * Down is not gone: a page of a DocType no service owns right now, against the mock backend without the
 * crm app (its service is down) and with MONOLITH's releases API. When crm was seen in this tab, or still
 * has a kept release (asked for System Managers), the page says "CRM is not available right now" with Try
 * again, which asks discovery again; only a service never seen gets "No app installed here provides this
 * page".
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stockApp } from '../../../backend/apps/stock/app';
import { supportApp } from '../../../backend/apps/support/app';
import { DISCOVERY_QUERY_PATH } from '../../../src/protocol';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { rememberServices, seenServices } from '../../../src/shell/platform/seen-services';
import { DocTypePage } from '../../../src/shell/views/DocTypePage';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';
import { openReleasesBackend, type ReleasesBackend } from '../support/releases-backend';

let releases: ReleasesBackend;
let backend: TestBackend;
beforeAll(async () => {
  releases = await openReleasesBackend();
  // crm is down: the gateway's directory lists stock and support only.
  backend = await startBackend({ apps: [stockApp, supportApp], releases: releases.routes });
  // Only stops a hung start: an embedded database starts here, as in the node project's hooks.
}, 120_000);
beforeEach(() => sessionStorage.clear());
afterEach(cleanup);
afterAll(async () => {
  backend.server.close();
  await releases.close();
});

const clerk = () => testPlatform({ user: 'clerk', roles: ['Sales User'], permissions: {} });

/** Renders the list page of `docType`; resolves once discovery answered that nobody owns it. */
async function renderList(platform: DeskPlatform, docType: string): Promise<void> {
  const answered = backend.answered(DISCOVERY_QUERY_PATH);
  render(
    <DeskFrame platform={platform}>
      <DocTypePage route={{ kind: 'list', docType }} navigate={() => {}} />
    </DeskFrame>,
  );
  await answered;
}

const releaseAsks = () => backend.requests.filter((r) => r.url.pathname === '/api/releases').length;

describe('a page whose service is down', () => {
  it('says the app seen in this tab is not available right now, and Try again asks discovery again', async () => {
    rememberServices({ crm: 'CRM' });
    await renderList(clerk(), 'crm.Customer');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('CRM is not available right now.')).toBeTruthy();
    expect(alert.textContent).toContain('Try again in a moment.');
    expect(screen.queryByText(/No app installed here/)).toBeNull();

    const asked = backend.to(DISCOVERY_QUERY_PATH, 'POST').length;
    const again = backend.answered(DISCOVERY_QUERY_PATH);
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    await again;
    expect(backend.to(DISCOVERY_QUERY_PATH, 'POST')).toHaveLength(asked + 1);
    await screen.findByText('CRM is not available right now.');
  });

  it('says the same to a System Manager of an app with a kept release, never seen in this tab', async () => {
    await releases.publish('one', { packageVersion: '1.0.0' });
    const listed = backend.answered('/api/releases');
    await renderList(testPlatform(), 'crm.Customer');
    await listed;
    await screen.findByText('Crm is not available right now.');
    expect(screen.queryByText(/No app installed here/)).toBeNull();
  });

  it('keeps "No app installed here provides this page" for an app never seen and without releases', async () => {
    const before = releaseAsks();
    await renderList(clerk(), 'crm.Customer');
    await screen.findByText('No app installed here provides this page.');
    expect(screen.queryByRole('alert')).toBeNull();
    // Only a System Manager may read the releases: nobody else's page asks.
    expect(releaseAsks()).toBe(before);

    cleanup();
    const listed = backend.answered('/api/releases');
    await renderList(testPlatform(), 'nosuch.Thing');
    await listed;
    await screen.findByText('No app installed here provides this page.');
  });

  it('remembers, for the tab, every service the catalog learns of', async () => {
    const platform = testPlatform();
    await platform.catalog.loadRemotes();
    expect(Object.keys(seenServices()).sort()).toEqual(['stock', 'support']);
  });
});
