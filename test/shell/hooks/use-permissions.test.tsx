/**
 * usePermissions reads what the session already knows from whoami; it asks the server itself only when the
 * session carries no roles.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { usePermissions } from '../../../src/shell/hooks/use-permissions';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { startBackend, type TestBackend } from '../../sdk/helpers';
import { newTestPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(cleanup);
afterAll(() => backend.server.close());

function Probe() {
  const permissions = usePermissions();
  if (!permissions.ready) return <p>unknown</p>;
  return (
    <p>
      delete customers: {String(permissions.can('crm.Customer', 'delete'))}; read items:{' '}
      {String(permissions.can('stock.Item', 'read'))}
    </p>
  );
}

describe('usePermissions', () => {
  it("answers from the session's whoami without a request of its own", async () => {
    const platform = newTestPlatform();
    platform.session.signedIn({
      user: 'sales.user',
      roles: ['Sales User'],
      permissions: { 'crm.Customer': { read: true, create: true, write: true, delete: false } },
    });
    const before = backend.to('/api/method/whoami', 'GET').length;

    render(
      <PlatformProvider platform={platform}>
        <Probe />
      </PlatformProvider>,
    );

    expect(screen.getByText('delete customers: false; read items: false')).toBeTruthy();
    expect(backend.to('/api/method/whoami', 'GET')).toHaveLength(before);
  });

  it('asks whoami once when the session carries no roles', async () => {
    const platform = newTestPlatform();
    await platform.login('Administrator', 'admin');
    platform.session.signedIn('Administrator');
    const before = backend.to('/api/method/whoami', 'GET').length;

    render(
      <PlatformProvider platform={platform}>
        <Probe />
        <Probe />
      </PlatformProvider>,
    );

    expect(await screen.findAllByText('delete customers: true; read items: true')).toHaveLength(2);
    expect(backend.to('/api/method/whoami', 'GET')).toHaveLength(before + 1);
    await platform.logout();
  });
});
