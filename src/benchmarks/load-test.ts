/**
 * Direct entry of the load-test harness: `node --import tsx src/benchmarks/load-test.ts --config x.yaml`,
 * or built, `node dist/benchmarks/load-test.js --config x.yaml` (`npm run build:harness`). The Python
 * module `platform_studio.benchmarks.load_test` runs this same entry. When the built bundle is started
 * as a generator thread, it runs the generator instead of the command line.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isWorkerData } from './engine/worker-protocol';

if (!isMainThread && parentPort && isWorkerData(workerData)) {
  const { workerMain } = await import('./engine/worker-main');
  await workerMain(workerData, parentPort);
} else {
  const { benchmarkCli } = await import('./cli');
  process.exitCode = await benchmarkCli(process.argv.slice(2));
}
