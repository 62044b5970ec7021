/** Loading, empty and error states shared by every Desk screen (and usable by remotes through the CSS classes). */
import type { ReactNode } from 'react';
import { useDeveloperDetails } from '../words/developer-details';
import { type FailureWords, failureWords } from '../words/failure';

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

/**
 * The internals of a failure (code, status, technical message, and any `extra` such as a service name),
 * shown only when the developer details are switched on.
 */
export function DeveloperDetails({
  words,
  extra,
}: {
  words?: FailureWords;
  extra?: ReactNode;
}): React.JSX.Element | null {
  const on = useDeveloperDetails();
  if (!on) return null;
  return (
    <p className="desk-dev-details">
      {extra}
      {words?.code ? (
        <>
          {' '}
          Code: <code>{words.code}</code>
        </>
      ) : null}
      {words?.status ? <> · HTTP {words.status}</> : null}
      {words?.technical ? <> · {words.technical}</> : null}
    </p>
  );
}

/**
 * An error state (role=alert): what happened and what to do, in plain words. Retry shows only when trying
 * again can help (a network problem, a service that was down), never for a missing record or a refusal.
 */
export function ErrorState({
  title,
  error,
  onRetry,
  children,
}: {
  title: string;
  error?: unknown;
  onRetry?: () => void;
  children?: ReactNode;
}): React.JSX.Element {
  const words = failureWords(error);
  return (
    <div className="desk-state desk-state--error" role="alert">
      <p className="desk-state__title">{title}</p>
      <p className="desk-state__message">{words.message}</p>
      <DeveloperDetails words={words} />
      <div className="desk-actions">
        {onRetry && words.retryable ? (
          <button type="button" className="desk-button" onClick={onRetry}>
            Try again
          </button>
        ) : null}
        {children}
      </div>
    </div>
  );
}

/** Reloads the page: what to do when part of an app cannot be downloaded (a new version was released). */
export function ReloadPageButton(): React.JSX.Element {
  return (
    <button
      type="button"
      className="desk-button desk-button--primary"
      onClick={() => window.location.reload()}
    >
      Reload the page
    </button>
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
