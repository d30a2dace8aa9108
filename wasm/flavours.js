// The builds of the core: each one's Emscripten script (imported on demand) and the address of its .wasm.
// Written out literally so that a bundler sees every file, copies it and names it by content.
export const FLAVOURS = {
  simd: {
    script: () => import('./dist/attention-simd.mjs'),
    wasm: new URL('./dist/attention-simd.wasm', import.meta.url),
    compiled: () => startedByPage(FLAVOURS.simd.wasm),
  },
  // On pthreads: each thread's worker imports the same module script (so it is copied as it is, by its
  // address, not bundled) after Emscripten's worker script.
  'simd-threads': {
    scriptUrl: new URL('./dist/attention-simd-threads.mjs', import.meta.url),
    script: () => import(/* @vite-ignore */ FLAVOURS['simd-threads'].scriptUrl.href),
    worker: new URL('./dist/attention-simd-threads.worker.js', import.meta.url),
    wasm: new URL('./dist/attention-simd-threads.wasm', import.meta.url),
  },
  scalar: {
    script: () => import('./dist/attention-scalar.mjs'),
    wasm: new URL('./dist/attention-scalar.wasm', import.meta.url),
    compiled: () => startedByPage(FLAVOURS.scalar.wasm),
  },
};

// The compilation of this .wasm that a page's boot script (web/public/boot.js) started with the page's first
// bytes, if it did; else undefined (the loader fetches and compiles it).
function startedByPage(url) {
  const started = globalThis.bootCore;
  return started?.url === url.href ? started.compiled : undefined;
}

// Builds left out of this edition, with what to tell someone whose browser needs one (none here).
export const LEFT_OUT = {};
