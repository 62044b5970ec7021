/**
 * The frame every remote component renders in: Refine's context (loaded on first use, in its own chunk) and
 * a loading state while it arrives. A remote's code only runs when a route shows it, and Refine only loads
 * then too (docs/performance.md#the-first-screen).
 */
import { lazy, type ReactNode, Suspense } from 'react';
import { Loading } from './states';

const RefineScope = lazy(() => import(/* webpackChunkName: "refine-scope" */ './RefineScope'));

/** Renders `children` (a remote's component) inside Refine's context. */
export function RemoteScope({ children }: { children: ReactNode }): React.JSX.Element {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <RefineScope>{children}</RefineScope>
    </Suspense>
  );
}
