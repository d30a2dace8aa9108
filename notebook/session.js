// One Python session: Pyodide (CPython in WebAssembly) with this project's `torch` package over the attention
// core, and cells.py's Notebook holding the namespace. It runs inside a worker (worker.js), so a runaway
// cell never blocks the page; everything here is synchronous once loaded.
import { PYTHON_FILES } from './python-files.js';
import { watchSiteFetches } from './site-only.js';

// The Python files' sources (path in Pyodide's file system -> text) as the site's build puts them into this
// script (vite.config.js, notebookPythonInWorker): a browser has them with the worker's own script instead of
// 13 requests of their own. Null where this file runs as written (Node, the dev server): read from ./python/.
const PYTHON_SOURCES = null;
// Beside this module. Not written as new URL('./python/…', import.meta.url), which bundlers copy file by file.
const moduleURL = import.meta.url;
const PYTHON_FOLDER = new URL('python/', moduleURL);

const PYTHON_HOME = '/home/pyodide/attention';
// sys.setrecursionlimit's ceiling under Node: 49,000 Python frames with a recursive __repr__ on top (C
// recursion up to CPython's own stack check) still fit the worker's stack (index.js).
const RECURSION_CEILING = 50_000;

const inNode = typeof process === 'object' && process.versions?.node !== undefined;

// Under Node, Python's `js` module is this worker's globals, and Pyodide's Node glue can run commands
// (os.system), open sockets and mount host folders. Unless the caller asks for host access, Python gets a
// `js` of plain JavaScript and timers only, and closeHost() shuts the rest once Pyodide has loaded.
const SANDBOX_GLOBALS = [
  'Object', 'Array', 'ArrayBuffer', 'DataView', 'Date', 'Error', 'TypeError', 'RangeError', 'JSON', 'Math', 'Map',
  'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Promise', 'Symbol', 'BigInt', 'Number',
  'String', 'Boolean', 'RegExp', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'TextEncoder',
  'TextDecoder', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'AbortController',
  'AbortSignal',
];
const NO_HOST = 'is not available in the notebook: it has no access to the host (loadNotebook({ hostAccess: true }) gives it)';

function sandboxGlobals() {
  const globals = Object.create(null);
  for (const name of SANDBOX_GLOBALS) if (name in globalThis) globals[name] = globalThis[name];
  return globals;
}

/**
 * Shuts every way from this worker to the host that Python could still reach once Pyodide has loaded. After a
 * snapshot's restore Python's side is already shut (it is in the snapshot): only JavaScript's is done again.
 */
async function closeHost(pyodide, { restored = false } = {}) {
  // Emscripten's system() and sockets load child_process and ws through Node's module loader. system() (from
  // posix.system or ctypes; os.system says why below) gets a child_process whose every command is not found:
  // a module that throws there would end Python.
  const { Module } = await import('node:module');
  const noCommands = { spawnSync: () => ({ status: 127, signal: null }) };
  Module._load = (request) => {
    if (request === 'node:child_process') return noCommands;
    throw new Error(`${request} ${NO_HOST}`);
  };
  delete globalThis.require; // Pyodide's own, over fs, crypto, ws and child_process
  for (const name of ['getBuiltinModule', 'binding', '_linkedBinding', 'dlopen']) delete process[name];
  for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource']) delete globalThis[name];
  // Emscripten's emscripten_run_script (ctypes reaches it) evaluates text in the scope of Pyodide's glue.
  globalThis.eval = () => { throw new Error(`eval ${NO_HOST}`); };
  // Any function Python holds leads to its constructor, which would compile JavaScript from text.
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    const maker = f.constructor;
    const refused = () => { throw new Error(`${maker.name} ${NO_HOST}`); };
    Object.defineProperty(maker.prototype, 'constructor', { value: refused, writable: false, configurable: false });
  }
  if (restored) return;
  // pyodide_js is Pyodide's own API (and pyodide_js._api its internals): it mounts host folders, opens
  // sockets and loads packages from the network.
  pyodide.unregisterJsModule('pyodide_js');
  pyodide.runPython(`
import os, sys
for name in [name for name in sys.modules if name.split(".")[0] == "pyodide_js"]:
    del sys.modules[name]
def system(command):
    raise PermissionError("os.system ${NO_HOST}")
os.system = system  # Emscripten's system() would run the command on the host
del system`);
}

