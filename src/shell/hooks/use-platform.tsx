/** React access to the Desk's platform objects (SDK clients, catalog, session), created once at boot. */
import { createContext, type ReactNode, useContext } from 'react';
import type { DeskPlatform } from '../platform/create-platform';

const PlatformContext = createContext<DeskPlatform | undefined>(undefined);

/** Provides the platform to the shell's components. */
export function PlatformProvider({
  platform,
  children,
}: {
  platform: DeskPlatform;
  children: ReactNode;
}): React.JSX.Element {
  return <PlatformContext.Provider value={platform}>{children}</PlatformContext.Provider>;
}

/** The platform of the enclosing {@link PlatformProvider}. */
export function usePlatform(): DeskPlatform {
  const platform = useContext(PlatformContext);
  if (!platform) throw new Error('usePlatform() needs a <PlatformProvider>.');
  return platform;
}
