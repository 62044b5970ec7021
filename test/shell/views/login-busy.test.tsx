/**
 * The sign-in screen when the server is busy checking passwords: a 503 `login_busy` with `Retry-After` is
 * counted down on screen and the sign-in sent again by itself, against the mock backend (the backend's own
 * routes), with the refusals injected before it. Timers are faked, so the countdown is stepped, not waited.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { LoginScreen } from '../../../src/shell/views/LoginScreen';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ signedIn: false });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  backend.server.resetHandlers();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

/** Answers the next `times` sign-ins 503 `login_busy` with `Retry-After: <seconds>`. */
function refuseSignIns(times: number, seconds: string) {
  let left = times;
  backend.server.use(
    http.post(`${ORIGIN}/api/method/login`, () => {
      if (left <= 0) return undefined;
      left--;
      return HttpResponse.json(
        { error: { code: 'login_busy', message: 'Too many sign-ins at once; try again.' } },
        { status: 503, headers: { 'Retry-After': seconds } },
      );
    }),
  );
}

function renderScreen() {
  const platform = newTestPlatform();
  render(
    <PlatformProvider platform={platform}>
      <LoginScreen />
    </PlatformProvider>,
  );
  fireEvent.change(screen.getByLabelText('User'), { target: { value: 'Administrator' } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'admin' } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
  return platform;
}

/** Moves the faked clock on by `ms` and lets the promises it released run. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

/**
 * Resolves with `find()` once it finds something, letting requests and renders run in between without
 * moving the faked clock (testing-library's own waiting polls with the timers faked here).
 */
async function eventually<T>(find: () => T | null | undefined): Promise<T> {
  for (let turn = 0; turn < 1_000; turn++) {
    const found = find();
    if (found) return found;
    await act(async () => {
      await new Promise((resolve) => setImmediate(resolve));
    });
  }
  throw new Error('never found');
}

const status = () => screen.queryByRole('status');
const alert = () => screen.queryByRole('alert');

describe('the sign-in screen when the server is busy', () => {
  it('counts the Retry-After down, signs in again by itself, and is signed in', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    refuseSignIns(1, '2');
    const platform = renderScreen();
    expect((await eventually(status)).textContent).toBe(
      'Many people are signing in right now. Trying again in 2 s…',
    );
    expect(backend.to('/api/method/login', 'POST')).toHaveLength(1);
    await advance(1_000);
    expect(screen.getByRole('status').textContent).toContain('Trying again in 1 s');
    expect(backend.to('/api/method/login', 'POST')).toHaveLength(1);
    await advance(1_000);
    await eventually(() => platform.session.getSnapshot().status === 'signed-in');
    expect(backend.to('/api/method/login', 'POST')).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
    await platform.logout();
  });

  it('shows the refusal after five automatic tries, and does not wait on a Retry-After over 60 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    refuseSignIns(6, '1');
    renderScreen();
    for (let i = 0; i < 5; i++) {
      await eventually(status);
      await advance(1_000);
    }
    expect((await eventually(alert)).textContent).toBe(
      'Signing in did not work. Many people are signing in right now. Try again in a moment.',
    );
    expect(backend.to('/api/method/login', 'POST')).toHaveLength(6);

    cleanup();
    backend.requests.length = 0;
    backend.server.resetHandlers();
    refuseSignIns(1, '120');
    renderScreen();
    expect((await eventually(alert)).textContent).toContain('Many people are signing in right now.');
    expect(screen.queryByRole('status')).toBeNull();
    expect(backend.to('/api/method/login', 'POST')).toHaveLength(1);
  });
});
