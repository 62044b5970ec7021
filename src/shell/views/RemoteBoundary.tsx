/**
 * The error boundary around everything a UI remote renders: a remote that throws shows a contained error
 * (with "Try again"; the service and the cause are developer details) and the rest of the Desk keeps working.
 * Inside it, the remote's components get Refine's context ({@link RemoteScope}), in an element marked as
 * the service's remote root: the remote's own stylesheets are confined to it (docs/mfe-teams.md#styles-of-a-remote).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { REMOTE_ROOT_ATTRIBUTE } from '../isolation/remote-root';
import { RemoteScope } from './RemoteScope';
import { ErrorState } from './states';

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
}

interface State {
  error: unknown;
  attempt: number;
}

/** Catches render errors of a remote's components. */
export class RemoteBoundary extends Component<RemoteBoundaryProps, State> {
  override state: State = { error: undefined, attempt: 0 };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error ?? new Error('Unknown error') };
  }

  override componentDidCatch(error: unknown, _info: ErrorInfo): void {
    this.props.onError?.(error);
  }

  override render(): ReactNode {
    if (this.state.error === undefined) {
      // `display: contents`: the root adds no box, so the remote lays out as if it were not there.
      return (
        <div {...{ [REMOTE_ROOT_ATTRIBUTE]: this.props.service }} style={{ display: 'contents' }}>
          <RemoteScope key={this.state.attempt}>{this.props.children}</RemoteScope>
        </div>
      );
    }
    const cause = this.state.error as { message?: unknown };
    const error = {
      code: 'remote_render_failed',
      message: `${this.props.service}: ${typeof cause?.message === 'string' ? cause.message : 'render failed'}`,
    };
    return (
      <div className="desk-remote-error" data-remote={this.props.service}>
        <ErrorState
          title={`${this.props.what} stopped working.`}
          error={error}
          onRetry={() => this.setState((s) => ({ error: undefined, attempt: s.attempt + 1 }))}
        >
          {this.props.actions}
        </ErrorState>
      </div>
    );
  }
}
