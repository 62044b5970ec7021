import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSdkError } from '../../../src/sdk/errors';
import { diagnosisOf, type FederationRuntime, RemoteLoadError, RemoteLoader } from '../../../src/sdk/remotes';
import { PlatformProvider } from '../../../src/shell/hooks/use-platform';
import { RemoteUnavailable } from '../../../src/shell/views/RemoteUnavailable';
import { setDeveloperDetails } from '../../../src/shell/words/developer-details';
import { testPlatform } from '../support/desk-frame';

const ENTRY = 'http://127.0.0.1:3001/remoteEntry.js';

const shared = new RemoteLoadError('legacy', {
  code: 'remote_shared_incompatible',
  detail: 'requires react ^18.2.0, but the Desk runs react 19.3.1, so it was not run.',
});

/** The notice inside the Desk's platform (it follows the service's dev build, when overridden). */
function renderNotice(): void {
  render(
    <PlatformProvider platform={testPlatform()}>
      <RemoteUnavailable service="legacy" error={shared} onRetry={() => {}} />
    </PlatformProvider>,
  );
}

afterEach(() => {
  cleanup();
  setDeveloperDetails(false);
  vi.restoreAllMocks();
});

describe('RemoteUnavailable with a diagnosed failure', () => {
  it('shows the user the usual contained message, and no diagnosis', () => {
    renderNotice();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Part of this page could not be loaded.');
    expect(alert.textContent).not.toContain('remote_shared_incompatible');
    expect(alert.textContent).not.toContain('18.2.0');
  });

  it('names the failed requirement with its code and both versions in the developer details', () => {
    setDeveloperDetails(true);
    renderNotice();
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('[data-diagnosis]')?.textContent).toBe('remote_shared_incompatible');
    expect(alert.textContent).toContain('legacy: requires react ^18.2.0, but the Desk runs react 19.3.1');
  });
});

describe('RemoteLoader in a page with a Content-Security-Policy', () => {
  it('diagnoses remote_csp_refused from the page’s securitypolicyviolation event for an eval in the entry', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const runtime: FederationRuntime = {
      registerRemotes: () => {},
      loadRemote: async () => {
        // What the browser does with a dev build using an eval devtool: refuse the eval, report it, and the
        // entry ends up defining no container.
        const event = Object.assign(new Event('securitypolicyviolation'), {
          blockedURI: 'eval',
          effectiveDirective: 'script-src',
          violatedDirective: 'script-src',
          sourceFile: ENTRY,
        });
        document.dispatchEvent(event);
        throw new Error('Failed to get remoteEntry exports. #RUNTIME-001');
      },
      preloadRemote: async () => {},
    };
    const loader = new RemoteLoader({ runtime });
    loader.register('notes', { url: ENTRY });
    const error = await loader.load('notes', './views').catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('remote_load_failed');
    expect(diagnosisOf(error)?.code).toBe('remote_csp_refused');
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/^\[desk\] remote_csp_refused: notes: .*eval/);
  });
});
