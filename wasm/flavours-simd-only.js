// What the single-file page carries in place of flavours.js (vite.config.js swaps it in): the SIMD build
// only, which every current browser runs, so the file stays small.
export const FLAVOURS = {
  simd: {
    script: () => import('./dist/attention-simd.mjs'),
    wasm: new URL('./dist/attention-simd.wasm', import.meta.url),
  },
};

export const LEFT_OUT = {
  scalar:
    'This browser has no WebAssembly SIMD, and this single-file edition carries only the SIMD build. ' +
    'Open the published site instead (it has a build without SIMD), or update the browser ' +
    '(Chrome 91, Firefox 89, Safari 16.4 and later have SIMD).',
};
