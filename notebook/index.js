// A chapter-3 notebook from JavaScript: Python cells run by Pyodide in a worker, with a `torch` whose every
// number comes from the attention core, so cells print exactly what PyTorch 1.13 prints.
//
//   import { loadNotebook } from 'attention-lab/notebook';
//   const nb = await loadNotebook({ profile: 'default' });   // or 'mkl'
//   const { output, error } = await nb.run('import torch\ntorch.manual_seed(123)\ntorch.rand(2)');
//   await nb.close();
//
// The same module runs in the browser (a module Web Worker) and in Node (a worker_threads Worker).

const PROFILES = ['default', 'mkl'];
const inNode = typeof process === 'object' && process.versions?.node !== undefined;
// The worker's stack (reserved, not used up front): deep enough that Python's own guards, sys.setrecursionlimit's
// ceiling (session.js) and its C-stack check, raise RecursionError before the engine's stack overflows.
const WORKER_STACK_MB = 256;

/** The error loadNotebook and the notebook's methods throw (not a learner's Python error: that is a result). */
export class NotebookError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotebookError';
  }
}

// The worker behind a uniform post / listen / terminate. The browser's `new Worker(new URL(...))` is written
// out literally: that is the form bundlers recognise, bundling worker.js and what it imports.
async function spawnWorker(onMessage, onFailure) {
  if (inNode) {
    const { Worker: NodeWorker } = await import('node:worker_threads');
    const worker = new NodeWorker(new URL(/* @vite-ignore */ './worker.js', import.meta.url),
      { resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
    worker.on('message', onMessage);
    worker.on('error', (e) => onFailure(e.message));
    worker.on('exit', (code) => onFailure(`the Python worker ended (exit code ${code})`));
    worker.unref(); // an idle notebook does not keep Node running; busy() refs it while a call waits
    return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate(), busy: (b) => (b ? worker.ref() : worker.unref()) };
  }
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => onMessage(e.data);
  worker.onerror = (e) => onFailure(e.message || 'the Python worker failed to start');
  return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate(), busy: () => {} };
}

// Stop can interrupt Python in place (a KeyboardInterrupt, the namespace kept) only with a SharedArrayBuffer:
// always in Node, in a browser only on a cross-origin-isolated page. Elsewhere Stop restarts the worker.
const canInterrupt = () => typeof SharedArrayBuffer === 'function' && (inNode || globalThis.crossOriginIsolated === true);
// How long Stop waits for Python to take the interrupt before it replaces the worker (a loop inside C code never
// checks): Python takes it within milliseconds, but a busy machine or a phone may not run its thread for a second.
const STOP_GRACE_MS = 3000;
// How long Stop then waits for the cell's answer once Python has taken the interrupt: unwinding the cell and
// writing its traceback (code run for the first time, on a loaded machine) took up to 0.8 s at a load of 16 on
// 2 cores. Only a cell that catches the KeyboardInterrupt and runs on outlasts it, and is then restarted.
const STOP_ANSWER_MS = 20_000;
// Pyodide takes the signal by reading its flag and then writing 0, not in one atomic step: a Stop stored between
// the two is lost, the flag at 0 as if taken while the cell runs on (about 1 Stop of a tight loop in 100). So
// Python's handler marks a Stop it has taken (cells.py, STOP_TAKEN), and a flag back at 0 that long with no mark
// is raised again, up to STOP_RAISES times; a cell whose own handler leaves no mark is then waited for as one
// that took it.
const STOP_LOST_MS = 250;
const STOP_RAISES = 5;
// The interrupt buffer: Pyodide's signal flag (Python sets it back to 0 when it takes the signal), the id of the
// last call queued when Stop was pressed (the worker ends the runs up to it without running them), and 1 once
// Python's handler has taken the running cell's Stop (the worker clears it before each run).
const SIGNAL = 0;
const STOPPED_UP_TO = 1;
const STOP_TAKEN = 2;
const SIGINT = 2;

