import { cleanup, fireEvent, render as renderRaw, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RemoteBoundary } from '../../../src/shell/views/RemoteBoundary';
import { setDeveloperDetails } from '../../../src/shell/words/developer-details';
import { DeskFrame, preloadRemoteScope, testPlatform } from '../support/desk-frame';

/** Renders `ui` in the Desk's frame (remote components get Refine's context there). */
const render = (ui: ReactNode) => renderRaw(<DeskFrame platform={testPlatform()}>{ui}</DeskFrame>);

/** A remote's component that throws while `broken.value` is true. */
function CustomerForm({ broken }: { broken: { value: boolean } }): React.JSX.Element {
  if (broken.value) throw new Error('customerForm is not a function');
  return <p>crm customer form</p>;
}

beforeAll(preloadRemoteScope);

beforeEach(() => {
  // React reports errors caught by a boundary on the console; the test asserts on the page instead.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('RemoteBoundary', () => {
  it('contains a throwing remote view: an alert in plain words with Try again, internals only as developer details, and the siblings still render', async () => {
    const broken = { value: true };
    const onError = vi.fn();
    render(
      <div>
        <nav>Sidebar links</nav>
        <RemoteBoundary
          service="crm"
          what="The Customer form"
          onError={onError}
          actions={<button type="button">Use the standard view</button>}
        >
          <CustomerForm broken={broken} />
        </RemoteBoundary>
        <RemoteBoundary service="stock" what="The stock summary">
          <p>stock summary widget</p>
        </RemoteBoundary>
      </div>,
    );

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The Customer form stopped working.')).toBeTruthy();
    // What failed inside (the service, the code, the cause) is for developers only.
    expect(alert.textContent).not.toContain('remote_render_failed');
    expect(alert.textContent).not.toContain('crm');
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
    expect(within(alert).getByRole('button', { name: 'Use the standard view' })).toBeTruthy();
    expect(alert.closest('[data-remote]')?.getAttribute('data-remote')).toBe('crm');
    expect(screen.getByText('Sidebar links')).toBeTruthy();
    expect(await screen.findByText('stock summary widget')).toBeTruthy();
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toMatchObject({ message: 'customerForm is not a function' });
  });

  it('shows the service, the code and the cause once the developer details are switched on', async () => {
    setDeveloperDetails(true);
    try {
      render(
        <RemoteBoundary service="crm" what="The Customer form">
          <CustomerForm broken={{ value: true }} />
        </RemoteBoundary>,
      );
      const alert = await screen.findByRole('alert');
      expect(within(alert).getByText('remote_render_failed')).toBeTruthy();
      expect(alert.textContent).toContain('crm: customerForm is not a function');
    } finally {
      setDeveloperDetails(false);
    }
  });

  it('renders the remote again on Try again once it no longer throws', async () => {
    const broken = { value: true };
    render(
      <RemoteBoundary service="crm" what="The Customer form">
        <CustomerForm broken={broken} />
      </RemoteBoundary>,
    );
    await screen.findByRole('alert');
    expect(screen.queryByText('crm customer form')).toBeNull();

    broken.value = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));

    expect(await screen.findByText('crm customer form')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the error again when the retried remote still throws', async () => {
    const broken = { value: true };
    const onError = vi.fn();
    render(
      <RemoteBoundary service="crm" what="The Customer form" onError={onError}>
        <CustomerForm broken={broken} />
      </RemoteBoundary>,
    );

    fireEvent.click(await screen.findByRole('button', { name: 'Try again' }));

    await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(2));
    expect((await screen.findByRole('alert')).textContent).toContain('stopped working');
    expect(onError).toHaveBeenCalledTimes(2);
  });
});
