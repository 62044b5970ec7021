/**
 * The Releases page against the mock backend with MONOLITH's releases API mounted: a System Manager sees
 * each app's live release, canary, pins, kept releases and history; rolls back and promotes in one click
 * and one confirmation (each a request to the API, the page following); a promotion the contract check
 * refuses lists the differences and is forced only in a second confirmation, the history then showing it
 * forced with those differences. Anyone else sees a refusal and the API is not asked.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../../src/shell/platform/create-platform';
import { formatRoute, parseRoute } from '../../../src/shell/routing/route';
import { ReleasesPage } from '../../../src/shell/views/ReleasesPage';
import { Sidebar } from '../../../src/shell/views/Sidebar';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';
import { openReleasesBackend, type ReleasesBackend, runningFingerprint } from '../support/releases-backend';

let releases: ReleasesBackend;
let backend: TestBackend;
let v1: string;
let v2: string;
beforeAll(async () => {
  releases = await openReleasesBackend();
  backend = await startBackend({ releases: releases.routes });
  v1 = await releases.publish('one', { packageVersion: '1.0.0' });
  v2 = await releases.publish('two', { packageVersion: '1.1.0' });
  const admin = { user: 'Administrator' };
  await releases.service.promote('crm', v1, {}, admin);
  await releases.service.promote('crm', v2, {}, admin);
  await releases.service.canary('crm', v1, 10, {}, admin);
  await releases.service.pin('crm', { kind: 'role', subject: 'Sales User' }, v1, admin);
  // Only stops a hung start: an embedded database starts here, as in the node project's hooks.
}, 120_000);
afterEach(cleanup);
afterAll(async () => {
  backend.server.close();
  await releases.close();
});

/** Renders the page; `crmListed` resolves once the crm releases were answered (on a busy machine, late). */
function renderPage(platform = testPlatform()) {
  crmListed = backend.answered('/api/releases/crm');
  render(
    <DeskFrame platform={platform}>
      <ReleasesPage />
    </DeskFrame>,
  );
  return platform;
}

let crmListed: Promise<void> = Promise.resolve();

/** The crm section, once its releases are listed. */
async function crmSection(): Promise<HTMLElement> {
  await crmListed;
  await screen.findByRole('table', { name: 'Releases of Crm' });
  return screen.getByRole('region', { name: 'Crm' });
}

const liveOf = (section: HTMLElement) =>
  within(section).getByText('Live').nextElementSibling?.textContent ?? '';

