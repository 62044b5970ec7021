/**
 * Signing out of the Desk (`platform.logout()`) against the mock backend: the server's session ends even
 * when this tab's CSRF token went stale (the token is asked for again and the sign-out sent once more), and
 * a server that cannot be reached leaves the page signed out with a notice saying so, not a failure nobody
 * sees.
 */
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_USER } from '../../../mocks/support/create-mock-backend';
import { csrfTokenStore } from '../../../src/sdk/http';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  // Cookie sessions with their CSRF token: requests carry only what signing in gave them.
  backend = await startBackend({ signedIn: false });
});
afterEach(() => {
  backend.server.resetHandlers();
  localStorage.clear();
  csrfTokenStore.clear();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

describe('signing out', () => {
  it('ends the server session though the tab held a stale CSRF token', async () => {
    const platform = newTestPlatform();
    await platform.login(MOCK_USER.usr, MOCK_USER.pwd);
    expect(platform.session.getSnapshot()).toMatchObject({ status: 'signed-in' });
    // The session changed under this tab (a sign-in elsewhere): the server refuses its token once.
    csrfTokenStore.set('a-token-of-another-session');
    backend.server.use(
      http.post(
        `${ORIGIN}/api/method/logout`,
        () =>
          HttpResponse.json(
            { error: { code: 'csrf_failed', message: 'The CSRF token is missing or invalid.' } },
            { status: 403 },
          ),
        { once: true },
      ),
    );

    const whoamis = () => backend.to('/api/method/whoami', 'GET').length;
    const before = whoamis();
    await platform.logout();

    // Refused once (the handler above), then sent again with the token whoami gave for the session.
    const sent = backend.to('/api/method/logout', 'POST').map((r) => r.headers.get('x-csrf-token'));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe('a-token-of-another-session');
    expect(sent[1]).toBeTruthy();
    expect(sent[1]).not.toBe('a-token-of-another-session');
    expect(whoamis()).toBe(before + 1);
    expect(platform.session.getSnapshot()).toMatchObject({ status: 'signed-out' });
    expect(platform.notices.getSnapshot()).toEqual([]);
    // The server's session is over: asked again, whoami refuses it.
    await platform.checkSession();
    expect(whoamis()).toBe(before + 2);
    expect(platform.session.getSnapshot()).toMatchObject({ status: 'signed-out' });
    platform.dispose();
  });

  it('signs the page out and says so when the server cannot be told', async () => {
    const platform = newTestPlatform();
    await platform.login(MOCK_USER.usr, MOCK_USER.pwd);
    backend.server.use(http.post(`${ORIGIN}/api/method/logout`, () => HttpResponse.error()));

    await platform.logout();

    expect(platform.session.getSnapshot()).toMatchObject({ status: 'signed-out' });
    expect(platform.notices.getSnapshot()).toEqual([
      expect.objectContaining({ tone: 'error', message: expect.stringContaining('Signed out here') }),
    ]);
    // The session it could not end, ended now: the next file's backend must not receive its cookie.
    backend.server.resetHandlers();
    await platform.checkSession();
    await platform.logout();
    platform.dispose();
  });
});
