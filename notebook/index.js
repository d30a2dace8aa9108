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
    const worker = new NodeWorker(new URL(/* @vite-ignore */ './worker.js', import.meta.url));
    worker.on('message', onMessage);
    worker.on('error', (e) => onFailure(e.message));
    worker.on('exit', (code) => { if (code !== 0) onFailure(`the Python worker exited (${code})`); });
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

class Notebook {
  #options;
  #worker = null;
  #calls = new Map(); // id -> { resolve, reject, kind }
  #nextId = 1;
  #interrupt = null;
  #profile;
  #backend = null;
  #closed = false;

  constructor(options) {
    this.#options = options;
    this.#profile = options.profile;
  }

  /** 'default' or 'mkl': which PyTorch build's dropout masks the notebook reproduces. */
  get profile() { return this.#profile; }
  /** The core's kernels: 'wasm-simd128' or 'wasm-scalar'. */
  get backend() { return this.#backend; }
  /** True when Stop keeps the namespace (KeyboardInterrupt) rather than restarting Python. */
  get interruptible() { return this.#interrupt !== null; }

  async start() {
    const { flavour, pyodideURL, onProgress } = this.#options;
    this.#interrupt = canInterrupt() ? new Int32Array(new SharedArrayBuffer(4)) : null;
    const ready = new Promise((resolve, reject) => this.#calls.set(0, { resolve, reject, kind: 'start' }));
    const onMessage = (m) => {
      if (m.type === 'progress') onProgress?.(m.message, m.fraction);
      else if (m.type === 'ready') this.#settle(0, m);
      else if (m.type === 'failed') this.#fail(new NotebookError(`loadNotebook: ${m.message}`));
      else if (m.type === 'result') this.#settle(m.id, m);
      else if (m.type === 'stream') this.#calls.get(m.id)?.onOutput?.(m.text);
    };
    // Only the current worker is heard: a replaced one may still report its exit.
    const worker = await spawnWorker(
      (m) => this.#worker === worker && onMessage(m),
      (message) => this.#worker === worker && this.#fail(new NotebookError(`notebook: ${message}`)));
    this.#worker = worker;
    this.#worker.busy(true);
    this.#worker.post({ type: 'start', options: { profile: this.#profile, flavour, pyodideURL, interruptBuffer: this.#interrupt } });
    const { backend } = await ready;
    this.#backend = backend;
    this.#worker.busy(false);
  }

  #settle(id, value) {
    const call = this.#calls.get(id);
    if (!call) return;
    this.#calls.delete(id);
    if (this.#calls.size === 0) this.#worker?.busy(false);
    call.resolve(value);
  }
  #fail(error) {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const call of calls) call.reject(error);
  }
  #send(message, onOutput) {
    if (this.#closed) return Promise.reject(new NotebookError('notebook: it was closed'));
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
    await this.#send({ type: 'restart' });
  }

  /**
   * Stops the running cell. With an interrupt buffer the cell ends in a KeyboardInterrupt and the namespace
   * stays; otherwise (or if Python does not answer within a second) the worker is replaced, the namespace
   * is lost, and each waiting run resolves with a KeyboardInterrupt error that says so.
   */
  async stop() {
    if (this.#calls.size === 0) return;
    if (this.#interrupt) {
      const idle = new Promise((resolve) => {
        const poll = setInterval(() => { if (this.#calls.size === 0) { clearInterval(poll); resolve(true); } }, 10);
        setTimeout(() => { clearInterval(poll); resolve(this.#calls.size === 0); }, 1000);
      });
      Atomics.store(this.#interrupt, 0, 2); // SIGINT: Python raises KeyboardInterrupt at its next check
      if (await idle) return;
    }
    await this.#replaceWorker('stopped');
  }

  async #replaceWorker(why) {
    const waiting = [...this.#calls.values()];
    this.#calls.clear();
    this.#worker.terminate();
    for (const call of waiting) {
      const message = `the cell was ${why}; Python restarted, so its variables are gone: run the cells again`;
      if (call.kind === 'run') {
        call.resolve({ output: '', error: { type: 'KeyboardInterrupt', message, line: null, traceback: `KeyboardInterrupt: ${message}` } });
      } else call.resolve({});
    }
    await this.start();
  }

  /** Ends the worker; the notebook cannot be used afterwards. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new NotebookError('notebook: it was closed'));
    await this.#worker?.terminate();
  }

  async [Symbol.asyncDispose]() { await this.close(); }
}

function checkProfile(op, profile) {
  if (!PROFILES.includes(profile)) {
    throw new NotebookError(`${op}: profile must be 'default' or 'mkl', got ${JSON.stringify(profile)}`);
  }
}

/**
 * Starts Python in a worker with a fresh namespace. Options: profile ('default' | 'mkl'), flavour of the core
 * ('simd' | 'scalar', by default what the engine runs), pyodideURL (the folder with pyodide.mjs; in the
 * browser by default pyodide/ beside the page, where the built site puts it; in Node the pyodide package),
 * onProgress(message, fraction) while loading.
 */
export async function loadNotebook(options = {}) {
  const { profile = 'default', flavour, onProgress } = options;
  checkProfile('loadNotebook', profile);
  if (flavour !== undefined && flavour !== 'simd' && flavour !== 'scalar') {
    throw new NotebookError(`loadNotebook: flavour must be 'simd' or 'scalar', got ${JSON.stringify(flavour)}`);
  }
  const pyodideURL = options.pyodideURL ?? (inNode ? undefined : new URL('pyodide/', globalThis.document?.baseURI ?? location.href).href);
  const notebook = new Notebook({ profile, flavour, pyodideURL, onProgress });
  await notebook.start();
  return notebook;
}
