/** The contained notice shown when a service's UI remote could not be loaded. */
import type { ReactNode } from 'react';
import { describeError } from './states';

/** A banner (role=alert) naming the service and the error code, with Retry. */
export function RemoteUnavailable({
  service,
  error,
  onRetry,
  children,
}: {
  service: string;
  error: unknown;
  onRetry(): void;
  children?: ReactNode;
}): React.JSX.Element {
  const { code, message } = describeError(error);
  return (
    <div className="desk-banner desk-banner--warning desk-remote-error" role="alert" data-remote={service}>
      <p>
        <strong>The {service} interface could not be loaded.</strong> {children ?? null}
      </p>
      <p className="desk-banner__detail">
        {message}
        {code ? <code className="desk-banner__code">{code}</code> : null}
      </p>
      <button type="button" className="desk-button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}
