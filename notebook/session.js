// One Python session: Pyodide (CPython in WebAssembly) with this project's `torch` package over the attention
// core, and cells.py's Notebook holding the namespace. It runs inside a worker (worker.js), so a runaway
// cell never blocks the page; everything here is synchronous once loaded.

// The Python files (path in Pyodide's file system -> address), written there at start-up. Each address is
// written out literally so that a bundler copies the file.
const PYTHON_FILES = {
  'cells.py': new URL('./python/cells.py', import.meta.url),
  'torch/__init__.py': new URL('./python/torch/__init__.py', import.meta.url),
  'torch/_core.py': new URL('./python/torch/_core.py', import.meta.url),
  'torch/_tensor.py': new URL('./python/torch/_tensor.py', import.meta.url),
  'torch/nn/__init__.py': new URL('./python/torch/nn/__init__.py', import.meta.url),
  'torch/nn/functional.py': new URL('./python/torch/nn/functional.py', import.meta.url),
};
const PYTHON_HOME = '/home/pyodide/attention';

const inNode = typeof process === 'object' && process.versions?.node !== undefined;

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

/**
 * Loads Python and the core; `progress(message, fraction)` is told each stage. Returns the session.
 * @param {{profile?: 'default'|'mkl', flavour?: 'simd'|'scalar', pyodideURL?: string,
 *          interruptBuffer?: Int32Array, progress?: (message: string, fraction: number) => void}} options
 */
export async function startSession({ profile = 'default', flavour, pyodideURL, interruptBuffer, progress = () => {} }) {
  progress('Loading Python (Pyodide)…', 0.05);
  const [{ loadPyodide }, { loadAttention }, sources] = await Promise.all([
    importPyodide(pyodideURL),
    import('../wasm/index.js'),
    Promise.all(Object.values(PYTHON_FILES).map(readText)),
  ]);
  const [pyodide, api] = await Promise.all([
    loadPyodide(pyodideURL ? { indexURL: pyodideURL } : {}),
    loadAttention(flavour ? { flavour } : {}),
  ]);
  progress('Starting torch…', 0.85);
  api.setRngProfile(profile);
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);

  Object.keys(PYTHON_FILES).forEach((file, i) => {
    const path = `${PYTHON_HOME}/${file}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')));
    pyodide.FS.writeFile(path, sources[i]);
  });
  pyodide.registerJsModule('_attention_api', api);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(PYTHON_HOME)})`);
  const cells = pyodide.pyimport('cells');
  let notebook = cells.Notebook();
  progress('Ready', 1);

  return {
    backend: api.backend,
    get profile() { return api.getRngProfile(); },
    setProfile(name) { api.setRngProfile(name); },
    /** Runs one cell: { output, error } with error null or { type, message, line, traceback }; `stream(text)`,
     * if given, is called with what the cell prints as it prints it. */
    run(code, stream) {
      if (interruptBuffer) interruptBuffer[0] = 0;
      const result = stream ? notebook.run(code, stream) : notebook.run(code);
      const [output, error] = result.toJs({ dict_converter: Object.fromEntries });
      result.destroy();
      return { output, error: error ? { ...error, line: error.line ?? null } : null };
    },
    /** A fresh namespace (the seed and print options of the core are reset too). */
    restart() {
      notebook.destroy();
      pyodide.runPython('import sys; [sys.modules.pop(m) for m in list(sys.modules) if m == "torch" or m.startswith("torch.")]');
      api.setPrintOptions({ profile: 'default' });
      api.manualSeed(crypto.getRandomValues(new BigUint64Array(1))[0]); // like a new process: a random seed
      notebook = cells.Notebook();
    },
  };
}
