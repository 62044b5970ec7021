import { useSyncExternalStore } from 'react';
import { subscribeTheme, type ThemeChoice, themeChoice } from '../platform/theme';

/** The colour theme the user chose (platform/theme.ts), re-rendering when it changes here or in another tab. */
export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribeTheme, themeChoice, () => 'system');
}
