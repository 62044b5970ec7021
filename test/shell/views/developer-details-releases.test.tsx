/**
 * The release columns of the developer details against the mock backend with MONOLITH's releases API: the
 * release this tab runs, the live one and the user's channel, from the remotes map the tab started with;
 * opening the section asks the gateway again, so a promotion since shows as the new live release while
 * the tab's stays the one it loaded.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeveloperDetails } from '../../../src/shell/views/DeveloperDetails';
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
afterEach(cleanup);
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
