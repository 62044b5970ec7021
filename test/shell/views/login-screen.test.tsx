/**
 * The sign-in screen's first state against the mock backend: no user name is filled in for the user (not
 * even the Administrator's), the user name has the focus, and Sign in waits for both a name and a password;
 * what the user types is what is sent.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { LoginScreen } from '../../../src/shell/views/LoginScreen';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend({ signedIn: false });
});
afterEach(() => {
  cleanup();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

function renderScreen() {
  const platform = newTestPlatform();
  render(
    <PlatformProvider platform={platform}>
      <LoginScreen />
    </PlatformProvider>,
  );
  return platform;
}

describe('the sign-in screen', () => {
  it('starts with an empty, focused user name and Sign in off until both fields are filled', () => {
    renderScreen();
    const user = screen.getByLabelText('User') as HTMLInputElement;
    expect(user.value).toBe('');
    expect(document.activeElement).toBe(user);
    const signIn = screen.getByRole('button', { name: 'Sign in' });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'admin' } });
    expect(signIn).toHaveProperty('disabled', true);
    fireEvent.change(user, { target: { value: 'Administrator' } });
    expect(signIn).toHaveProperty('disabled', false);
  });

  it('signs in as the user typed', async () => {
    const platform = renderScreen();
    fireEvent.change(screen.getByLabelText('User'), { target: { value: 'Administrator' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(platform.session.getSnapshot().status).toBe('signed-in'));
    const sent = backend.to('/api/method/login', 'POST');
    expect(sent).toHaveLength(1);
    await platform.logout();
  });
});
