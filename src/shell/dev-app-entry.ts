// Offline development of a team's app (`npm run dev -- --offline` in its folder, `m app dev --offline`): the
// MSW worker runs the platform's own API app with that app installed, before the Desk boots, so its lists,
// forms and RPC methods answer in the browser with no server. The app module is bundled from the team's
// folder (webpack resolves `desk-offline-app` to it); its remote is served at `/desk/assets/<app>/`.
import app from 'desk-offline-app';

import { setOfflineSampleData } from './platform/offline-data';

async function startMocks(): Promise<void> {
  const { startMockWorker } = await import('../../mocks/browser');
  const { env } = await startMockWorker({ persist: `app:${app.name}`, apps: [app], remotes: [app.name] });
  setOfflineSampleData(env.sampleRecords > 0);
}

startMocks()
  .catch((error: unknown) => {
    console.error('The MSW worker did not start; API calls will fail.', error);
  })
  .then(() => import('./bootstrap'));
