// This engine's WebAssembly SIMD peak: f32x4 multiply-then-add pairs per second, the arithmetic of the wasm
// GEMM (no FMA in wasm SIMD). Shared by the bench page (web/bench.js) and scripts/bench.mjs.
//
// The module is scripts/bench/peak.wat, assembled with `wasm-as --enable-simd peak.wat -o -` (base64): two
// loops of nothing but f32x4.mul and f32x4.add: the GEMM's register block without its pointer arithmetic
// (2 vectors loaded from a fixed place times 4 broadcasts, into 8 accumulators) and 12 independent chains;
// the peak is the faster of the two.
const PEAK_WASM =
  'AGFzbQEAAAABBwFgAn99AX0DAwIAAAUDAQABBxICBWJsb2NrAAAGY2hhaW5zAAEKhgUC6AEBDnsgAUMAAIA/lP0TIQwgAUMAAKA/lP0TIQ0gAUMAAMA/lP0TIQ4gAUMAAOA/lP0TIQ8DQEEA/QAEACEKQQD9AAQQIQsgAiAKIAz95gH95AEhAiADIAsgDP3mAf3kASEDIAQgCiAN/eYB/eQBIQQgBSALIA395gH95AEhBSAGIAogDv3mAf3kASEGIAcgCyAO/eYB/eQBIQcgCCAKIA/95gH95AEhCCAJIAsgD/3mAf3kASEJIABBAWsiAA0ACyACIAP95AEgBP3kASAF/eQBIAb95AEgB/3kASAI/eQBIAn95AH9HwALmQMBDntD7/9/P/0TIQ4gAUO9N4Y1lP0TIQ8gAUMAAIA/lP0TIQIgAUMAAABAlP0TIQMgAUMAAEBAlP0TIQQgAUMAAIBAlP0TIQUgAUMAAKBAlP0TIQYgAUMAAMBAlP0TIQcgAUMAAOBAlP0TIQggAUMAAABBlP0TIQkgAUMAABBBlP0TIQogAUMAACBBlP0TIQsgAUMAADBBlP0TIQwgAUMAAEBBlP0TIQ0DQCACIA795gEgD/3kASECIAMgDv3mASAP/eQBIQMgBCAO/eYBIA/95AEhBCAFIA795gEgD/3kASEFIAYgDv3mASAP/eQBIQYgByAO/eYBIA/95AEhByAIIA795gEgD/3kASEIIAkgDv3mASAP/eQBIQkgCiAO/eYBIA/95AEhCiALIA795gEgD/3kASELIAwgDv3mASAP/eQBIQwgDSAO/eYBIA/95AEhDSAAQQFrIgANAAsgAiAD/eQBIAT95AEgBf3kASAG/eQBIAf95AEgCP3kASAJ/eQBIAr95AEgC/3kASAM/eQBIA395AH9HwAL';

/** Compiles the loops and warms them into V8's optimising tier; resolves to a function that measures GFLOP/s. */
export async function wasmPeak() {
  const bytes = Uint8Array.from(atob(PEAK_WASM), (c) => c.charCodeAt(0));
  const { instance } = await WebAssembly.instantiate(bytes);
  const { block, chains } = instance.exports;
  for (let i = 0; i < 3; i++) block(1e5, 1e-3), chains(1e5, 1e-3);
  const n = 4e6; // tens of milliseconds each
  return () => {
    let t0 = performance.now();
    block(n, 1e-3);
    const blockGflops = (n * 8 * 8) / (performance.now() - t0) / 1e6;
    t0 = performance.now();
    chains(n, 1e-3);
    const chainGflops = (n * 12 * 8) / (performance.now() - t0) / 1e6;
    return Math.max(blockGflops, chainGflops);
  };
}
