// The attention core as a PyTorch-shaped JavaScript API, for browsers and Node >= 20.
//
//   import { loadAttention } from 'attention-lab';
//   const torch = await loadAttention();
//   torch.manualSeed(123);
//   const sa = new torch.SelfAttention_v1(3, 2);
//   console.log(sa.forward(inputs).toString());
//
// Tensors own their values in JavaScript (a Float32Array shared by views), so nothing ever needs to be
// freed by hand. The module's exports are Embind declarations (bindings.cpp); api/ gives them PyTorch's
// shape: ops.js (the op table: each op on tensors declared once), checks.js (AttentionError and argument
// checks), boundary.js (calling the core: tensors in and out, errors), tensor.js (Tensor, its methods made
// from the table), modules.js (nn modules) and torch.js (the namespace returned here).
import { AttentionError, describe } from './api/checks.js';
import { makeApi } from './api/torch.js';
import { FLAVOURS, LEFT_OUT } from './flavours.js';

export { AttentionError };

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid only where SIMD128 runs.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

const FLAVOUR_NAMES = ['simd', 'simd-threads', 'scalar'];
// Node's stand-in for Web Workers, imported by name only there (a bundler for the browser leaves it out).
const NODE_WORKERS = './thread-workers.js';
const MAX_THREADS = 256; // attn::kMaxThreads

// Threads need shared memory: Node has it; a page only when cross-origin isolated (COOP + COEP headers).
const threadsAvailable = () =>
  isNode || (globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function');

/** The machine's threads: Node's os.availableParallelism(), a browser's navigator.hardwareConcurrency. */
async function machineThreads() {
  const n = isNode ? (await import('node:os')).availableParallelism() : globalThis.navigator?.hardwareConcurrency;
  return Math.min(Math.max(1, Math.floor(n) || 1), MAX_THREADS);
}

/**
 * Loads the WebAssembly module once and returns the API object.
 * @param {{ flavour?: 'simd' | 'simd-threads' | 'scalar', threads?: number }} [options] force a build; by
 *   default SIMD on threads in Node, and in a cross-origin-isolated page given `threads` (never in the single-file
 *   edition, which carries the SIMD build only); else SIMD where the engine has it; else scalar.
 *   `threads` (1 to 256) overrides the machine's count; more than 1 needs the threaded build.
 */
export async function loadAttention(options = {}) {
  const { threads } = options;
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS)) {
    throw new AttentionError(`loadAttention: threads must be an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
  }
  const simd = WebAssembly.validate(SIMD_PROBE);
  // In Node by default; in a browser when asked for (a thread count): a page's first numbers come sooner from
  // the one-thread build (no workers to start, fewer files), and a worker may not be allowed workers of its own.
  const threaded = simd && threadsAvailable() && (isNode || threads !== undefined) && FLAVOURS['simd-threads'] !== undefined;
  const flavour = options.flavour ?? (threaded ? 'simd-threads' : simd ? 'simd' : 'scalar');
  if (!FLAVOUR_NAMES.includes(flavour)) {
    throw new AttentionError(`loadAttention: flavour must be 'simd', 'simd-threads' or 'scalar', got ${describe(flavour)}`);
  }
  if (threads > 1 && flavour !== 'simd-threads') {
    throw new AttentionError(
      `loadAttention: threads: ${threads} needs the 'simd-threads' flavour, and this loads '${flavour}'` +
        (options.flavour === undefined ? ' (threads need Node or a cross-origin-isolated page with SIMD)' : ''));
  }
  if (flavour === 'simd-threads' && !threadsAvailable()) {
    throw new AttentionError("loadAttention: the 'simd-threads' flavour needs shared memory: Node, or a page served " +
      'cross-origin isolated (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp)');
  }
  const build = FLAVOURS[flavour];
  if (!build) throw new AttentionError(LEFT_OUT[flavour] ?? `loadAttention: the ${flavour} build is not part of this edition`);
  // The binary is fetched and compiled while the Emscripten script loads, not after it (or was compiled
  // before this module ran: the single file's build.compiled).
  const compiled = build.compiled?.() ?? compileWasm(build.wasm);
  if (flavour !== 'simd-threads') {
    const { default: create } = await build.script();
    const wasm = await instantiate(create, compiled);
    return withThreads(makeApi(wasm, flavour === 'simd' ? 'wasm-simd128' : 'wasm-scalar'), wasm, flavour, 1);
  }
  const count = threads ?? (await machineThreads());
  const [{ default: create }, workers] = await Promise.all([
    build.script(),
    isNode ? import(/* @vite-ignore */ NODE_WORKERS).then((m) => m.nodeThreadWorkers()) : null,
  ]);
  let memory = null;
  const wasm = await instantiate(create, compiled, {
    attnPoolSize: Math.max(1, count - 1), // the caller's thread is one of the count
    locateFile: (file) => (file.endsWith('.worker.js') ? build.worker.href : file),
    mainScriptUrlOrBlob: build.scriptUrl.href,
    Worker: workers?.Worker,
    onMemory: (m) => (memory = m),
  });
  workers?.release(); // every worker has started: Node may exit while they wait for work
  followGrowth(wasm, memory);
  wasm.setNumThreads(count);
  return withThreads(makeApi(wasm, 'wasm-simd128'), wasm, flavour, wasm.numThreads());
}

/**
 * torch.flavour, torch.threads (the count in use) and torch.setNumThreads(n), PyTorch's torch.set_num_threads:
 * a page can time one module on 1 to n threads (the bits do not change). No more than the module was loaded
 * with: those have their workers (a worker started later would keep Node from exiting).
 */
function withThreads(api, wasm, flavour, loaded) {
  const threaded = flavour === 'simd-threads';
  Object.defineProperties(api, {
    flavour: { value: flavour, enumerable: true },
    threads: { get: () => (threaded ? wasm.numThreads() : 1), enumerable: true },
  });
  api.setNumThreads = (threads) => {
    if (!(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS)) {
      throw new AttentionError(`setNumThreads: threads must be an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
    }
    if (threads > 1 && !threaded) {
      throw new AttentionError(`setNumThreads: ${threads} threads need the 'simd-threads' flavour, and this is '${flavour}'`);
    }
    if (threads > loaded) {
      throw new AttentionError(`setNumThreads: this module was loaded with ${loaded} threads, so ${threads} is too many ` +
        '(loadAttention({ threads }) sets the most)');
    }
    if (threaded) wasm.setNumThreads(threads);
  };
  return api;
}

