/**
 * Resource hints for services' remote entries. The boot's prewarm registers every core service's remote but
 * runs none of them (a remote's code runs when a route shows it); once the page is idle it asks the browser
 * to prefetch each entry, so the first visit to another app's page does not wait for the network.
 */

const hinted = new Set<string>();

/** Runs `task` when the page is idle (or after `timeoutMs`), so the first screen's requests go first. */
function whenIdle(task: () => void, timeoutMs = 2_000): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: () => void, o: { timeout: number }) => void })
    .requestIdleCallback;
  if (idle) idle(task, { timeout: timeoutMs });
  else setTimeout(task, timeoutMs);
}

/**
 * Adds `<link rel="prefetch" as="script">` for `url` once the page is idle (once per URL; nothing outside a
 * browser). With `integrity`, the link is `crossorigin="anonymous"` like the script tag the entry is
 * loaded with later, so the prefetched response is the one reused.
 */
export function prefetchRemoteEntry(url: string, integrity?: string): void {
  if (typeof document === 'undefined' || hinted.has(url)) return;
  hinted.add(url);
  whenIdle(() => {
    const link = document.createElement('link');
    link.rel = 'prefetch';
    link.as = 'script';
    link.href = url;
    if (integrity) link.crossOrigin = 'anonymous';
    link.dataset.deskRemote = 'prefetch';
    document.head.appendChild(link);
  });
}
