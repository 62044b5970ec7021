/**
 * Boots the Desk: read `__PLATFORM_CONFIG__` (a clear on-page error when it is missing or invalid), create the
 * platform objects, start `prewarmCore` WITHOUT awaiting it, and render the first screen at once. Each part
 * of the UI shows its own loading state until its service is warm, and only that part degrades if it fails.
 */
import { startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { readPlatformConfig } from '../sdk/platform-config';
import { PlatformProvider } from './hooks/use-platform';
import { createPlatform } from './platform/create-platform';
import { prewarmCore } from './platform/prewarm-core';
import { applyTheme, themeChoice } from './platform/theme';
import css from './styles/desk.css';
import listToolsCss from './styles/list-tools.css';
import printCss from './styles/print.css';
import { App, createQueryClient } from './views/App';
import { ConfigError } from './views/ConfigError';

function injectStyles(): void {
  const style = document.createElement('style');
  style.dataset.desk = 'shell';
  style.textContent = `${css}\n${listToolsCss}\n${printCss}`;
  document.head.appendChild(style);
}

function boot(): void {
  injectStyles();
  let container = document.getElementById('root');
  if (!container) {
    container = document.createElement('div');
    container.id = 'root';
    document.body.appendChild(container);
  }
  // The user's colour theme before the first paint, so a dark choice never flashes light.
  applyTheme(themeChoice());
  const root = createRoot(container);
  let config: ReturnType<typeof readPlatformConfig>;
  try {
    config = readPlatformConfig();
  } catch (error) {
    root.render(<ConfigError error={error} />);
    return;
  }
  const platform = createPlatform(config);
  // Who is signed in (and the session's CSRF token): a reload or a new tab of a signed-in browser stays in.
  // Only a browser signed in before asks the server at boot: one never signed in starts without a 401.
  // Offline development (MSW) answers as signed in from the start: it always asks. (A build defines the flag;
  // a test running this module may not.)
  const offline = typeof __DESK_DEV__ !== 'undefined' && __DESK_DEV__;
  void platform.checkSession({ onlyIfSignedInBefore: !offline });
  // `?override=<service>=<url>` is applied once and kept in localStorage; the address bar drops it.
  const { refused, rest } = platform.overrides.capture(window.location.search);
  if (rest !== window.location.search) {
    history.replaceState(history.state, '', `${window.location.pathname}${rest}${window.location.hash}`);
  }
  for (const r of refused) console.warn(`Desk: override of ${r.service} refused (${r.reason}): ${r.url}`);
  // The page shows a contained notice; the console keeps the cause for the team that ships the remote.
  platform.remotes.hooks.on('loadRemoteError', ({ service, exposed, error }) => {
    console.error(`Desk: the ${service} remote could not load ${exposed}:`, error.cause ?? error);
  });
  const started = performance.now();
  const warm = prewarmCore(platform).then((report) => {
    const failed = report.services.filter((s) => s.status === 'rejected').map((s) => s.service);
    // Exposed for the benchmarks and for operators poking at a running Desk.
    (window as { __DESK_BOOT__?: unknown }).__DESK_BOOT__ = {
      prewarmMs: performance.now() - started,
      failed,
    };
    if (failed.length > 0) console.warn(`Desk: services unavailable at boot: ${failed.join(', ')}`);
    return report;
  });
  void warm;
  // A transition: React renders the first screen in slices of a few milliseconds and lets the browser run in
  // between (input, the responses of the prewarm), instead of one task as long as the whole first render.
  startTransition(() => {
    root.render(
      <PlatformProvider platform={platform}>
        <App queryClient={createQueryClient()} />
      </PlatformProvider>,
    );
  });
}

boot();