class Notebook {
  #options;
  #worker = null;
  #starting = null; // a new worker on its way, for the calls that come meanwhile
  #calls = new Map(); // id -> { resolve, reject, kind }
  #nextId = 1;
  #interrupt = null;
  #profile;
  #backend = null;
  #closed = false;
  #snapshot; // the snapshot each start restores Python from (a promise until the first start), or null
  #restoredFromSnapshot = false;
  #restoredFrom = null;
  #snapshotRefused = null;
  #snapshotURL; // the build's snapshot, read by the worker when no snapshot is given (null once refused)

  constructor(options) {
    this.#options = options;
    this.#profile = options.profile;
    this.#snapshot = options.snapshot ?? null;
    this.#snapshotURL = options.snapshotURL ?? null;
  }

  /** 'default' or 'mkl': which PyTorch build's dropout masks the notebook reproduces. */
  get profile() { return this.#profile; }
  /** The core's kernels: 'wasm-simd128' or 'wasm-scalar'. */
  get backend() { return this.#backend; }
  /** True when Stop keeps the namespace (KeyboardInterrupt) rather than restarting Python. */
  get interruptible() { return this.#interrupt !== null; }
  /** True when the last start restored Python from a snapshot rather than starting it. */
  get restoredFromSnapshot() { return this.#restoredFromSnapshot; }
  /** Which snapshot the last start restored: 'given' (the snapshot option), 'build' (snapshotURL's), or null. */
  get restoredFrom() { return this.#restoredFrom; }
  /** Why the snapshot given was not used at the last start (null when it was, or none was given). */
  get snapshotRefused() { return this.#snapshotRefused; }

  async start() {
    const { flavour, pyodideURL, hostAccess, onProgress, onSnapshot } = this.#options;
    this.#interrupt = canInterrupt() ? new Int32Array(new SharedArrayBuffer(12)) : null;
    const ready = new Promise((resolve, reject) => this.#calls.set(0, { resolve, reject, kind: 'start' }));
    // In a browser a cell can post messages of its own (self.postMessage is in Python's reach): a snapshot is
    // kept only from the start's own 'ready' (answered before any cell runs), so that a cell cannot plant one
    // that later visits would restore Python from.
    const onMessage = (m) => {
      if (m.type === 'progress') onProgress?.(m.message, m.fraction);
      else if (m.type === 'ready') this.#settle(0, m); // once: later ones find no start waiting
      else if (m.type === 'failed') this.#fail(new NotebookError(`loadNotebook: ${m.message}`));
      else if (m.type === 'result') this.#answer(worker, m);
      else if (m.type === 'stream') this.#stream(m.id, m.text);
    };
    // Only the current worker is heard: a replaced one may still report its exit. A worker that ends by itself
    // (a cell ended it, or Python broke) fails what waits on it; the next call starts a new one.
    const worker = await spawnWorker(
      (m) => this.#worker === worker && onMessage(m),
      (message) => {
        if (this.#worker !== worker) return;
        this.#worker = null;
        worker.terminate();
        this.#fail(new NotebookError(`notebook: ${message}; Python restarts at the next call, with its variables gone`));
      });
    this.#worker = worker;
    worker.busy(true);
    // A snapshot still on its way (the caller reads it from a cache) is waited for while the worker loads.
    const snapshot = this.#snapshot = await Promise.resolve(this.#snapshot).then(asBytes, () => null);
    worker.post({ type: 'start', options: { profile: this.#profile, flavour, pyodideURL, interruptBuffer: this.#interrupt, hostAccess,
      snapshot, snapshotURL: this.#snapshotURL, makeSnapshot: typeof onSnapshot === 'function' } });
    let backend, made;
    try {
      ({ backend, snapshot: made, restoredFromSnapshot: this.#restoredFromSnapshot, restoredFrom: this.#restoredFrom, snapshotRefused: this.#snapshotRefused } = await ready);
      if (this.#snapshotRefused && this.#snapshot === snapshot) { // not offered again
        this.#snapshot = null;
        if (!snapshot) this.#snapshotURL = null;
      }
      if (made) this.#keepSnapshot(made);
    } catch (error) {
      // A worker whose Python did not start is ended, so that it keeps nothing (under Node, not the process) alive.
      if (this.#worker === worker) this.#worker = null;
      worker.terminate();
      throw error;
    }
    // Replaced while it started (a second Restart, a Stop): its call was settled by the replacement, which sets
    // up the notebook itself.
    if (this.#worker !== worker) return;
    this.#backend = backend;
    worker.busy(false);
  }

  // A snapshot the worker made: every later start (a Stop or restart that needs a new worker) restores from it,
  // and the caller may keep it for the next visit.
  #keepSnapshot(bytes) {
    this.#snapshot = bytes;
    try {
      this.#options.onSnapshot?.(bytes);
    } catch (error) {
      console.error('notebook: the onSnapshot listener threw:', error);
    }
  }

  // A worker whose Python cannot go on answers its last call; the calls queued behind it fail, and the next
  // call starts a new worker.
  #answer(worker, m) {
    if (m.stoppedBeforeItRan) this.#settle(m.id, stoppedBeforeItRan());
    else if (m.failed === undefined) this.#settle(m.id, m);
    else {
      const call = this.#calls.get(m.id);
      this.#calls.delete(m.id);
      call?.reject(new NotebookError(`notebook: ${m.failed}`));
    }
    if (m.broken) {
      this.#worker = null;
      worker.terminate();
      this.#fail(new NotebookError('notebook: Python could not go on and restarts at the next call, with its variables gone'));
    }
  }
  #settle(id, value) {
    const call = this.#calls.get(id);
    if (!call) return;
    this.#calls.delete(id);
    if (this.#calls.size === 0) this.#worker?.busy(false);
    call.resolve(value);
  }
  // A listener that throws is reported once and hears no more of that cell; the cell runs on.
  #stream(id, text) {
    const call = this.#calls.get(id);
    if (!call) return;
    call.printed = (call.printed ?? '') + text; // what a Stop that must replace the worker still returns
    if (!call.onOutput) return;
    try {
      call.onOutput(text);
    } catch (error) {
      call.onOutput = null;
      console.error('notebook: the onOutput listener threw, so it hears no more of this cell:', error);
    }
  }
  #fail(error) {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const call of calls) call.reject(error);
  }
  async #send(message, onOutput) {
    if (this.#closed) throw new NotebookError('notebook: it was closed');
    if (!this.#worker) await (this.#starting ??= this.start().finally(() => { this.#starting = null; }));
    const id = this.#nextId++;
    const done = new Promise((resolve, reject) => this.#calls.set(id, { resolve, reject, kind: message.type, onOutput }));
    this.#worker.busy(true);
    this.#worker.post({ ...message, id });
    return done;
  }

  /**
   * Runs one cell in the notebook's namespace. Resolves to { output, error }: output is the text shown under
   * the cell (what it printed, then the repr of a last bare expression unless None); error is null or
   * { type, message, line, traceback } for the learner's Python error (line: of this cell). onOutput(text), if
   * given, receives what the cell prints while it runs, as it prints it (whole lines, or 4 KB of a long one),
   * at most 100 pieces a second: past that, the rest comes with the next print or at the end.
   */
  async run(code, { onOutput } = {}) {
    if (typeof code !== 'string') throw new NotebookError(`run: code must be a string, got ${typeof code}`);
    if (onOutput !== undefined && typeof onOutput !== 'function') {
      throw new NotebookError('run: onOutput must be a function');
    }
    const { output, error } = await this.#send({ type: 'run', code, stream: Boolean(onOutput) }, onOutput);
    return { output, error };
  }

  /** Sets the RNG profile for the cells that follow ('default' or 'mkl'). */
  async setProfile(profile) {
    checkProfile('setProfile', profile);
    await this.#send({ type: 'profile', name: profile });
    this.#profile = profile;
  }

  /** An empty namespace; the seed and print options are back to a fresh Python's. */
  async restart() {
    if (this.#calls.size > 0) return this.#replaceWorker('restarted');
    // In place when Python is intact; a new worker when a cell broke it past repair.
    const { restarted } = await this.#send({ type: 'restart' });
    if (!restarted) await this.#replaceWorker('restarted');
  }

  /**
   * Stops the running cell and ends the cells queued behind it without running them. With an interrupt buffer
   * the running cell ends in a KeyboardInterrupt and the namespace stays; otherwise (or if Python does not take
   * the interrupt within STOP_GRACE_MS, or does not answer within STOP_ANSWER_MS after taking it) the worker is
   * replaced, the namespace is lost, and each waiting run resolves with a KeyboardInterrupt error that says so.
   * Resolves with what it did: 'interrupted', 'restarted' or 'idle'.
   */
  async stop() {
    if (this.#calls.size === 0) return 'idle';
    const interrupt = this.#interrupt;
    if (interrupt) {
      const worker = this.#worker;
      // The worker answers in order: the first call waiting is under way, the others are queued behind it.
      const [current, ...queued] = [...this.#calls.keys()].sort((a, b) => a - b);
      Atomics.store(interrupt, STOPPED_UP_TO, this.#nextId - 1); // the worker skips the queued runs when it comes to them
      for (const id of queued) if (this.#calls.get(id).kind === 'run') this.#settle(id, stoppedBeforeItRan());
      // A start, a profile or an in-place restart under way runs no cell: nothing to interrupt (the signal would
      // break it).
      if (this.#calls.get(current).kind !== 'run') return 'interrupted';
      const ended = () => !this.#calls.has(current);
      let raisedAt = 0, raises = 0;
      const raise = () => { Atomics.store(interrupt, SIGNAL, SIGINT); raisedAt = performance.now(); raises++; };
      raise(); // Python raises KeyboardInterrupt at its next check
      // 'ended'; 'taken' (Python's handler marked it); 'never' (the flag still up after the grace: Python is in
      // C code that never checks); 'unmarked' (cleared each time, never marked: the cell's own handler)
      let seen = null;
      await waitUntil(() => {
        const waited = performance.now() - raisedAt;
        if (ended()) seen = 'ended';
        else if (Atomics.load(interrupt, STOP_TAKEN) === 1) seen = 'taken';
        else if (Atomics.load(interrupt, SIGNAL) !== 0) seen = waited >= STOP_GRACE_MS ? 'never' : null;
        else if (waited >= STOP_LOST_MS) raises < STOP_RAISES ? raise() : (seen = 'unmarked');
        return seen !== null;
      }, Infinity);
      // Taken: Python is unwinding the cell, which a busy machine can make slower than the grace.
      const answered = seen === 'ended' || (seen !== 'never' && await waitUntil(ended, STOP_ANSWER_MS));
      // Python was replaced meanwhile when a Restart came first or the worker ended: the namespace is gone then too.
      if (answered) return this.#worker === worker ? 'interrupted' : 'restarted';
    }
    await this.#replaceWorker('stopped');
    return 'restarted';
  }

  async #replaceWorker(why) {
    const waiting = [...this.#calls.values()];
    this.#calls.clear();
    const old = this.#worker;
    this.#worker = null; // its exit is no failure
    old?.terminate();
    for (const call of waiting) {
      const message = `the cell was ${why}; Python restarted, so its variables are gone: run the cells again`;
      if (call.kind === 'run') {
        call.resolve({ output: call.printed ?? '', error: { type: 'KeyboardInterrupt', message, line: null, traceback: `KeyboardInterrupt: ${message}` } });
      } else call.resolve({});
    }
    await this.start();
  }

  /** Ends the worker; the notebook cannot be used afterwards. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new NotebookError('notebook: it was closed'));
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  async [Symbol.asyncDispose]() { await this.close(); }
}

/** The result of a run that Stop ended before it ran (the page's own queue gives it too). */
export const stoppedBeforeItRan = () => {
  const message = 'the cell was stopped before it ran';
  return { output: '', error: { type: 'KeyboardInterrupt', message, line: null, traceback: `KeyboardInterrupt: ${message}` } };
};

/** Resolves true once done() holds, or false when it still does not after ms (checked every 10 ms). */
function waitUntil(done, ms) {
  const since = performance.now();
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (done()) resolve(true);
      else if (performance.now() - since >= ms) resolve(false);
      else return;
      clearInterval(poll);
    }, 10);
  });
}

/** Snapshot bytes as a Uint8Array, or null for anything else (a cache that had none). */
const asBytes = (bytes) => (bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes instanceof Uint8Array ? bytes : null);

function checkProfile(op, profile) {
  if (!PROFILES.includes(profile)) {
    throw new NotebookError(`${op}: profile must be 'default' or 'mkl', got ${JSON.stringify(profile)}`);
  }
}

/**
 * Starts Python in a worker with a fresh namespace. Options: profile ('default' | 'mkl'), flavour of the core
 * ('simd' | 'scalar', by default what the engine runs), pyodideURL (the folder with pyodide.mjs; in the
 * browser by default pyodide/ beside the page, where the built site puts it; in Node the pyodide package),
 * hostAccess (Node: false by default, so that cells cannot run commands, read or write the host's files, open
 * connections or reach Node's globals; true only for trusted code), onProgress(message, fraction) while loading;
 * snapshot (bytes, or a promise of them, that onSnapshot gave: Python is restored from them instead of started,
 * when they were made from the same files), snapshotURL (the address of the snapshot a build of the site made,
 * gzipped, read when `snapshot` gives none; refused like any other when made from other files) and onSnapshot(bytes) (called with a snapshot of Python taken at a
 * start that did not restore one, to keep for the next visit).
 */
export async function loadNotebook(options = {}) {
  const { profile = 'default', flavour, hostAccess = false, onProgress, snapshot, snapshotURL, onSnapshot } = options;
  checkProfile('loadNotebook', profile);
  if (flavour !== undefined && flavour !== 'simd' && flavour !== 'scalar') {
    throw new NotebookError(`loadNotebook: flavour must be 'simd' or 'scalar', got ${JSON.stringify(flavour)}`);
  }
  if (typeof hostAccess !== 'boolean') {
    throw new NotebookError(`loadNotebook: hostAccess must be true or false, got ${JSON.stringify(hostAccess)}`);
  }
  if (snapshot != null && !(snapshot instanceof ArrayBuffer || snapshot instanceof Uint8Array || typeof snapshot.then === 'function')) {
    throw new NotebookError('loadNotebook: snapshot must be an ArrayBuffer, a Uint8Array or a promise of one');
  }
  if (snapshotURL != null && !(typeof snapshotURL === 'string' && URL.canParse(snapshotURL))) {
    throw new NotebookError(`loadNotebook: snapshotURL must be an absolute URL, got ${JSON.stringify(snapshotURL)}`);
  }
  if (onSnapshot !== undefined && typeof onSnapshot !== 'function') {
    throw new NotebookError('loadNotebook: onSnapshot must be a function');
  }
  const pyodideURL = options.pyodideURL ?? (inNode ? undefined : new URL('pyodide/', globalThis.document?.baseURI ?? location.href).href);
  const notebook = new Notebook({ profile, flavour, pyodideURL, hostAccess, onProgress, snapshot, snapshotURL, onSnapshot });
  await notebook.start();
  return notebook;
}
