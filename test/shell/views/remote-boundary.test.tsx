import { act, cleanup, fireEvent, render as renderRaw, screen, within } from '@testing-library/react';
import { type ReactNode, useState } from 'react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DevBuildWatcher, type OpenBuildEvents } from '../../../src/sdk/remotes';
import { RemoteBoundary } from '../../../src/shell/views/RemoteBoundary';
import { RemoteUnavailable } from '../../../src/shell/views/RemoteUnavailable';
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

/** Dev-server status streams the test drives: one per URL opened, with a way to send a status event. */
function fakeStreams() {
  const opened: Array<{ url: string; closed: boolean; send(status: unknown): void }> = [];
  const open: OpenBuildEvents = (url) => {
    const listeners: Array<(event: { data: string }) => void> = [];
    const stream = {
      url,
      closed: false,
      send: (status: unknown) => {
        for (const listener of listeners) listener({ data: JSON.stringify(status) });
      },
    };
    opened.push(stream);
    return {
      addEventListener: (type, listener) => {
        if (type === 'status') listeners.push(listener);
      },
      close: () => {
        stream.closed = true;
      },
    };
  };
  return { opened, open };
}

/** A form with an input whose value is the component's own state, as a remote's form keeps it. */
function NoteForm(): React.JSX.Element {
  const [title, setTitle] = useState('');
  return (
    <label>
      Title <input value={title} onChange={(e) => setTitle(e.target.value)} />
    </label>
  );
}

describe('a failed dev build of an overridden remote', () => {
  it('covers only that remote with each error’s file, line and message, keeps it mounted, and goes when the fix builds', async () => {
    const streams = fakeStreams();
    const platform = { ...testPlatform(), devBuilds: new DevBuildWatcher(streams.open) };
    platform.devBuilds.watch('notes', 'http://127.0.0.1:3001/remoteEntry.js');
    expect(streams.opened.map((s) => s.url)).toEqual(['http://127.0.0.1:3001/__desk/build-status']);
    renderRaw(
      <DeskFrame platform={platform}>
        <nav>Sidebar links</nav>
        <RemoteBoundary service="notes" what="The Note form">
          <NoteForm />
        </RemoteBoundary>
        <RemoteBoundary service="crm" what="The Customer form">
          <p>crm customer form</p>
        </RemoteBoundary>
      </DeskFrame>,
    );
    const input = await screen.findByLabelText('Title');
    fireEvent.change(input, { target: { value: 'Typed before the error' } });

    act(() => streams.opened[0]!.send({ state: 'building', errors: [] }));
    expect(screen.queryByRole('alert')).toBeNull();
    act(() =>
      streams.opened[0]!.send({
        state: 'failed',
        errors: [{ file: 'ui/NoteForm.tsx', line: 4, column: 1, message: 'Unexpected "<<"' }],
      }),
    );
    const overlay = screen.getByRole('alert', { name: 'The notes dev build failed' });
    expect(within(overlay).getByText('ui/NoteForm.tsx:4:1')).toBeTruthy();
    expect(within(overlay).getByText('Unexpected "<<"')).toBeTruthy();
    // Over the notes remote only: the other remote and the rest of the page are not covered.
    expect(overlay.parentElement?.contains(screen.getByLabelText('Title'))).toBe(true);
    expect(overlay.parentElement?.contains(screen.getByText('crm customer form'))).toBe(false);
    expect(screen.getByText('Sidebar links')).toBeTruthy();

    act(() => streams.opened[0]!.send({ state: 'ok', errors: [] }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect((screen.getByLabelText('Title') as HTMLInputElement).value).toBe('Typed before the error');
  });

  it('names the errors in the notice when the failed build left nothing to load', async () => {
    const streams = fakeStreams();
    const platform = { ...testPlatform(), devBuilds: new DevBuildWatcher(streams.open) };
    platform.devBuilds.watch('notes', 'http://127.0.0.1:3001/remoteEntry.js');
    const error = Object.assign(new Error('remoteEntry.js answered 404'), { code: 'remote_load_failed' });
    renderRaw(
      <DeskFrame platform={platform}>
        <RemoteUnavailable service="notes" error={error} onRetry={() => {}} />
      </DeskFrame>,
    );
    const notice = screen.getByRole('alert');
    expect(notice.textContent).not.toContain('dev build failed');
    act(() =>
      streams.opened[0]!.send({
        state: 'failed',
        errors: [{ file: 'ui/views.ts', line: 2, message: 'Expected ";" but found "x"' }],
      }),
    );
    expect(within(notice).getByRole('heading', { name: 'The notes dev build failed' })).toBeTruthy();
    expect(within(notice).getByText('ui/views.ts:2')).toBeTruthy();
    expect(within(notice).getByText('Expected ";" but found "x"')).toBeTruthy();
  });

  it('ignores events that are not a build status, and stops listening when the override goes', () => {
    const streams = fakeStreams();
    const watcher = new DevBuildWatcher(streams.open);
    watcher.watch('notes', 'http://127.0.0.1:3001/remoteEntry.js');
    watcher.watch('notes', 'http://127.0.0.1:3001/remoteEntry.js');
    expect(streams.opened).toHaveLength(1);
    streams.opened[0]!.send({ state: 'exploded' });
    expect(watcher.getSnapshot()).toEqual({});
    streams.opened[0]!.send({ state: 'failed', errors: [{ message: 'x', line: 'two' }] });
    expect(watcher.getSnapshot()).toEqual({ notes: { state: 'failed', errors: [{ message: 'x' }] } });
    watcher.unwatch('notes');
    expect(streams.opened[0]!.closed).toBe(true);
    expect(watcher.getSnapshot()).toEqual({});
  });
});
