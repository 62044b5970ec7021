/**
 * The mock backend in the browser (offline development, `npm run dev`): a service worker
 * (`public/mockServiceWorker.js`) handing every `/api/` request to the platform's own API app over
 * in-memory stores (./support/create-mock-backend.ts). Nothing on that path loads a Node module.
 *
 * @example
 * // in the shell's bootstrap, before anything calls the API:
 * if (process.env.PLATFORM_MOCKS === '1') await (await import('../../mocks/browser')).startMockWorker();
 */
import { type SetupWorker, setupWorker } from 'msw/browser';
import { apiHandlers } from './handlers/api';
import { createMockBackend, type MockBackend, type MockBackendOptions } from './support/create-mock-backend';

/** The running worker and the backend it hands requests to. */
export interface MockWorker {
  worker: SetupWorker;
  env: MockBackend;
}

/**
 * Starts the mock service worker. Requests outside `/api/` (the shell's own assets, remotes) go to the
 * network unchanged. The record store starts with the seeded sample records unless `records: 'empty'`.
 */
export async function startMockWorker(
  options: MockBackendOptions & { workerUrl?: string } = {},
): Promise<MockWorker> {
  const { workerUrl = '/mockServiceWorker.js', ...backendOptions } = options;
  const backend = await createMockBackend(backendOptions);
  const worker = setupWorker(...apiHandlers(backend));
  await worker.start({ onUnhandledRequest: 'bypass', serviceWorker: { url: workerUrl }, quiet: true });
  return { worker, env: backend };
}
