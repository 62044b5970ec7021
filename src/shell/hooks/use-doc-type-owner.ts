import { useEffect, useState, useSyncExternalStore } from 'react';
import { usePlatform } from './use-platform';

/** Owner resolution state of one DocType. */
export type OwnerState =
  | { status: 'loading' }
  | { status: 'ready'; owner: string }
  /** No service owns it right now; `retry` asks discovery again (a service that was down may be back). */
  | { status: 'unknown'; retry(): void }
  | { status: 'error'; error: unknown; retry(): void };

/**
 * The service that owns `docType`, through the SDK's DiscoveryClient (cache first, then one batched
 * discovery query per tick). Re-renders when the client's registry changes.
 */
export function useDocTypeOwner(docType: string): OwnerState {
  const { discovery } = usePlatform();
  const snapshot = useSyncExternalStore(discovery.subscribe, discovery.getSnapshot);
  const cached = snapshot.owners[docType];
  const [result, setResult] = useState<{ docType: string; owner?: string | null; error?: unknown }>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (cached !== undefined) return;
    let live = true;
    void attempt;
    discovery.resolve(docType).then(
      (owner) => live && setResult({ docType, owner }),
      (error: unknown) => live && setResult({ docType, error }),
    );
    return () => {
      live = false;
    };
  }, [discovery, docType, cached, attempt]);

  if (cached !== undefined) return { status: 'ready', owner: cached };
  if (result?.docType !== docType) return { status: 'loading' };
  const retry = () => {
    setResult(undefined);
    setAttempt((n) => n + 1);
  };
  if (result.error !== undefined) return { status: 'error', error: result.error, retry };
  return result.owner ? { status: 'ready', owner: result.owner } : { status: 'unknown', retry };
}
