// The worker that holds one Python session (session.js): a Web Worker in the browser, a worker_threads
// Worker under Node. It answers index.js's messages in order: start, run, profile, restart.
import { startSession } from './session.js';
import { siteOnly } from './site-only.js';

const port = await (async () => {
  if (typeof self === 'object' && typeof self.postMessage === 'function' && typeof process !== 'object') {
    // the browser: no way out of the site's origin for Python, set before Pyodide loads. A listener rather than
    // onmessage, which a cell could set.
    const post = siteOnly();
    return { post: (m, transfer) => post(m, transfer), listen: (f) => self.addEventListener('message', (e) => f(e.data)) };
  }
  const { parentPort } = await import('node:worker_threads');
  return { post: (m, transfer) => parentPort.postMessage(m, transfer), listen: (f) => parentPort.on('message', f) };
})();

let session = null;
let interrupt = null; // index.js's interrupt buffer: Pyodide's signal flag, the last call id a Stop ends, and
// whether Python has taken the running cell's Stop
const SIGNAL = 0;
const STOPPED_UP_TO = 1;
const STOP_TAKEN = 2;
const stopTaken = () => Atomics.store(interrupt, STOP_TAKEN, 1);
const pending = [];

async function handle(message) {
  switch (message.type) {
    case 'start':
      interrupt = message.options.interruptBuffer ?? null;
      try {
        session = await startSession({
          ...message.options,
          progress: (text, fraction) => port.post({ type: 'progress', message: text, fraction }),
        });
        // The snapshot rides on 'ready', the one message a cell cannot stand in for (no cell runs before it):
        // one a cell posts itself is never kept. Handed over, not copied: this worker has no further use for it.
        const snapshot = session.snapshot ?? null;
        port.post({ type: 'ready', backend: session.backend, profile: session.profile, snapshot,
          restoredFromSnapshot: session.restoredFromSnapshot, restoredFrom: session.restoredFrom, snapshotRefused: session.snapshotRefused },
        snapshot ? [snapshot.buffer] : []);
      } catch (error) {
        port.post({ type: 'failed', message: String(error?.message ?? error) });
      }
      break;
    case 'run': {
      if (interrupt) {
        // A flag left by a Stop whose cell ended before Python saw it must not stop this one. Cleared before the
        // queued-runs mark is read, so that a Stop landing in between still interrupts this cell.
        Atomics.store(interrupt, SIGNAL, 0);
        Atomics.store(interrupt, STOP_TAKEN, 0);
        if (message.id <= Atomics.load(interrupt, STOPPED_UP_TO)) { // queued when Stop was pressed: it does not run
          port.post({ type: 'result', id: message.id, stoppedBeforeItRan: true });
          break;
        }
      }
      // What the cell prints goes out line by line as it comes (Python holds this thread, so no timer could send it later);
      // past 100 messages in a second the rest waits for the next print or the end, so a print-heavy loop does
      // not flood the page.
      let pending = '', windowStart = performance.now(), posts = 0;
      const flush = () => {
        if (pending) port.post({ type: 'stream', id: message.id, text: pending });
        pending = '';
      };
      const stream = message.stream ? (text) => {
        pending += text;
        const now = performance.now();
        if (now - windowStart > 1000) [windowStart, posts] = [now, 0];
        if (posts < 100 && (text.includes('\n') || pending.length > 4096)) { // whole lines, as print writes them
          posts++;
          flush();
        }
      } : undefined;
      let result;
      try {
        result = session.run(message.code, stream, interrupt ? stopTaken : undefined);
        flush();
      } catch (error) { // not the learner's error (those are in result.error): the runner itself failed
        result = { output: '', error: runnerError(error, session.broken) };
      }
      port.post({ type: 'result', id: message.id, ...result, broken: session.broken });
      break;
    }
    case 'profile':
      session.setProfile(message.name);
      port.post({ type: 'result', id: message.id, profile: session.profile });
      break;
    case 'restart':
      port.post({ type: 'result', id: message.id, restarted: session.restart() });
      break;
  }
}

// Python's own error from the runner (a MemoryError while passing the output on) by its name, else the engine's.
function runnerError(error, broken) {
  const type = error?.constructor?.name === 'PythonError' ? error.type : 'InternalError';
  const last = String(error?.message ?? error).trim().split('\n').at(-1).replace(`${type}: `, '');
  const message = broken ? `${last} (Python could not go on: it restarts at the next cell, its variables gone)` : last;
  return { type, message, line: null, traceback: `${type}: ${message}` };
}

// Messages are handled one after another, each after the one before it has finished (start is async).
let chain = Promise.resolve();
port.listen((message) => {
  pending.push(message);
  chain = chain.then(() => handle(pending.shift())).catch((error) => {
    // Whatever failed, the call is answered (index.js rejects it) and the next message is still handled.
    port.post({ type: 'result', id: message.id, failed: String(error?.message ?? error), broken: true });
  });
});
