/** The contained notice shown when a service's UI remote could not be loaded. */
import type { ReactNode } from 'react';
import { diagnosisOf } from '../../sdk/remotes/diagnosis';
import { useDevBuild } from '../hooks/use-dev-build';
import { CHUNK_FAILED } from '../platform/chunk-retry';
import { failureWords } from '../words/failure';
import { DevBuildErrors } from './DevBuildOverlay';
import { DeveloperDetails, ReloadPageButton } from './states';

/**
 * A banner (role=alert) saying which part of the Desk could not load and that the standard view stands in;
 * "Try again" only when the failure may pass, and when it cannot, why (a remote that failed its integrity
 * check). The service name, the code and, for a remote that breaks the remote contract, the diagnosis (which
 * requirement failed, docs/mfe-teams.md#a-remote-from-your-own-bundler-config) are developer details. When
 * the remote is overridden and its dev server reports a failed build (which emits nothing to load), the
 * build's errors show here.
 */
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
  const words = failureWords(error);
  const diagnosis = diagnosisOf(error);
  const build = useDevBuild(service);
  return (
    <div className="desk-banner desk-banner--warning desk-remote-error" role="alert" data-remote={service}>
      <p>
        <strong>Part of this page could not be loaded.</strong> {words.retryable ? null : `${words.message} `}
        {children ?? null}
      </p>
      {build?.state === 'failed' ? (
        <DevBuildErrors service={service} errors={build.errors} hint="Fix it and save, then Try again." />
      ) : null}
      <DeveloperDetails
        words={words}
        extra={
          <>
            The {service} interface did not load.
            {diagnosis ? (
              <>
                {' '}
                Diagnosis: <code data-diagnosis={diagnosis.code}>{diagnosis.code}</code>.
              </>
            ) : null}
          </>
        }
      />
      {words.retryable ? (
        <button type="button" className="desk-button" onClick={onRetry}>
          Try again
        </button>
      ) : words.code === CHUNK_FAILED ? (
        <ReloadPageButton />
      ) : null}
    </div>
  );
}
