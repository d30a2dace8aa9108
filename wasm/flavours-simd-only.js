// What the single-file page carries in place of flavours.js (vite.config.js swaps it in): the SIMD build
// only, which every current browser runs, so the file stays small; its .wasm is not bundled but inlined on
// the boot script's tag.
export const FLAVOURS = {
  simd: {
    script: () => import('./dist/attention-simd.mjs'),
    // compiled by the page's boot script from the gzipped bytes the build writes on its tag (vite.config.js),
    // while this module is still being parsed
    compiled: () => globalThis.bootCore?.compiled ?? Promise.reject(new Error('the page’s inlined WebAssembly is missing')),
  },
};

export const LEFT_OUT = {
  scalar:
    'This browser has no WebAssembly SIMD, and this single-file edition carries only the SIMD build. ' +
    'Open the published site instead (it has a build without SIMD), or update the browser ' +
    '(Chrome 91, Firefox 89, Safari 16.4 and later have SIMD).',
};
