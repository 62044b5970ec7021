/**
 * Direct entry of the load-test harness: `node --import tsx src/benchmarks/load-test.ts --config x.yaml`,
 * or built, `node dist/benchmarks/load-test.js --config x.yaml` (`npm run build:harness`). The Python
 * module `platform_studio.benchmarks.load_test` runs this same entry. When the built bundle is started
 * as a generator thread, it runs the generator instead of the command line.
 */
import { setFlagsFromString } from 'node:v8';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isWorkerData } from './engine/worker-protocol';

// A generator's heap is small and steady once the load runs. V8's memory reducer, which starts for a small
// heap that grew during start-up, would compact it three times about 8 s into every run: tens of
// milliseconds of CPU, and pauses of up to 10 ms in the middle of the measured load. Read when the heap
// grows, so setting it here, before the command line and configuration are loaded, is in time.
if (isMainThread) setFlagsFromString('--no-memory-reducer-for-small-heaps');

if (!isMainThread && parentPort && isWorkerData(workerData)) {
  const { workerMain } = await import('./engine/worker-main');
  await workerMain(workerData, parentPort);
} else {
  const { benchmarkCli } = await import('./cli');
  process.exitCode = await benchmarkCli(process.argv.slice(2));
}
