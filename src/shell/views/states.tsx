/** Loading, empty and error states shared by every Desk screen (and usable by remotes through the CSS classes). */
import type { ReactNode } from 'react';

/** A polite, screen-reader-announced loading indicator. */
export function Loading({ label = 'Loading…' }: { label?: string }): React.JSX.Element {
  return (
    <div className="desk-state desk-state--loading" role="status" aria-live="polite">
      <span className="desk-spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** An empty state with an optional call to action. */
export function Empty({ title, children }: { title: string; children?: ReactNode }): React.JSX.Element {
  return (
    <div className="desk-state desk-state--empty">
      <p className="desk-state__title">{title}</p>
      {children}
    </div>
  );
}

/** An error state (role=alert) with a Retry button when `onRetry` is given. */
export function ErrorState({
  title,
  message,
  code,
  onRetry,
  children,
}: {
  title: string;
  message?: string;
  code?: string;
  onRetry?: () => void;
  children?: ReactNode;
}): React.JSX.Element {
  return (
    <div className="desk-state desk-state--error" role="alert">
      <p className="desk-state__title">{title}</p>
      {message ? <p className="desk-state__message">{message}</p> : null}
      {code ? (
        <p className="desk-state__code">
          Code: <code>{code}</code>
        </p>
      ) : null}
      <div className="desk-actions">
        {onRetry ? (
          <button type="button" className="desk-button" onClick={onRetry}>
            Retry
          </button>
        ) : null}
        {children}
      </div>
    </div>
  );
}

/** The `code` and a safe message of any thrown value (SDK errors carry a string `code`). */
export function describeError(error: unknown): { code?: string; message: string } {
  if (error && typeof error === 'object') {
    const e = error as { code?: unknown; message?: unknown };
    return {
      code: typeof e.code === 'string' ? e.code : undefined,
      message: typeof e.message === 'string' && e.message ? e.message : 'Something went wrong.',
    };
  }
  return { message: 'Something went wrong.' };
}
