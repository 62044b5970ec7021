/**
 * The sidebar's Audit entry: for System Managers in either mode (a MACROSERVICE gateway serves the logs of
 * its services merged), for nobody else.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type DeskPlatform } from '../../../src/shell/platform/create-platform';
import type { SessionUser } from '../../../src/shell/platform/session';
import { Sidebar } from '../../../src/shell/views/Sidebar';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';
import { DeskFrame, testPlatform } from '../support/desk-frame';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(cleanup);
afterAll(() => backend.server.close());

const ADMIN: SessionUser = { user: 'Administrator', roles: ['System Manager'], permissions: {} };

function renderSidebar(platform: DeskPlatform) {
  render(
    <DeskFrame platform={platform}>
      <Sidebar route={{ kind: 'audit' }} />
    </DeskFrame>,
  );
}

const auditLink = () => screen.queryByRole('link', { name: 'Audit' });

describe('the Audit entry of the sidebar', () => {
  it('leads a System Manager to #/audit, marked as the current page there', () => {
    renderSidebar(testPlatform(ADMIN));
    expect(auditLink()?.getAttribute('href')).toBe('#/audit');
    expect(auditLink()?.getAttribute('aria-current')).toBe('page');
  });

  it('is not offered to anyone else', () => {
    renderSidebar(testPlatform({ user: 'sam', roles: ['Sales Manager'], permissions: {} }));
    expect(screen.getByRole('link', { name: 'Home' })).toBeTruthy();
    expect(auditLink()).toBeNull();
  });

  it("is offered in MACROSERVICE too, where the gateway merges the services' logs", () => {
    const platform = createPlatform({
      mode: 'macroservice',
      gatewayUrl: ORIGIN,
      deskBase: '/desk/',
      coreServices: [],
      securityConfigUrl: `${ORIGIN}/api/v1/security/config`,
      version: 'test',
    });
    platform.session.signedIn(ADMIN);
    renderSidebar(platform);
    expect(screen.getByRole('link', { name: 'Users' })).toBeTruthy();
    expect(auditLink()?.getAttribute('href')).toBe('#/audit');
  });
});
