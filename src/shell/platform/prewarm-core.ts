/**
 * `prewarmCore` (docs/sdk.md#discovery): at boot, while the first screen renders, warm the core
 * services in parallel with all-settled semantics: one discovery query brings their manifests, then per
 * service the metadata loads and the UI remote is registered. No remote's code is fetched or run here: a
 * remote loads when a route shows one of its views
 * (docs/performance.md#the-first-screen). A failing service is reported and degrades only its own parts of
 * the Desk; the security policy loads alongside.
 */
import type { PrewarmReport } from '../../sdk/discovery';
import type { DeskPlatform } from './create-platform';
import { isUnauthorized } from './session';

/** What boot learned: each core service's outcome and whether the security policy loaded. */
export interface PrewarmCoreReport {
  services: PrewarmReport;
  security: PromiseSettledResult<unknown>;
}

/** Warms `config.coreServices`, the gateway's remotes map and the security policy, all in parallel. */
export async function prewarmCore(platform: DeskPlatform): Promise<PrewarmCoreReport> {
  const { discovery, catalog, remotes, security, config } = platform;
  const [services, security_] = await Promise.all([
    discovery.prewarm(config.coreServices, {
      warmers: [
        // A 401 means the session ended (the session store shows the sign-in screen), not that the service
        // failed; its metadata loads again after sign-in.
        (_service, manifest) =>
          catalog.addManifest(manifest).catch((error: unknown) => {
            if (!isUnauthorized(error)) throw error;
          }),
        (service, manifest) => {
          if (!manifest.url) return undefined;
          remotes.register(
            service,
            platform.overrides.apply(service, { url: manifest.url, integrity: manifest.integrity }),
          );
          return undefined;
        },
      ],
    }),
    security.load().then(
      (value) => ({ status: 'fulfilled', value }) as const,
      (reason: unknown) => ({ status: 'rejected', reason }) as const,
    ),
    catalog.loadRemotes(),
  ]);
  return { services, security: security_ };
}
