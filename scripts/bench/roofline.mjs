#!/usr/bin/env node
// How close the one-thread wasm SIMD forward of MultiHeadAttention(768, 768, 1024, 0.0, 12) is to this
// machine's f32x4 limit: the peak of web/peak.js (nothing but f32x4 multiplies and adds, the GEMM's register
// block without its addressing), the forward, its four projections alone (nn.Linear 768 → 768 on 1024 tokens)
// and the rest (the heads' attention, copies), each as GFLOP/s and as a share of that peak. Timed in this
// process's CPU time, alternating in rounds, so that other work on a busy machine inflates it less than the
// wall time; medians.
//
//   node scripts/bench/roofline.mjs [rounds]      (default 7)
import { loadAttention } from '../../wasm/index.js';
import { wasmPeak } from '../../web/peak.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const T = 1024, D = 768, HEADS = 12;
const PROJECTIONS = 4 * 2 * T * D * D; // a multiply-add counts as 2
const ATTENTION = 2 * 2 * HEADS * ((T * (T + 1)) / 2) * (D / HEADS); // the causal half of scores and sum

const torch = await loadAttention({ flavour: 'simd' });
torch.manualSeed(123);
const mha = new torch.MultiHeadAttention(D, D, T, 0.0, HEADS).eval();
const x = torch.rand(1, T, D);
const linear = new torch.nn.Linear(D, D);
const peak = await wasmPeak();

/** CPU milliseconds (user + system) of this process while f runs. */
function cpuMs(f) {
  const start = process.cpuUsage();
  f();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

mha.forward(x);
linear.forward(x);
const times = { forward: [], projections: [], peak: [] };
for (let round = 0; round < ROUNDS; round++) {
  times.forward.push(cpuMs(() => mha.forward(x)));
  times.projections.push(cpuMs(() => { for (let p = 0; p < 4; p++) linear.forward(x); }));
  times.peak.push(cpuMs(() => peak()));
}
// One peak() runs both of web/peak.js's loops, 4e6 iterations each: 8 and 12 f32x4 mul+add pairs (8 FLOP each)
// per iteration, 640 MFLOP in all, here over its CPU time (peak() itself divides by the wall time).
const PEAK_FLOP = 4e6 * (8 + 12) * 8;
const peakGflops = PEAK_FLOP / median(times.peak) / 1e6;
const forwardMs = median(times.forward), projectionsMs = median(times.projections);
const rate = (flop, ms) => flop / ms / 1e6;
const line = (label, flop, ms) =>
  `${label.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms CPU  ${rate(flop, ms).toFixed(1).padStart(5)} GFLOP/s  ` +
  `${((100 * rate(flop, ms)) / peakGflops).toFixed(0).padStart(3)} % of peak`;
console.log(`wasm f32x4 mul+add peak (web/peak.js), median of ${ROUNDS}: ${peakGflops.toFixed(1)} GFLOP/s ` +
  `(${(peakGflops / 16).toFixed(2)} G cycles/s if 2 multiplies and 2 adds of 4 lanes issue per cycle)`);
console.log(line('forward (6.44 GFLOP)', PROJECTIONS + ATTENTION, forwardMs));
console.log(line('4 projections (4.83 GFLOP)', PROJECTIONS, projectionsMs));
console.log(line('the rest: attention (1.61 GFLOP)', ATTENTION, forwardMs - projectionsMs));
console.log(JSON.stringify({ rounds: ROUNDS, peakGflops, forwardMs, projectionsMs, peakMs: median(times.peak) }));
