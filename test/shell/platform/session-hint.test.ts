/**
 * The boot's session check against the mock backend: a browser never signed in starts signed out without
 * asking the server (no 401 before sign-in); one signed in before asks `whoami` and stays signed in; signing
 * out forgets it, so the next boot does not ask.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenStore } from '../../../src/sdk/http';
import { mayHaveSession } from '../../../src/shell/platform/session-hint';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(() => {
  localStorage.clear();
  csrfTokenStore.clear();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

const whoamis = () => backend.to('/api/method/whoami', 'GET');

describe('the session check at boot', () => {
  it('does not ask the server in a browser that was never signed in', async () => {
    const platform = newTestPlatform();
    await platform.checkSession({ onlyIfSignedInBefore: true });
    expect(platform.session.getSnapshot()).toEqual({ status: 'signed-out' });
    expect(whoamis()).toHaveLength(0);
    platform.dispose();
  });

  it('asks in a tab that still holds a CSRF token of a session (a session set up before the page)', async () => {
    csrfTokenStore.set('token-of-an-earlier-sign-in');
    const platform = newTestPlatform();
    await platform.checkSession({ onlyIfSignedInBefore: true });
    expect(whoamis()).toHaveLength(1);
    expect(platform.session.getSnapshot()).toMatchObject({ status: 'signed-in' });
    csrfTokenStore.clear();
    platform.dispose();
  });

  it('asks in a browser signed in before, and forgets the session on sign-out', async () => {
    const first = newTestPlatform();
    await first.checkSession();
    expect(first.session.getSnapshot()).toMatchObject({ status: 'signed-in', user: 'Administrator' });
    expect(mayHaveSession()).toBe(true);
    first.dispose();

    // The next boot of this browser asks, and is signed in.
    const second = newTestPlatform();
    await second.checkSession({ onlyIfSignedInBefore: true });
    expect(second.session.getSnapshot()).toMatchObject({ status: 'signed-in', user: 'Administrator' });
    expect(whoamis()).toHaveLength(2);

    await second.logout();
    expect(mayHaveSession()).toBe(false);
    second.dispose();
  });
});
