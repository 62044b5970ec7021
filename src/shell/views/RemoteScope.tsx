/**
 * The frame every remote component renders in: Refine's context (loaded on first use, in its own chunk) and
 * a loading state while it arrives. A remote's code only runs when a route shows it, and Refine only loads
 * then too (docs/performance.md#the-first-screen).
 */
import { type ComponentType, lazy, type ReactNode, Suspense } from 'react';
import { Loading } from './states';

type Scope = ComponentType<{ children: ReactNode }>;

/** A lazy `RefineScope`; after a failed load the next render tries again (React keeps a failed lazy failed). */
function loadScope(): Scope {
  return lazy(() =>
    import(/* webpackChunkName: "refine-scope" */ './RefineScope').catch((error: unknown) => {
      scope = loadScope();
      throw error;
    }),
  );
}

let scope = loadScope();

/** Renders `children` (a remote's component) inside Refine's context. */
export function RemoteScope({ children }: { children: ReactNode }): React.JSX.Element {
  const RefineScope = scope;
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <RefineScope>{children}</RefineScope>
    </Suspense>
  );
}
