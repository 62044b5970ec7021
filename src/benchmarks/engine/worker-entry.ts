import { parentPort, workerData } from 'node:worker_threads';
import { workerMain } from './worker-main';
import { isWorkerData } from './worker-protocol';

// Entry of a generator thread when the harness runs from source (through tsx).
if (parentPort && isWorkerData(workerData)) await workerMain(workerData, parentPort);
