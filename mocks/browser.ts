/**
 * The mock backend in the browser (offline development, `npm run dev`): a service worker
 * (`public/mockServiceWorker.js`) answering every platform API with the same handler groups the tests use.
 * The key ring is WebCrypto-only and records live in memory: nothing here loads a Node module.
 *
 * @example
 * // in the shell's bootstrap, before anything calls the API:
 * if (process.env.PLATFORM_MOCKS === '1') await (await import('../../mocks/browser')).startMockWorker();
 */
import { type SetupWorker, setupWorker } from 'msw/browser';
import { dataHandlers } from './handlers/data';
import { gatewayHandlers } from './handlers/gateway';
import { securityHandlers } from './handlers/security';
import {
  createMockEnvironment,
  type MockEnvironment,
  type MockEnvironmentOptions,
} from './support/environment';
import { createWebCryptoKeyRing } from './support/webcrypto-key-ring';

/** The running worker and the state its handlers share. */
export interface MockWorker {
  worker: SetupWorker;
  env: MockEnvironment;
}

/**
 * Starts the mock service worker. Requests the handlers do not know (the shell's own assets, remotes) go to
 * the network unchanged. The record store starts with the seeded sample records unless `records: 'empty'`.
 */
export async function startMockWorker(
  options: Omit<MockEnvironmentOptions, 'keyRing'> & { workerUrl?: string } = {},
): Promise<MockWorker> {
  const { workerUrl = '/mockServiceWorker.js', ...envOptions } = options;
  const env = createMockEnvironment({ ...envOptions, keyRing: await createWebCryptoKeyRing() });
  const worker = setupWorker(...gatewayHandlers(env), ...securityHandlers(env), ...dataHandlers(env));
  await worker.start({ onUnhandledRequest: 'bypass', serviceWorker: { url: workerUrl }, quiet: true });
  return { worker, env };
}