async function readText(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(url, 'utf8');
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.pathname}: HTTP ${response.status}`);
  return response.text();
}

async function importPyodide(pyodideURL) {
  if (inNode && !pyodideURL) return import('pyodide');
  // Pyodide stays a folder of its own files (it loads its standard library by name), not bundled.
  return import(/* @vite-ignore */ new URL('pyodide.mjs', pyodideURL).href);
}

const MB = 1024 * 1024;
// The addresses of downloads given up (the build's snapshot on a slow network): their bytes are no longer counted.
const givenUp = new Set();

/**
 * While Python loads in a browser, each file it downloads is reported as it arrives ("Downloading
 * pyodide.asm.wasm: 2.1 MB…", at most 10 reports a second), then what the loader waits for next. Returns a
 * function that stops the reports. (Under Node, Pyodide reads its files from the disk: no downloads.)
 */
function reportDownloads(progress) {
  if (inNode) return () => {};
  let received = 0;
  let last = 0;
  let active = true;
  let shown = 0; // the bar only moves forward, though files arrive in any order
  const report = (message, fraction) => progress(message, (shown = Math.max(shown, fraction)));
  const unwatch = watchSiteFetches((response, url) => {
    if (!active || !response.body) return response;
    const name = new URL(url).pathname.split('/').pop();
    // Counted on a copy, so that the response itself stays as the browser made it (its URL lets the browser
    // keep the compiled WebAssembly for the next visit).
    const reader = response.clone().body.getReader();
    (async () => {
      for (let part = await reader.read(); !part.done; part = await reader.read()) {
        if (givenUp.has(url)) { // the copy would keep the download going
          reader.cancel().catch(() => {});
          return;
        }
        received += part.value.byteLength;
        const now = Date.now();
        if (active && now - last > 100) {
          last = now;
          report(`Downloading ${name}: ${(received / MB).toFixed(1)} MB in all…`, Math.min(0.6, 0.05 + received / (20 * MB)));
        }
      }
      if (active && /\.wasm$/.test(name)) report(`Downloaded ${(received / MB).toFixed(1)} MB; compiling ${name}…`, 0.65);
    })().catch(() => {}); // a download that fails is the loader's to report
    return response;
  });
  return () => {
    active = false;
    unwatch();
  };
}

// A snapshot is Pyodide's memory snapshot (the whole WebAssembly memory once Python has started and imported
// cells and torch) behind a header of our own: the key of what it was made from and sys.path as it was then.
//   [u32 header length][header: JSON, UTF-8][zeros up to a multiple of 16][Pyodide's snapshot]
// Only the same Pyodide, the same Python files, the same core (backend and op table) and the same sandbox give
// the same key; any other snapshot is refused and Python starts from scratch (Pyodide checks its own build too).
const SNAPSHOT_FORMAT = 1;
// What stands for the core in the snapshot's table of JavaScript objects that Python holds (the core is the only one).
const CORE_IN_SNAPSHOT = 'attention-core';

// Starting CPython takes about 3 s on a 2-core machine, and a second compile of Pyodide's WebAssembly (from the
// cache) about 1 s: a snapshot whose rest would take longer to download than both is left for a start of Python.
const SLOWER_THAN_A_START_MS = 4000;
// How long a first visit measures the build's snapshot's download before Pyodide's files are asked for, when the
// rate it sees does not already say that the snapshot will be in soon enough (on a fast network it is all in first).
const EARLY_WINDOW_MS = 1000;

/** Why a snapshot offered is not restored (its message says why), as opposed to a restore that failed. */
class SnapshotRefused extends Error {}

/** The key of a snapshot: a SHA-256 of everything the memory it holds was made from. */
async function snapshotKey({ pyodideVersion, runtime, sandboxed, api, sources }) {
  const made = JSON.stringify({
    format: SNAPSHOT_FORMAT, pyodide: pyodideVersion, runtime, sandboxed,
    backend: api.backend, ops: api.ops, files: Object.keys(PYTHON_FILES), sources,
  });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(made));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Header and memory as one snapshot's bytes (exported for the tests). */
export function packSnapshot(header, memory) {
  // `memory`, the length of Python's memory, lets a reader size it from the header while the rest still arrives
  const json = new TextEncoder().encode(JSON.stringify({ ...header, memory: memory.length }));
  const start = Math.ceil((4 + json.length) / 16) * 16; // Pyodide reads its snapshot as 32-bit words
  const packed = new Uint8Array(start + memory.length);
  new DataView(packed.buffer).setUint32(0, json.length, true);
  packed.set(json, 4);
  packed.set(memory, start);
  return packed;
}

// The largest header and memory a snapshot may claim (WebAssembly's 32-bit memory is at most 4 GiB).
const MAX_HEADER = 1 << 20;
const validMemoryLength = (n) => Number.isSafeInteger(n) && n > 0 && n <= 2 ** 32;

/** The header of a snapshot from its first bytes: { header, start } (where the memory begins), or null. */
function readHeader(first) {
  try {
    const length = new DataView(first.buffer, first.byteOffset, first.byteLength).getUint32(0, true);
    const header = JSON.parse(new TextDecoder().decode(first.subarray(4, 4 + length)));
    if (header?.format !== SNAPSHOT_FORMAT || typeof header.key !== 'string') return null;
    if (header.memory !== undefined && !validMemoryLength(header.memory)) return null;
    return { header, start: Math.ceil((4 + length) / 16) * 16 };
  } catch {
    return null;
  }
}

/** { header, memory } of a packed snapshot, or null when the bytes are not one. */
function unpackSnapshot(bytes) {
  const packed = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  const read = packed.length >= 4 ? readHeader(packed) : null;
  if (!read || packed.length <= read.start) return null;
  const { header, start } = read;
  if (header.memory !== undefined && header.memory !== packed.length - start) return null;
  // Pyodide reads it as 32-bit words: a copy when this view of it is not aligned to them
  const memory = (packed.byteOffset + start) % 4 === 0 ? packed.subarray(start) : packed.slice(start);
  return { header, memory };
}

/** A snapshot already in memory as an offer (see openBuildSnapshot), or null when the bytes are not one. */
function offerOf(bytes) {
  const unpacked = unpackSnapshot(bytes);
  return unpacked && { ...unpacked, filled: Promise.resolve(), cancel: () => {}, msLeft: async () => 0, soonEnough: async () => ({ soon: true }) };
}

/**
 * The snapshot a build of the site made (gzip-compressed, or already decoded by the host), as it arrives:
 * { header, memory, filled, cancel, msLeft, soonEnough } once its header is read, where `memory` is Python's memory,
 * still being written until `filled` resolves (it rejects when the rest does not come whole), so that Pyodide's
 * WebAssembly compiles meanwhile, msLeft(window) how long the rest should take at the network's rate, and
 * soonEnough(limit, window) whether the rest should be in within `limit` ms (see below). Null
 * when the build has none (the dev server); bytes that are no snapshot throw a SnapshotRefused. Fetched beside
 * Pyodide's files, so its download shows with theirs.
 */
export async function openBuildSnapshot(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    let bytes = new Uint8Array(await readFile(url));
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = new Uint8Array((await import('node:zlib')).gunzipSync(bytes));
    return offerOf(bytes) ?? notASnapshot();
  }
  // Low priority: on a slow network Pyodide's own files, which every start needs, come first.
  const response = await fetch(url, { priority: 'low' });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const raw = response.body.getReader();
  // How long the rest of the download should take, at the rate measured over the next `window` ms (0 when it is
  // all in within it, or its size is unknown): measured while the worker waits, so that it is the network's.
  const size = Number(response.headers.get('Content-Length')) || 0;
  let received = 0;
  let rawDone;
  const allReceived = new Promise((resolve) => { rawDone = resolve; });
  const msLeft = async (window) => {
    const [from, since] = [received, performance.now()];
    await Promise.race([allReceived, new Promise((resolve) => setTimeout(resolve, window))]);
    if (!size || received >= size) return 0;
    const rate = (received - from) / (performance.now() - since);
    return rate > 0 ? (size - received) / rate : Infinity;
  };
  // Whether the rest should come within `limit` ms at the rate measured since it is asked: { soon: true } as soon
  // as it is all in or the rate seen for at least 100 ms says so, { soon: false, leftMs } if it still does not
  // after `window` ms. Asked before Pyodide's own files are: while it is measured, the snapshot has the network
  // nearly to itself.
  const soonEnough = async (limit, window) => {
    const [from, since] = [received, performance.now()];
    for (;;) {
      if (!size || received >= size) return { soon: true };
      const waited = performance.now() - since;
      const rate = (received - from) / waited;
      if (waited >= 100 && rate > 0 && (size - received) / rate <= limit) return { soon: true };
      if (waited >= window) return { soon: false, leftMs: rate > 0 ? (size - received) / rate : Infinity };
      await Promise.race([allReceived, new Promise((resolve) => setTimeout(resolve, 50))]);
    }
  };
  // Its first bytes tell whether it is still gzipped (a host that sent it with Content-Encoding: gzip decoded it).
  let first = new Uint8Array(0);
  while (first.length < 2) {
    const part = await raw.read();
    if (part.done) notASnapshot();
    received += part.value.length;
    first = concat(first, part.value);
  }
  const body = new ReadableStream({
    start: (controller) => controller.enqueue(first),
    pull: async (controller) => {
      const part = await raw.read();
      if (part.done) {
        rawDone();
        controller.close();
      } else {
        received += part.value.length;
        controller.enqueue(part.value);
      }
    },
    cancel: (reason) => raw.cancel(reason),
  }, { highWaterMark: Infinity }); // read as fast as the network brings it, so that msLeft measures the network, not the inflating
  const reader = (first[0] === 0x1f && first[1] === 0x8b ? body.pipeThrough(new DecompressionStream('gzip')) : body).getReader();
  let pending = new Uint8Array(0);
  const readAtLeast = async (n) => {
    while (pending.length < n) {
      const part = await reader.read();
      if (part.done) return false;
      pending = concat(pending, part.value);
    }
    return true;
  };
  const cancel = () => {
    givenUp.add(url.href);
    reader.cancel().catch(() => {});
  };
  const length = (await readAtLeast(4)) ? new DataView(pending.buffer, pending.byteOffset).getUint32(0, true) : Infinity;
  const read = length <= MAX_HEADER && (await readAtLeast(Math.ceil((4 + length) / 16) * 16)) ? readHeader(pending) : null;
  if (!read) {
    cancel();
    notASnapshot();
  }
  const { header, start } = read;
  pending = pending.subarray(start);
  if (header.memory === undefined) { // a header without its length: the memory once it is all there
    const parts = [pending];
    for (let part = await reader.read(); !part.done; part = await reader.read()) parts.push(part.value);
    const memory = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
    if (memory.length === 0) notASnapshot();
    parts.reduce((at, part) => (memory.set(part, at), at + part.length), 0);
    return { header, memory, filled: Promise.resolve(), cancel, msLeft: async () => 0, soonEnough: async () => ({ soon: true }) };
  }
  const memory = new Uint8Array(header.memory);
  memory.set(pending.subarray(0, memory.length));
  let at = Math.min(pending.length, memory.length);
  const filled = (async () => {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      if (at + part.value.length > memory.length) throw new Error('it holds more than its header says');
      memory.set(part.value, at);
      at += part.value.length;
    }
    if (at !== memory.length || pending.length > memory.length) throw new Error('it ended before its memory was whole');
  })();
  filled.catch(() => {}); // the start reports it
  return { header, memory, filled, cancel, msLeft, soonEnough };
}

const notASnapshot = () => { throw new SnapshotRefused("the build's snapshot is not a notebook snapshot"); };

const concat = (a, b) => {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
};

/**
 * A packed snapshot of Python as it is now: cells and torch imported (after `restore`, the interpreter as a
 * restart puts it back, was taken, so that a restart still loads torch afresh), nothing of a learner's yet.
 * Null when Pyodide cannot take one here (Python holds a JavaScript object other than the core).
 */
function takeSnapshot(pyodide, { cells, restore, api, key, progress }) {
  progress('Keeping a snapshot of Python for the next start…', 0.9);
  cells._restore_at_start = restore; // found there after a restore
  pyodide.runPython('import torch, ctypes'); // ctypes: what every start imports next (dataAddress below)
  const path = pyodide.runPython('import sys, json; json.dumps(sys.path)');
  try {
    // Pyodide takes snapshots only for a session loaded with its _makeSnapshot option, which also wraps the
    // worker's globals (Python's `js`) in proxies for the whole session; this session's Python holds none of
    // them, so the option is set only now, and `js` stays as it is.
    pyodide._api.config._makeSnapshot = true;
    const memory = pyodide.makeMemorySnapshot({
      serializer: (object) => {
        if (object === api) return CORE_IN_SNAPSHOT;
        throw new Error('Python holds a JavaScript object that a snapshot cannot hold');
      },
    });
    return packSnapshot({ format: SNAPSHOT_FORMAT, key, path: JSON.parse(path) }, memory);
  } catch (error) {
    console.warn(`notebook: no snapshot of Python was taken: ${error?.message ?? error}`);
    return null;
  } finally {
    pyodide._api.config._makeSnapshot = false;
  }
}

/**
 * Loads Python and the core; `progress(message, fraction)` is told each stage. Returns the session.
 * With `snapshot` (bytes a session made with `makeSnapshot`), Python is restored from it instead of started, when
 * it was made from the same files (otherwise it starts as usual: `session.snapshotRefused` says why); without it,
 * `snapshotURL` (the build's snapshot, gzipped: scripts/build-notebook-snapshot.mjs) is read instead. With
 * `makeSnapshot`, a snapshot is taken once cells and torch are imported, before any cell: `session.snapshot`.
 * @param {{profile?: 'default'|'mkl', flavour?: 'simd'|'scalar', pyodideURL?: string,
 *          interruptBuffer?: Int32Array, hostAccess?: boolean, snapshot?: ArrayBuffer|Uint8Array|null,
 *          snapshotURL?: string, makeSnapshot?: boolean, snapshotFor?: 'node'|'browser',
 *          progress?: (message: string, fraction: number) => void}} options
 */
export async function startSession({ profile = 'default', flavour, pyodideURL, interruptBuffer, hostAccess = false,
  snapshot = null, snapshotURL = null, makeSnapshot = false, snapshotFor, progress: tell = () => {} }) {
  const sandboxed = inNode && !hostAccess;
  // The runtime whose starts the snapshot is for. A build of the site makes the browser's under Node
  // (scripts/build-notebook-snapshot.mjs): Python is then left as a browser leaves it (not sandboxed).
  const runtime = snapshotFor ?? (inNode ? 'node' : 'browser');
  if (runtime !== 'node' && runtime !== 'browser') throw new Error(`snapshotFor must be 'node' or 'browser', got ${JSON.stringify(snapshotFor)}`);
  if (runtime === 'browser' && sandboxed) throw new Error("a snapshot for the browser is made with hostAccess: true (a browser's Python is not sandboxed as Node's is)");
  // The bar only moves forward: a file can still be arriving once Python starts (the standard library's).
  let shown = 0;
  const progress = (message, fraction) => tell(message, (shown = Math.max(shown, fraction)));
  progress('Loading Python (Pyodide)…', 0.05);
  const stopReports = reportDownloads(progress);
  let pyodide, api, sources, key;
  let restored = null; // the header of the snapshot Python was restored from
  let snapshotRefused = null;
  let fromBuild = false; // the snapshot offered is the build's (snapshotURL)
  try {
    // Everything at once: Pyodide's loader, the core, the Python files and the snapshot offered (its header comes
    // first); Pyodide's own files download and its WebAssembly compiles while the rest of the snapshot arrives.
    const pyodideLoading = importPyodide(pyodideURL);
    const apiLoading = import('../wasm/index.js').then(({ loadAttention }) => loadAttention(flavour ? { flavour } : {}));
    const sourcesLoading = PYTHON_SOURCES ? Promise.resolve(Object.keys(PYTHON_FILES).map((file) => PYTHON_SOURCES[file]))
      : Promise.all(Object.values(PYTHON_FILES).map((file) => readText(new URL(file, PYTHON_FOLDER))));
    apiLoading.catch(() => {}); // each is awaited below; a failure is the start's
    sourcesLoading.catch(() => {});
    let offerLoading = null;
    if (snapshot) offerLoading = Promise.resolve(offerOf(snapshot));
    else if (snapshotURL) {
      fromBuild = true;
      offerLoading = openBuildSnapshot(new URL(snapshotURL)).catch((error) => {
        snapshotRefused = error instanceof SnapshotRefused ? error.message : `the build's snapshot could not be read (${error?.message ?? error})`;
        return null;
      });
    }
    let [{ loadPyodide, version: pyodideVersion }, offered] = await Promise.all([pyodideLoading, offerLoading]);
    if (snapshot && !offered) snapshotRefused = 'the bytes given are not a notebook snapshot';
    // The build's snapshot on a network too slow to bring it sooner than Python starts is given up before
    // Pyodide's files are asked for: downloading beside them, it took its share of the network for nothing (on
    // 3 Mbit/s, Python was Ready some 10 s later). Its download stops with it.
    const early = offered && fromBuild ? await offered.soonEnough(SLOWER_THAN_A_START_MS, EARLY_WINDOW_MS) : { soon: true };
    if (!early.soon) {
      offered.cancel();
      snapshotRefused = `the rest of it would take ${(early.leftMs / 1000).toFixed(1)} s to download, longer than starting Python`;
      offered = null;
    }
    const options = {
      ...(pyodideURL ? { indexURL: pyodideURL } : {}),
      ...(sandboxed ? { jsglobals: sandboxGlobals() } : {}),
      // Standard input is at its end (os.read(0, n) gives b''): no one types into a worker, and Pyodide's own
      // reader would print a stack trace of the host's for each read.
      stdin: () => null,
      // Called once pyodide.asm.wasm is compiled, before Python starts.
      fsInit: async () => progress('Starting Python…', 0.7),
    };
    // The key needs the core (its backend and op table) and the Python files.
    const keyOfThisBuild = async () => {
      [api, sources] = await Promise.all([apiLoading, sourcesLoading]);
      return (key ??= await snapshotKey({ pyodideVersion, runtime, sandboxed, api, sources }));
    };
    if (offered) {
      let whole = false;
      offered.filled.then(() => { whole = true; }, () => {});
      // What Pyodide restores: the memory once its key is this build's (Pyodide waits for it before compiling).
      const checked = keyOfThisBuild().then((ours) => {
        if (offered.header.key !== ours) throw new SnapshotRefused('it was made from other files (another build of the site)');
        return offered.memory;
      });
      checked.catch(() => {}); // Pyodide's loader takes it up only once its own script is in; a refusal is caught below
      restored = offered.header;
      let giveUp;
      const givenUp = new Promise((resolve, reject) => { giveUp = reject; });
      try {
        pyodide = await Promise.race([
          loadPyodide({
            ...options,
            _loadSnapshot: checked,
            _snapshotDeserializer: (what) => {
              if (what !== CORE_IN_SNAPSHOT) throw new Error(`the snapshot holds an unknown object (${JSON.stringify(what)})`);
              return api;
            },
            // Called once pyodide.asm.wasm is compiled, before the memory is put back: the memory must be whole
            // by then. If it never is (it failed, or a slow network would take longer to bring the rest than
            // Python takes to start), this Pyodide waits for ever, forsaken for one that starts Python (below).
            fsInit: async () => {
              if (!whole) {
                progress('Reading the rest of the snapshot…', 0.68);
                const left = await offered.msLeft(1000);
                if (left > SLOWER_THAN_A_START_MS) {
                  giveUp(new SnapshotRefused(`the rest of it would take ${(left / 1000).toFixed(1)} s more to download, longer than starting Python`));
                  return new Promise(() => {});
                }
              }
              await offered.filled.catch(() => new Promise(() => {}));
              progress('Restoring Python from its snapshot…', 0.7);
            },
          }),
          offered.filled.then(() => new Promise(() => {})), // settles only by failing
          givenUp,
        ]);
      } catch (error) {
        // Python starts from scratch instead, in a Pyodide of its own
        offered.cancel();
        restored = null;
        snapshotRefused = error instanceof SnapshotRefused ? error.message
          : `restoring it failed (${String(error?.message ?? error).split('\n')[0]})`;
      }
    }
    if (!pyodide) [pyodide, api, sources] = await Promise.all([loadPyodide(options), apiLoading, sourcesLoading]);
    if (makeSnapshot) await keyOfThisBuild();
  } finally {
    stopReports();
  }
  progress('Starting torch…', 0.85);
  api.setRngProfile(profile);

  // The package's files as shipped, whatever a cell wrote over them (restart() writes them again). Written as
  // bytes: Emscripten encodes a string to UTF-8 in JavaScript, 40-100 ms for these 100 KB at the first start.
  const encoded = sources.map((source) => new TextEncoder().encode(source));
  const writeFiles = () => {
    removeTree(pyodide.FS, PYTHON_HOME);
    Object.keys(PYTHON_FILES).forEach((file, i) => {
      const path = `${PYTHON_HOME}/${file}`;
      pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')));
      pyodide.FS.writeFile(path, encoded[i]);
    });
  };
  writeFiles(); // the file system is not part of a snapshot
  let cells, restore, made = null;
  if (restored) {
    // Python's memory is as it was when the snapshot was taken: cells and torch imported, the host shut (Node).
    pyodide.setInterruptBuffer(interruptBuffer); // the snapshot's flag for it is the session's that made it
    // Loading put '' in front of sys.path again; the random module was seeded when the snapshot was made, so
    // every restore would draw the same numbers: seeded afresh, as a new process seeds it (before the host is
    // shut: Emscripten finds its source of random bytes at the first use).
    pyodide.runPython(`import sys, random; sys.path[:] = ${JSON.stringify(restored.path)}; random.seed()`);
    if (sandboxed) await closeHost(pyodide, { restored: true });
    cells = pyodide.pyimport('cells');
    restore = cells._restore_at_start;
  } else {
    pyodide.registerJsModule('_attention_api', api);
    // No bytecode caches: a file written again within the same second must not be read from a stale one.
    pyodide.runPython(`import sys; sys.dont_write_bytecode = True; sys.path.insert(0, ${JSON.stringify(PYTHON_HOME)})`);
    if (sandboxed) await closeHost(pyodide);
    cells = pyodide.pyimport('cells');
    if (runtime === 'node') cells.cap_recursion_limit(RECURSION_CEILING);
    restore = cells.pristine();
    if (makeSnapshot) made = takeSnapshot(pyodide, { cells, restore, api, key, progress });
    if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  }
  let notebook = cells.Notebook();
  let broken = false; // Python cannot go on (Pyodide's fatal error, or its runner is gone): the worker is replaced
  const decoder = new TextDecoder();
  // A bytes object's data read in place. Pyodide's own conversions (toJs, getBuffer) take heap addresses past
  // 2 GB as negative, so once memory is that full a long str came back with NUL bytes, or not at all.
  const dataAddress = pyodide.runPython(`
import ctypes
lambda data: ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0`, { globals: pyodide.toPy({}) });
  const heapBytes = (bytes) => {
    const address = dataAddress(bytes);
    return pyodide._module.HEAPU8.subarray(address, address + bytes.length);
  };
  progress('Ready', 1);

  return {
    backend: api.backend,
    /** The packed snapshot this start made (makeSnapshot), or null. */
    snapshot: made,
    /** True when Python was restored from the snapshot given; else why it was not (null when none was given). */
    restoredFromSnapshot: restored !== null,
    /** Which snapshot: 'given' (`snapshot`) or 'build' (`snapshotURL`); null when Python was started. */
    restoredFrom: restored === null ? null : fromBuild ? 'build' : 'given',
    snapshotRefused,
    get profile() { return api.getRngProfile(); },
    get broken() { return broken; },
    setProfile(name) { api.setRngProfile(name); },
    /** Runs one cell: { output, error } with error null or { type, message, line, traceback }; `stream(text)`,
     * if given, is called with what the cell prints as it prints it, and `onStop()` when Python takes a Stop
     * (the interrupt flag is the worker's to clear before each run: worker.js). */
    run(code, stream, onStop) {
      let ran, result;
      try {
        ran = notebook.run.callKwargs(code, { ...(stream && { stream }), ...(onStop && { on_stop: onStop }) });
        result = cells.as_utf8(ran); // (bytes, dict of bytes)
      } catch (error) {
        if (error?.constructor?.name !== 'PythonError') broken = true; // not Python's own error: the engine's
        throw error;
      } finally {
        ran?.destroy();
      }
      const text = (bytes) => {
        try {
          return decoder.decode(heapBytes(bytes));
        } finally {
          bytes.destroy();
        }
      };
      try {
        const output = text(result.get(0));
        const error = result.get(1);
        if (!error) return { output, error: null };
        const described = { type: text(error.get('type')), message: text(error.get('message')),
          line: error.get('line') ?? null, traceback: text(error.get('traceback')) };
        error.destroy();
        return { output, error: described };
      } finally {
        result.destroy();
      }
    },
    /**
     * A fresh namespace (the seed and print options of the core are reset too), and the interpreter put back
     * as it started. False when that could not be done: a cell broke Python past repair.
     */
    restart() {
      try {
        notebook.destroy();
        writeFiles();
        restore();
        cells.destroy();
        pyodide.runPython('import sys; sys.modules.pop("cells", None)');
        cells = pyodide.pyimport('cells');
        api.setPrintOptions({ profile: 'default' });
        api.manualSeed(crypto.getRandomValues(new BigUint64Array(1))[0]); // like a new process: a random seed
        notebook = cells.Notebook();
        // A cell can break what the snapshot shares (a standard module's functions): then a new worker.
        const runner = cells.Notebook();
        const probe = runner.run('print(1)');
        const works = probe.get(0) === '1\n' && probe.get(1) === undefined;
        probe.destroy();
        runner.destroy();
        if (!works) broken = true;
        return works;
      } catch {
        broken = true;
        return false;
      }
    },
  };
}

/** Removes a folder of Pyodide's file system and all it holds, if it is there (links, not what they point to). */
function removeTree(FS, path) {
  if (!FS.analyzePath(path, true).exists) return;
  if (!FS.isDir(FS.lstat(path).mode)) return FS.unlink(path);
  for (const name of FS.readdir(path)) if (name !== '.' && name !== '..') removeTree(FS, `${path}/${name}`);
  FS.rmdir(path);
}
