// The two builds of the core: each one's Emscripten script (imported on demand) and the address of its
// .wasm. Written out literally so that a bundler sees both files, copies them and names them by content.
export const FLAVOURS = {
  simd: {
    script: () => import('./dist/attention-simd.mjs'),
    wasm: new URL('./dist/attention-simd.wasm', import.meta.url),
  },
  scalar: {
    script: () => import('./dist/attention-scalar.mjs'),
    wasm: new URL('./dist/attention-scalar.wasm', import.meta.url),
  },
};

// Builds left out of this edition, with what to tell someone whose browser needs one (none here).
export const LEFT_OUT = {};
