// Offline development (`npm run dev`): start the MSW browser worker, which answers every API call of the
// Desk from mocks/, before the Desk boots. Manifests point the crm and stock remotes at
// `/desk/assets/<app>/remoteEntry.js`, which webpack-dev-server builds and serves (scripts/dev.js).
// Same async boundary as `index.ts`.
import { setOfflineSampleData } from './platform/offline-data';

async function startMocks(): Promise<void> {
  const { startMockWorker } = await import('../../mocks/browser');
  const { env } = await startMockWorker({ persist: 'desk', remotes: ['crm', 'stock'] });
  setOfflineSampleData(env.sampleRecords > 0);
}

startMocks()
  .catch((error: unknown) => {
    console.error('The MSW worker did not start; API calls will fail.', error);
  })
  .then(() => import('./bootstrap'));
