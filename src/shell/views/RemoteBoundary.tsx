/**
 * The error boundary around everything a UI remote renders: a remote that throws shows a contained error
 * (with "Try again"; the service and the cause are developer details) and the rest of the Desk keeps working.
 * A chunk of the remote that fails to download while it renders (its release no longer served) is retried
 * once against the service's current remote (`reloadRemote`); failing again, the boundary says to reload
 * the page. Inside it, the remote's components get Refine's context ({@link RemoteScope}), in an element
 * marked as the service's remote root: the remote's own stylesheets are confined to it
 * (docs/mfe-teams.md#styles-of-a-remote). A failed dev build of an overridden remote shows over its area
 * ({@link DevBuildOverlay}).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useDevBuild } from '../hooks/use-dev-build';
import { REMOTE_ROOT_ATTRIBUTE } from '../isolation/remote-root';
import { CHUNK_FAILED, isChunkLoadError } from '../platform/chunk-retry';
import { DevBuildOverlay } from './DevBuildOverlay';
import { RemoteScope } from './RemoteScope';
import { ErrorState, Loading, ReloadPageButton } from './states';

/** Props of {@link RemoteBoundary}. */
export interface RemoteBoundaryProps {
  /** The service whose remote renders inside. */
  service: string;
  /** What failed, for the message ("the Customer form"). */
  what: string;
  children: ReactNode;
  /** Extra actions next to Retry (e.g. "Use the standard form"). */
  actions?: ReactNode;
  /** Called once per caught error (e.g. to report it). */
  onError?(error: unknown): void;
  /**
   * Loads the service's remote again from the release discovery names now (`platform.reloadRemote`), for
   * the one automatic retry after a chunk failed to download; without it, a chunk failure asks for a reload.
   */
  reloadRemote?(): Promise<void>;
}

interface State {
  error: unknown;
  attempt: number;
  /** The automatic retry after a chunk failure: running, or done (no second one). */
  chunkRetry?: 'running' | 'done';
}

/**
 * The element around a remote's area: the remote root (`root`) or its error's frame. While the dev server of
 * an overridden remote reports a failed build, the errors cover the area and the remote stays mounted
 * underneath (its state survives until the fix lands).
 */
function DevBuildFrame({
  service,
  root,
  className,
  children,
}: {
  service: string;
  root?: boolean;
  className?: string;
  children: ReactNode;
}): React.JSX.Element {
  const build = useDevBuild(service);
  const failed = build?.state === 'failed';
  // `display: contents`: the root adds no box, so the remote lays out as if it were not there; a failed
  // build needs a box for its overlay to cover.
  const style = failed
    ? { position: 'relative' as const, display: 'block', minHeight: '16rem' }
    : root
      ? { display: 'contents' }
      : undefined;
  return (
    <div
      {...(root ? { [REMOTE_ROOT_ATTRIBUTE]: service } : { 'data-remote': service })}
      className={className}
      style={style}
    >
      {failed ? <DevBuildOverlay service={service} errors={build.errors} /> : null}
      {children}
    </div>
  );
}

/** Catches render errors of a remote's components. */
export class RemoteBoundary extends Component<RemoteBoundaryProps, State> {
  override state: State = { error: undefined, attempt: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error ?? new Error('Unknown error') };
  }

  override componentDidCatch(error: unknown, _info: ErrorInfo): void {
    this.props.onError?.(error);
    const { reloadRemote } = this.props;
    if (!reloadRemote || this.state.chunkRetry || !isChunkLoadError(error)) return;
    this.setState({ chunkRetry: 'running' });
    // Loaded again: render anew (the screen's views are the new release's); else say to reload the page.
    const retried = (ok: boolean) =>
      this.setState(
        (s): Pick<State, 'chunkRetry' | 'error' | 'attempt'> =>
          ok
            ? { chunkRetry: 'done', error: undefined, attempt: s.attempt + 1 }
            : { chunkRetry: 'done', error: s.error, attempt: s.attempt },
      );
    reloadRemote().then(
      () => retried(true),
      () => retried(false),
    );
  }

  override render(): ReactNode {
    const { error, chunkRetry } = this.state;
    if (error === undefined) {
      return (
        <DevBuildFrame service={this.props.service} root>
          <RemoteScope key={this.state.attempt}>{this.props.children}</RemoteScope>
        </DevBuildFrame>
      );
    }
    const chunk = isChunkLoadError(error);
    if (chunk && chunkRetry === 'running') return <Loading label="Loading…" />;
    const cause = error as { message?: unknown };
    const described = {
      code: chunk ? CHUNK_FAILED : 'remote_render_failed',
      message: `${this.props.service}: ${typeof cause?.message === 'string' ? cause.message : 'render failed'}`,
    };
    return (
      <DevBuildFrame service={this.props.service} className="desk-remote-error">
        <ErrorState
          title={chunk ? `${this.props.what} could not be loaded.` : `${this.props.what} stopped working.`}
          error={described}
          onRetry={() => this.setState((s) => ({ error: undefined, attempt: s.attempt + 1 }))}
        >
          {chunk ? <ReloadPageButton /> : null}
          {this.props.actions}
        </ErrorState>
      </DevBuildFrame>
    );
  }
}