describe('Releases page', () => {
  it('shows the live release, canary, pins, kept releases and history of each app with releases', async () => {
    renderPage();
    const crm = await crmSection();
    expect(liveOf(crm)).toBe(v2);
    expect(within(crm).getByText('Canary').nextElementSibling?.textContent).toBe(`${v1} for 10% of users`);
    expect(within(crm).getByText('Pins').nextElementSibling?.textContent).toBe(`Role Sales User: ${v1}`);
    const rows = within(within(crm).getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual([v2, v1]);
    expect(within(rows[0]!).getAllByRole('cell')[0]!.textContent).toBe('Administrator');
    expect(within(rows[0]!).getAllByRole('cell')[2]!.textContent).toBe('live');
    // The live release is not offered for promotion; the other one is.
    expect(within(rows[0]!).queryByRole('button', { name: /Promote/ })).toBeNull();
    within(rows[1]!).getByRole('button', { name: `Promote ${v1}` });
    const history = within(within(crm).getByRole('list', { name: 'History of Crm' })).getAllByRole(
      'listitem',
    );
    expect(history.map((h) => h.textContent?.replace(/^.*?(Administrator)/, '$1'))).toEqual([
      `Administrator pinned ${v1} for the role Sales User.`,
      `Administrator sent 10% of users to ${v1}.`,
      `Administrator promoted ${v2} (live was ${v1}).`,
      `Administrator promoted ${v1}, the first live release.`,
      `Administrator published ${v2}.`,
      `Administrator published ${v1}.`,
    ]);
    // Only crm has releases: the other apps have no section.
    expect(screen.getAllByRole('region')).toHaveLength(2); // the page and crm
    expect(screen.queryByRole('region', { name: 'Stock' })).toBeNull();
  });

  it('rolls back in one click and one confirmation; cancelling sends nothing', async () => {
    const platform = renderPage();
    const crm = await crmSection();
    const button = within(crm).getByRole('button', { name: `Roll back to ${v1}` });
    fireEvent.click(button);
    fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(backend.to('/api/releases/crm/rollback', 'POST')).toHaveLength(0);

    fireEvent.click(button);
    const dialog = screen.getByRole('alertdialog', { name: 'Roll back Crm?' });
    const reloaded = backend.answered('/api/releases/crm');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Roll back' }));
    await reloaded;
    await waitFor(() => expect(liveOf(crm)).toBe(v1));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(backend.to('/api/releases/crm/rollback', 'POST')).toHaveLength(1);
    expect(releases.service.channel('crm').live).toBe(v1);
    expect(platform.notices.getSnapshot().map((n) => n.message)).toEqual([
      `Crm rolled back: ${v1} is live again.`,
    ]);
    const latest = within(crm).getByRole('list', { name: 'History of Crm' }).firstElementChild!;
    expect(latest.textContent).toContain(`Administrator rolled back to ${v1} (from ${v2}).`);
    // v1 was first promoted from nothing: nothing earlier to roll back to now.
    expect(within(crm).getByRole('button', { name: 'Roll back' }).hasAttribute('disabled')).toBe(true);
  });

  it('lists the differences of a refused promotion and forces it only after a second confirmation', async () => {
    const fingerprint = runningFingerprint('crm');
    fingerprint.doctypes['crm.Customer']!.loyalty_tier = { type: 'Data', required: false, flags: [] };
    const v3 = await releases.publish('three', { packageVersion: '1.2.0', fingerprint });
    renderPage();
    const crm = await crmSection();
    fireEvent.click(within(crm).getByRole('button', { name: `Promote ${v3}` }));
    const refusal = backend.answered('/api/releases/crm/promote');
    fireEvent.click(
      within(screen.getByRole('alertdialog', { name: `Promote ${v3}?` })).getByRole('button', {
        name: 'Promote',
      }),
    );
    await refusal;
    const forced = await screen.findByRole('alertdialog', { name: 'Promote anyway?' });
    expect(within(forced).getByRole('listitem').textContent).toBe(
      'crm.Customer.loyalty_tier: The service no longer has this field.',
    );
    expect(releases.service.channel('crm').live).not.toBe(v3);
    const promotions = () => backend.to('/api/releases/crm/promote', 'POST').map((r) => JSON.parse(r.body));
    await backend.settle();
    expect(promotions()).toEqual([{ version: v3 }]);

    const relisted = backend.answered('/api/releases/crm');
    fireEvent.click(within(forced).getByRole('button', { name: 'Promote anyway' }));
    await relisted;
    await waitFor(() => expect(liveOf(crm)).toBe(v3));
    await backend.settle();
    expect(promotions()).toEqual([{ version: v3 }, { version: v3, force: true }]);
    const latest = within(crm).getByRole('list', { name: 'History of Crm' }).firstElementChild!;
    expect(latest.textContent).toContain(`promoted ${v3}`);
    expect(latest.textContent).toContain('forced past the contract check');
    expect(within(latest as HTMLElement).getByRole('listitem').textContent).toBe(
      'crm.Customer.loyalty_tier: The service no longer has this field.',
    );
  });

  it('refuses a user who is not a System Manager without asking the releases API', async () => {
    const before = backend.requests.filter((r) => r.url.pathname.startsWith('/api/releases')).length;
    renderPage(testPlatform({ user: 'clerk', roles: ['Sales User'], permissions: {} }));
    expect(screen.getByText('Only a System Manager may manage releases.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(backend.requests.filter((r) => r.url.pathname.startsWith('/api/releases'))).toHaveLength(before);
  });

  it('is #/releases, linked in the sidebar for System Managers only', () => {
    expect(formatRoute({ kind: 'releases' })).toBe('#/releases');
    expect(parseRoute('#/releases')).toEqual({ kind: 'releases' });
    render(
      <DeskFrame platform={testPlatform()}>
        <Sidebar route={{ kind: 'releases' }} />
      </DeskFrame>,
    );
    const link = screen.getByRole('link', { name: 'Releases' });
    expect(link.getAttribute('href')).toBe('#/releases');
    expect(link.getAttribute('aria-current')).toBe('page');
    cleanup();
    render(
      <DeskFrame platform={testPlatform({ user: 'clerk', roles: ['Sales User'], permissions: {} })}>
        <Sidebar route={{ kind: 'home' }} />
      </DeskFrame>,
    );
    expect(screen.queryByRole('link', { name: 'Releases' })).toBeNull();
    screen.getByRole('link', { name: 'Home' });
  });

  it('is offered in MACROSERVICE too, where the gateways keep the releases, and lists them from there', async () => {
    const platform = createPlatform({
      mode: 'macroservice',
      gatewayUrl: ORIGIN,
      deskBase: '/desk/',
      coreServices: [],
      securityConfigUrl: `${ORIGIN}/api/v1/security/config`,
      version: 'test',
    });
    platform.session.signedIn({ user: 'Administrator', roles: ['System Manager'], permissions: {} });
    crmListed = backend.answered('/api/releases/crm');
    render(
      <DeskFrame platform={platform}>
        <Sidebar route={{ kind: 'home' }} />
        <ReleasesPage />
      </DeskFrame>,
    );
    screen.getByRole('link', { name: 'Releases' });
    expect(liveOf(await crmSection())).toBe(releases.service.channel('crm').live);
    expect(screen.queryByText(/MONOLITH/)).toBeNull();
  });
});
