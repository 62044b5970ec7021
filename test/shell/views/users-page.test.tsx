/**
 * The Users page against the mock backend (the backend's own routes): a System Manager creates a user with a
 * role, disables and enables them again (each a request to the users API, the list following); any other user
 * sees a refusal and the API is not asked. A row's editor takes the focus, closes with Escape back on its
 * button, starts from the stored roles, and Enter sets a new password.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import type { DeskPlatform } from '../../../src/shell/platform/create-platform';
import { UsersPage } from '../../../src/shell/views/UsersPage';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(cleanup);
afterAll(() => backend.server.close());

function renderPage(platform: DeskPlatform) {
  render(
    <PlatformProvider platform={platform}>
      <UsersPage />
    </PlatformProvider>,
  );
}

describe('Users page', () => {
  it('creates a user with a role, disables them and enables them again', async () => {
    const platform = newTestPlatform();
    await platform.login('Administrator', 'admin');
    renderPage(platform);

    const administrator = (await screen.findByRole('rowheader', { name: 'Administrator' })).closest('tr')!;
    // The server never disables Administrator, so the page does not offer it.
    expect(within(administrator).queryByRole('button', { name: 'Disable' })).toBeNull();
    const form = screen.getByRole('form', { name: 'New user' });
    fireEvent.change(within(form).getByLabelText('User name'), { target: { value: 'greta' } });
    fireEvent.change(within(form).getByLabelText('Password (at least 8 characters)'), {
      target: { value: 'greta-password' },
    });
    fireEvent.click(await within(form).findByLabelText('Stock User'));
    fireEvent.click(within(form).getByRole('button', { name: 'Create user' }));

    const row = async () => (await screen.findByRole('rowheader', { name: 'greta' })).closest('tr')!;
    expect(within(await row()).getByText('Stock User')).toBeTruthy();
    expect(backend.to('/api/method/platform.users.add', 'POST')).toHaveLength(1);

    fireEvent.click(within(await row()).getByRole('button', { name: 'Disable' }));
    await waitFor(async () => expect(within(await row()).getByText('Disabled')).toBeTruthy());
    fireEvent.click(within(await row()).getByRole('button', { name: 'Enable' }));
    await waitFor(async () => expect(within(await row()).getByText('Enabled')).toBeTruthy());
    expect(platform.notices.getSnapshot().map((n) => n.message)).toEqual([
      'greta disabled and signed out everywhere.',
      'greta enabled again.',
    ]);
    expect(backend.to('/api/method/platform.users.disable', 'POST')).toHaveLength(1);
    expect(backend.to('/api/method/platform.users.enable', 'POST')).toHaveLength(1);
    await platform.logout();
  });

  it('offers the roles the server names, and gives one typed in that no rule names yet', async () => {
    const platform = newTestPlatform();
    await platform.login('Administrator', 'admin');
    renderPage(platform);
    const form = await screen.findByRole('form', { name: 'New user' });
    // Offered by the server: its own roles and those the installed apps' rules name.
    for (const role of ['System Manager', 'Metrics Reader', 'Sales User', 'Stock User']) {
      expect(await within(form).findByLabelText(role)).toBeTruthy();
    }
    expect(backend.to('/api/method/platform.users.roles', 'POST').length).toBeGreaterThan(0);

    const other = within(form).getByLabelText('Another role');
    fireEvent.change(other, { target: { value: '9 lives' } });
    expect(within(form).getByText(/A role name starts with a letter/)).toBeTruthy();
    expect((within(form).getByRole('button', { name: 'Add' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(other, { target: { value: 'Warehouse Clerk' } });
    fireEvent.keyDown(other, { key: 'Enter' });
    expect((within(form).getByLabelText('Warehouse Clerk') as HTMLInputElement).checked).toBe(true);

    fireEvent.change(within(form).getByLabelText('User name'), { target: { value: 'wanda' } });
    fireEvent.change(within(form).getByLabelText('Password (at least 8 characters)'), {
      target: { value: 'wanda-password' },
    });
    fireEvent.click(within(form).getByRole('button', { name: 'Create user' }));
    const row = (await screen.findByRole('rowheader', { name: 'wanda' })).closest('tr')!;
    expect(within(row).getByText('Warehouse Clerk')).toBeTruthy();
    await platform.logout();
  });

  it('refuses a user who is not a System Manager without asking the users API', async () => {
    const platform = newTestPlatform();
    platform.session.signedIn({ user: 'clerk', roles: ['Stock User'], permissions: {} });
    const before = backend.to('/api/method/platform.users.list', 'POST').length;
    renderPage(platform);

    expect(screen.getByText('Only a System Manager may manage users.')).toBeTruthy();
    // A refusal, not a failure: no alert and no words about a service that did not answer.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.body.textContent).not.toMatch(/did not answer/);
    expect(backend.to('/api/method/platform.users.list', 'POST')).toHaveLength(before);
  });

  it('opens a row editor with focus in it, closes it with Escape back on its button, and starts each edit from the stored roles', async () => {
    const platform = newTestPlatform();
    await platform.login('Administrator', 'admin');
    try {
      const form = () => screen.getByRole('form', { name: 'New user' });
      renderPage(platform);
      await screen.findByRole('form', { name: 'New user' });
      fireEvent.change(within(form()).getByLabelText('User name'), { target: { value: 'kurt' } });
      fireEvent.change(within(form()).getByLabelText('Password (at least 8 characters)'), {
        target: { value: 'kurt-password' },
      });
      fireEvent.click(await within(form()).findByLabelText('Sales User'));
      fireEvent.click(within(form()).getByRole('button', { name: 'Create user' }));
      const row = async () => (await screen.findByRole('rowheader', { name: 'kurt' })).closest('tr')!;
      await waitFor(async () => expect(within(await row()).getByText('Sales User')).toBeTruthy());

      fireEvent.click(within(await row()).getByRole('button', { name: 'Edit roles' }));
      const editor = within(await row()).getByRole('group', { name: 'Roles of kurt' });
      // Focus is in the editor, not lost to the page with the button that opened it.
      expect(editor.contains(document.activeElement)).toBe(true);
      // A role ticked, then the edit abandoned with Escape.
      fireEvent.click(within(editor).getByLabelText('System Manager'));
      fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
      expect(within(await row()).queryByRole('group', { name: 'Roles of kurt' })).toBeNull();
      expect(document.activeElement).toBe(within(await row()).getByRole('button', { name: 'Edit roles' }));

      // Opened again, the editor shows kurt's stored roles, not the abandoned tick: Save roles would
      // otherwise make kurt a System Manager unseen.
      fireEvent.click(within(await row()).getByRole('button', { name: 'Edit roles' }));
      const again = within(await row()).getByRole('group', { name: 'Roles of kurt' });
      expect(within(again).getByLabelText('System Manager')).toHaveProperty('checked', false);
      expect(within(again).getByLabelText('Sales User')).toHaveProperty('checked', true);
      fireEvent.click(within(await row()).getByRole('button', { name: 'Cancel' }));

      // Enter in the new password sets it.
      fireEvent.click(within(await row()).getByRole('button', { name: 'Reset password' }));
      const password = within(await row()).getByLabelText('New password for kurt');
      expect(document.activeElement).toBe(password);
      fireEvent.change(password, { target: { value: 'kurt-new-password' } });
      fireEvent.keyDown(password, { key: 'Enter' });
      await waitFor(() =>
        expect(backend.to('/api/method/platform.users.set_password', 'POST')).toHaveLength(1),
      );
    } finally {
      await platform.logout();
    }
  });
});