// The heap views api/ reads (HEAP32, HEAPF32…) made afresh whenever the shared memory has grown: a thread
// may grow it, and Emscripten refreshes Module's views only when its own code next looks.
function followGrowth(wasm, memory) {
  const views = { HEAP8: Int8Array, HEAPU8: Uint8Array, HEAP16: Int16Array, HEAPU16: Uint16Array, HEAP32: Int32Array,
    HEAPU32: Uint32Array, HEAPF32: Float32Array, HEAPF64: Float64Array };
  for (const [name, View] of Object.entries(views)) {
    let view = null;
    Object.defineProperty(wasm, name, {
      get: () => (view?.buffer === memory.buffer ? view : (view = new View(memory.buffer))),
      set: () => {}, // Emscripten's own refreshes: the getter makes the same views
      configurable: true,
    });
  }
}

/** The compiled module: streamed where the server labels it application/wasm, else from its bytes. */
async function compileWasm(url) {
  if (isNode) {
    // Node's fetch() cannot read file: URLs.
    const { readFile } = await import('node:fs/promises');
    return WebAssembly.compile(await readFile(url));
  }
  // A build inlined as a data: URL (the single-file edition): decoded here: several times faster than fetch() of it.
  if (url.protocol === 'data:' && typeof Uint8Array.fromBase64 === 'function') {
    const { href } = url;
    return WebAssembly.compile(Uint8Array.fromBase64(href.slice(href.indexOf(',') + 1)));
  }
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(response.clone());
    } catch {
      // a host that serves .wasm with another Content-Type: compile from the bytes instead
    }
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/**
 * Runs Emscripten's start-up with our compiled module (its instantiateWasm hook); rejects if that fails.
 * `settings` are more Module properties; its onMemory (not passed on) receives the imported memory.
 */
function instantiate(create, compiled, settings = {}) {
  const { onMemory, ...moduleSettings } = settings;
  return new Promise((resolve, reject) => {
    create({
      ...moduleSettings,
      instantiateWasm(imports, receiveInstance) {
        // the shared memory Emscripten made (its import names are minified: found by its type)
        onMemory?.(Object.values(imports).flatMap(Object.values).find((v) => v instanceof WebAssembly.Memory));
        compiled
          .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module)))
          .catch(reject);
        return {}; // asynchronous: Emscripten waits for receiveInstance
      },
    }).then(resolve, reject);
  });
}
