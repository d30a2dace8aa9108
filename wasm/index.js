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

/**
 * Loads the WebAssembly module once and returns the API object.
 * @param {{ flavour?: 'simd' | 'scalar' }} [options] force a build; by default SIMD where the engine has it
 */
export async function loadAttention(options = {}) {
  const flavour = options.flavour ?? (WebAssembly.validate(SIMD_PROBE) ? 'simd' : 'scalar');
  if (flavour !== 'simd' && flavour !== 'scalar') {
    throw new AttentionError(`loadAttention: flavour must be 'simd' or 'scalar', got ${describe(flavour)}`);
  }
  const build = FLAVOURS[flavour];
  if (!build) throw new AttentionError(LEFT_OUT[flavour] ?? `loadAttention: the ${flavour} build is not part of this edition`);
  // The binary is fetched and compiled while the Emscripten script loads, not after it.
  const compiled = compileWasm(build.wasm);
  const { default: create } = await build.script();
  const wasm = await instantiate(create, compiled);
  return makeApi(wasm, flavour === 'simd' ? 'wasm-simd128' : 'wasm-scalar');
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

/** Runs Emscripten's start-up with our compiled module (its instantiateWasm hook); rejects if that fails. */
function instantiate(create, compiled) {
  return new Promise((resolve, reject) => {
    create({
      instantiateWasm(imports, receiveInstance) {
        compiled
          .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module)))
          .catch(reject);
        return {}; // asynchronous: Emscripten waits for receiveInstance
      },
    }).then(resolve, reject);
  });
}
