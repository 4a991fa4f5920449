// The whole job of a Bree worker thread: say which slot came, then exit. The agent runs in
// the main process; this thread never loads the kernel, a plugin or TypeScript.
import { parentPort, workerData } from 'node:worker_threads';

parentPort.postMessage({ task: workerData.task, slot: workerData.slot });
