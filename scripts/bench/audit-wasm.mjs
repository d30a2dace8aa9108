#!/usr/bin/env node
// Audits the fast path's hot functions in a SIMD build of the module: no lane-by-lane code (extract_lane,
// replace_lane) and no float→int conversion (i32.trunc_*) may sit in them, where Emscripten's SSE
// emulation or clang's vectorizer would put them. Needs function names and binaryen's wasm-dis:
//
//   cmake --preset wasm-simd -B build/wasm-audit -DATTN_WASM_OUTPUT_DIR=$PWD/build/wasm-audit/out \
//         -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs
//   NODE_PATH=/usr/share/nodejs cmake --build build/wasm-audit
//   node scripts/bench/audit-wasm.mjs build/wasm-audit/out/attention-simd.wasm
//
// Prints, per function, how many of each listed instruction it holds (lane moves that reduce a row once per
// tile, outside the per-element loops, are expected in attention_causal) and exits 1 if a conversion or a
// lane move shows up in the GEMM kernels.
import { execFileSync } from 'node:child_process';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/bench/audit-wasm.mjs <attention-simd.wasm built with --profiling-funcs>');
  process.exit(2);
}
const text = execFileSync('wasm-dis', [file], { encoding: 'utf8', maxBuffer: 1 << 30 });
const functions = text.split(/\n (?=\(func )/);
const HOT = [
  ['gemm (packed, exact)', /gemm<xsimd::sse4_1\\2c\\20false>/],
  ['micro_kernel 4x2 (small driver)', /micro_kernel<xsimd::sse4_1\\2c\\204\\2c\\202>/],
  ['attention_causal', /attention_causal<xsimd::sse4_1\\2c\\20false>/],
];
const OPS = ['i32.trunc_f32_s', 'i32.trunc_f32_u', 'i32.trunc_sat_f32_s', 'i32x4.trunc_sat_f32x4_s', 'f32x4.extract_lane',
  'i32x4.extract_lane', 'f32x4.replace_lane', 'i32x4.replace_lane', 'f32.nearest', 'f32x4.nearest', 'f32x4.mul', 'f32x4.add'];
const STRICT = ['i32.trunc_f32_s', 'i32.trunc_f32_u', 'i32.trunc_sat_f32_s', 'i32x4.trunc_sat_f32x4_s', 'f32x4.extract_lane',
  'i32x4.extract_lane', 'f32x4.replace_lane', 'i32x4.replace_lane', 'f32.nearest'];
let failed = false;
for (const [label, pattern] of HOT) {
  const body = functions.find((f) => pattern.test(f.split('\n', 1)[0]));
  if (!body) {
    console.log(`${label}: not found (built with --profiling-funcs?)`);
    failed = true;
    continue;
  }
  const counts = Object.fromEntries(OPS.map((op) => [op, body.split(`(${op}`).length - 1]).filter(([, n]) => n));
  console.log(`${label}: ${JSON.stringify(counts)}`);
  if (label.startsWith('gemm') || label.startsWith('micro')) {
    if (STRICT.some((op) => counts[op])) failed = true;
  } else if (STRICT.slice(0, 4).some((op) => counts[op])) {
    failed = true; // attention: no conversion at all
  }
}
process.exit(failed ? 1 : 0);
