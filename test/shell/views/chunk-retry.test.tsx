/**
 * A remote's chunk that fails to download, against the mock backend with MONOLITH's releases API: the Desk
 * asks discovery for the service's current remote once (here the user's pin moved to another release),
 * registers it and loads again; failing again, it says to reload the page. The same holds for a chunk that
 * fails while a remote's component renders (RemoteBoundary), with no second automatic retry.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RemoteViews } from '../../../src/contract/remote';
import { SdkError } from '../../../src/sdk/errors';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { RemoteBoundary } from '../../../src/shell/views/RemoteBoundary';
import { RemoteUnavailable } from '../../../src/shell/views/RemoteUnavailable';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, preloadRemoteScope, testPlatform } from '../support/desk-frame';
import { openReleasesBackend, type ReleasesBackend } from '../support/releases-backend';

let releases: ReleasesBackend;
let backend: TestBackend;
let v1: string;
let v2: string;
const admin = { user: 'Administrator' };
const urlOf = (version: string) => `http://desk.test/desk/assets/crm/${version}/remoteEntry.js`;

beforeAll(async () => {
  await preloadRemoteScope();
  releases = await openReleasesBackend();
  backend = await startBackend({ remotes: ['crm'], releases: releases.routes });
  v1 = await releases.publish('one', { packageVersion: '1.0.0' });
  v2 = await releases.publish('two', { packageVersion: '1.1.0' });
  await releases.service.promote('crm', v1, {}, admin);
  // Only stops a hung start: an embedded database starts here, as in the node project's hooks.
}, 120_000);
beforeEach(async () => {
  // This tab starts on release 1 (pinned); then release 1 stops being served and the pin moves to 2.
  await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, v1, admin);
  // React reports errors caught by a boundary on the console; the tests assert on the page instead.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});
afterAll(async () => {
  backend.server.close();
  await releases.close();
});

const chunkError = () =>
  Object.assign(new Error(`Loading chunk 318 failed.\n(error: ${urlOf(v1).replace('remoteEntry', '318')})`), {
    name: 'ChunkLoadError',
  });

/** A platform on release 1 whose remote loader fails with a chunk error while `failing()` says so. */
async function platformOnRelease1(failing: (url: string | undefined) => boolean) {
  const platform = testPlatform();
  await platform.catalog.loadRemotes();
  expect(platform.catalog.getSnapshot().services.crm?.url).toBe(urlOf(v1));
  await releases.service.pin('crm', { kind: 'user', subject: 'Administrator' }, v2, admin);
  const registered: Array<string | null> = [];
  vi.spyOn(platform.remotes, 'register').mockImplementation((_service, manifest) => {
    registered.push(manifest.url);
    return true;
  });
  const load = vi.spyOn(platform.remotes, 'load').mockImplementation(async () => {
    if (failing(registered.at(-1) ?? undefined)) {
      throw new SdkError('remote_load_failed', 'The UI remote of "crm" could not load ./views.', {
        cause: chunkError(),
      });
    }
    return { views: {} } satisfies RemoteViews;
  });
  return { platform, registered, load };
}

function remotesAsked(): number {
  return backend.to('/api/gateway/remotes', 'GET').length;
}

describe('a chunk that fails to download', () => {
  it('is loaded once more from the release discovery names now', async () => {
    const { platform, registered, load } = await platformOnRelease1((url) => url === urlOf(v1));
    const before = remotesAsked();
    await expect(platform.remoteViews.load('crm')).resolves.toEqual({ views: {} });
    expect(remotesAsked()).toBe(before + 1);
    expect(registered).toEqual([urlOf(v1), urlOf(v2)]);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('failing again, says to reload the page (no Try again), after one retry only', async () => {
    const { platform, load } = await platformOnRelease1(() => true);
    const before = remotesAsked();
    const error = await platform.remoteViews.load('crm').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'remote_chunk_failed' });
    expect(remotesAsked()).toBe(before + 1);
    expect(load).toHaveBeenCalledTimes(2);
    render(
      <DeskFrame platform={platform}>
        <RemoteUnavailable service="crm" error={error} onRetry={() => {}} />
      </DeskFrame>,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Reload the page to load it.');
    within(alert).getByRole('button', { name: 'Reload the page' });
    expect(within(alert).queryByRole('button', { name: 'Try again' })).toBeNull();
  });
});

/** A remote component whose lazy chunk fails to download while `broken.value` is true. */
function CustomerForm({ broken }: { broken: { value: boolean } }): React.JSX.Element {
  if (broken.value) throw chunkError();
  return <p>crm customer form</p>;
}

function renderBoundary(platform: DeskPlatform, broken: { value: boolean }) {
  const reloadRemote = vi.fn(() => platform.reloadRemote('crm'));
  render(
    <DeskFrame platform={platform}>
      <RemoteBoundary service="crm" what="The customer form" reloadRemote={reloadRemote}>
        <CustomerForm broken={broken} />
      </RemoteBoundary>
    </DeskFrame>,
  );
  return reloadRemote;
}

describe('a chunk that fails while a remote renders', () => {
  it('reloads the remote from the current release once and renders again', async () => {
    const broken = { value: true };
    // The current release's code is whole: once registered, the form renders.
    const { platform, registered } = await platformOnRelease1((url) => {
      if (url === urlOf(v2)) broken.value = false;
      return false;
    });
    const before = remotesAsked();
    const asked = backend.answered('/api/gateway/remotes');
    const reloadRemote = renderBoundary(platform, broken);
    await asked;
    await screen.findByText('crm customer form');
    expect(reloadRemote).toHaveBeenCalledTimes(1);
    expect(remotesAsked()).toBe(before + 1);
    expect(registered.at(-1)).toBe(urlOf(v2));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('failing again, says to reload the page and does not retry by itself again', async () => {
    const broken = { value: true };
    const { platform } = await platformOnRelease1(() => false);
    const asked = backend.answered('/api/gateway/remotes');
    const reloadRemote = renderBoundary(platform, broken);
    await asked;
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The customer form could not be loaded.')).toBeTruthy();
    expect(alert.textContent).toContain('Reload the page to load it.');
    within(alert).getByRole('button', { name: 'Reload the page' });
    expect(reloadRemote).toHaveBeenCalledTimes(1);
  });
});
