// The threaded flavour's workers under Node, which has worker_threads but no Web Worker: a Worker with the
// Web Worker's surface that Emscripten's pthreads use (onmessage, onerror, postMessage, terminate), and in
// the thread a global scope like a worker's (self, location, postMessage, onmessage) before Emscripten's
// worker script is imported. Messages that arrive before that script has set its onmessage wait for it.
import { Worker as Thread } from 'node:worker_threads';

const THREAD_START = `
const { parentPort, workerData } = require('node:worker_threads');
Object.assign(globalThis, {
  self: globalThis,
  location: { href: workerData.script },
  postMessage: (message, transfer) => parentPort.postMessage(message, transfer),
  importScripts() { throw new Error('importScripts: the module script is imported, not loaded as a classic script'); },
});
const waiting = [];
parentPort.on('message', (data) => (self.onmessage ? self.onmessage({ data }) : waiting.push(data)));
import(workerData.script).then(() => { for (const data of waiting.splice(0)) self.onmessage({ data }); });
`;

/** Makes the Worker class for one module; `release()` lets Node exit while the threads wait for work. */
export function nodeThreadWorkers() {
  const threads = [];
  class NodeWorker {
    constructor(script) {
      this.onmessage = null;
      this.onerror = null;
      this.thread = new Thread(THREAD_START, { eval: true, workerData: { script: String(script) } });
      this.thread.on('message', (data) => this.onmessage?.({ data }));
      this.thread.on('error', (error) => this.onerror?.(error));
      threads.push(this.thread);
    }
    postMessage(message, transfer) {
      this.thread.postMessage(message, transfer);
    }
    terminate() {
      return this.thread.terminate();
    }
  }
  return { Worker: NodeWorker, release: () => threads.forEach((thread) => thread.unref()) };
}
