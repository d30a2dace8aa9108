// One Python session: Pyodide (CPython in WebAssembly) with this project's `torch` package over the attention
// core, and cells.py's Notebook holding the namespace. It runs inside a worker (worker.js), so a runaway
// cell never blocks the page; everything here is synchronous once loaded.
import { watchSiteFetches } from './site-only.js';

// The Python files (path in Pyodide's file system -> address), written there at start-up. Each address is
// written out literally so that a bundler copies the file.
const PYTHON_FILES = {
  'cells.py': new URL('./python/cells.py', import.meta.url),
  'torch/__init__.py': new URL('./python/torch/__init__.py', import.meta.url),
  'torch/_core.py': new URL('./python/torch/_core.py', import.meta.url),
  'torch/_tensor.py': new URL('./python/torch/_tensor.py', import.meta.url),
  'torch/nn/__init__.py': new URL('./python/torch/nn/__init__.py', import.meta.url),
  'torch/nn/functional.py': new URL('./python/torch/nn/functional.py', import.meta.url),
  'torch/nn/init.py': new URL('./python/torch/nn/init.py', import.meta.url),
  'torch/nn/attention.py': new URL('./python/torch/nn/attention.py', import.meta.url),
  'torch/nn/sparse.py': new URL('./python/torch/nn/sparse.py', import.meta.url),
  'torch/nn/normalization.py': new URL('./python/torch/nn/normalization.py', import.meta.url),
  'torch/serialization.py': new URL('./python/torch/serialization.py', import.meta.url),
  'torch/_pytorch_names.py': new URL('./python/torch/_pytorch_names.py', import.meta.url),
  // What importlib.metadata.version("torch") reads: the release this torch follows. The source is a .txt outside
  // any *.dist-info folder, so that bundlers serve it as text and a host Python never takes it for a package.
  'torch-1.13.1.dist-info/METADATA': new URL('./python/torch-dist-info.txt', import.meta.url),
};
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

/** Shuts every way from this worker to the host that Python could still reach once Pyodide has loaded. */
async function closeHost(pyodide) {
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

/**
 * Loads Python and the core; `progress(message, fraction)` is told each stage. Returns the session.
 * @param {{profile?: 'default'|'mkl', flavour?: 'simd'|'scalar', pyodideURL?: string,
 *          interruptBuffer?: Int32Array, hostAccess?: boolean, progress?: (message: string, fraction: number) => void}} options
 */
export async function startSession({ profile = 'default', flavour, pyodideURL, interruptBuffer, hostAccess = false,
  progress = () => {} }) {
  const sandboxed = inNode && !hostAccess;
  progress('Loading Python (Pyodide)…', 0.05);
  const stopReports = reportDownloads(progress);
  let pyodide, api, sources;
  try {
    let loadPyodide, loadAttention;
    [{ loadPyodide }, { loadAttention }, sources] = await Promise.all([
      importPyodide(pyodideURL),
      import('../wasm/index.js'),
      Promise.all(Object.values(PYTHON_FILES).map(readText)),
    ]);
    [pyodide, api] = await Promise.all([
      loadPyodide({ ...(pyodideURL ? { indexURL: pyodideURL } : {}), ...(sandboxed ? { jsglobals: sandboxGlobals() } : {}) }),
      loadAttention(flavour ? { flavour } : {}),
    ]);
  } finally {
    stopReports();
  }
  progress('Starting torch…', 0.85);
  api.setRngProfile(profile);
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);

  // The package's files as shipped, whatever a cell wrote over them (restart() writes them again).
  const writeFiles = () => {
    removeTree(pyodide.FS, PYTHON_HOME);
    Object.keys(PYTHON_FILES).forEach((file, i) => {
      const path = `${PYTHON_HOME}/${file}`;
      pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')));
      pyodide.FS.writeFile(path, sources[i]);
    });
  };
  writeFiles();
  pyodide.registerJsModule('_attention_api', api);
  // No bytecode caches: a file written again within the same second must not be read from a stale one.
  pyodide.runPython(`import sys; sys.dont_write_bytecode = True; sys.path.insert(0, ${JSON.stringify(PYTHON_HOME)})`);
  if (sandboxed) await closeHost(pyodide);
  let cells = pyodide.pyimport('cells');
  if (inNode) cells.cap_recursion_limit(RECURSION_CEILING);
  const restore = cells.pristine();
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
    get profile() { return api.getRngProfile(); },
    get broken() { return broken; },
    setProfile(name) { api.setRngProfile(name); },
    /** Runs one cell: { output, error } with error null or { type, message, line, traceback }; `stream(text)`,
     * if given, is called with what the cell prints as it prints it. */
    run(code, stream) {
      if (interruptBuffer) interruptBuffer[0] = 0;
      let ran, result;
      try {
        ran = stream ? notebook.run(code, stream) : notebook.run(code);
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
