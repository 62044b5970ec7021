/**
 * The frame the Desk renders its screens in, for view tests: a platform (the test origin's gateway, signed in
 * as Administrator) and the shell's QueryClient. Remote components inside also get Refine's context, which
 * `RemoteBoundary` loads on first use.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { createPlatform, type DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { createQueryClient } from '../../../src/shell/views/App';
import { ORIGIN } from '../../sdk/helpers';

/** A platform on the test backend's origin, with no core services, whose session is still being checked. */
export function newTestPlatform(): DeskPlatform {
  return createPlatform({
    mode: 'monolith',
    gatewayUrl: ORIGIN,
    deskBase: '/desk/',
    coreServices: [],
    securityConfigUrl: `${ORIGIN}/api/v1/security/config`,
    version: 'test',
  });
}

/**
 * A platform as {@link newTestPlatform}, signed in as Administrator (a System Manager), or as `user` with
 * the given roles and per-DocType permissions, as whoami reports them with the session.
 */
export function testPlatform(user?: SessionUser): DeskPlatform {
  const platform = newTestPlatform();
  platform.session.signedIn(user ?? { user: 'Administrator', roles: ['System Manager'], permissions: {} });
  return platform;
}

/** `children` inside the platform and a fresh QueryClient, as App renders a screen. */
export function DeskFrame({
  platform,
  children,
}: {
  platform: DeskPlatform;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <PlatformProvider platform={platform}>
      <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>
    </PlatformProvider>
  );
}

/**
 * Loads the module `RemoteScope` loads on first use (Refine), so a test's first remote component does not
 * wait for it to be transformed: call it in `beforeAll`.
 */
export async function preloadRemoteScope(): Promise<void> {
  await import('../../../src/shell/views/RefineScope');
}
