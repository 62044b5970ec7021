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
import { snapshotSlot } from './support/offline-snapshots';

/** The running worker and the backend it hands requests to. */
export interface MockWorker {
  worker: SetupWorker;
  env: MockBackend;
}

/** Options of {@link startMockWorker}. */
export interface MockWorkerOptions extends MockBackendOptions {
  /** The worker script's URL; default `/mockServiceWorker.js`. */
  workerUrl?: string;
  /**
   * Keeps the records, users and sessions in this origin's IndexedDB under this name, so a page reload
   * (a development build's, after an edit) starts where the last page was; default not kept.
   */
  persist?: string;
}

/**
 * Starts the mock service worker. Requests outside `/api/` (the shell's own assets, remotes) go to the
 * network unchanged. The record store starts with the seeded sample records unless `records: 'empty'`;
 * with `persist`, with what the last page under that name left, when there is something.
 */
export async function startMockWorker(options: MockWorkerOptions = {}): Promise<MockWorker> {
  const { workerUrl = '/mockServiceWorker.js', persist, ...backendOptions } = options;
  const slot = persist ? await snapshotSlot(persist) : undefined;
  const kept = await slot?.load();
  const backend = await createMockBackend({
    ...backendOptions,
    ...(kept ? { from: kept } : {}),
    ...(slot ? { afterWrite: (b: MockBackend) => slot.save(b.snapshot()) } : {}),
  });
  const worker = setupWorker(...apiHandlers(backend));
  await worker.start({ onUnhandledRequest: 'bypass', serviceWorker: { url: workerUrl }, quiet: true });
  return { worker, env: backend };
}
