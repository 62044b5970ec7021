/**
 * Refine's context for a remote's components (their Refine hooks read the Desk's data provider through it),
 * on the shell's own QueryClient, so both share one cache. This module is loaded with the first remote
 * component that renders (see `RemoteScope`), so the first screen of the Desk carries no Refine code.
 */
import { Refine } from '@refinedev/core';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { usePlatform } from '../hooks/use-platform';

/** `<Refine>` with the platform's data provider and the enclosing QueryClient. */
export default function RefineScope({ children }: { children: ReactNode }): React.JSX.Element {
  const { dataProvider } = usePlatform();
  const queryClient = useQueryClient();
  return (
    <Refine
      dataProvider={dataProvider}
      options={{
        reactQuery: { clientConfig: queryClient },
        disableTelemetry: true,
        warnWhenUnsavedChanges: false,
      }}
    >
      {children}
    </Refine>
  );
}
