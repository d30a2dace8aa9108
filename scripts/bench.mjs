#!/usr/bin/env node
// The fast path's benchmark (not a test): `npm run bench` (options after `--`).
//
// Cases: MultiHeadAttention(768, 768, 1024, 0.0, 12) forward on [B, 1024, 768] (GPT-2 size, causal, eval,
// dropout 0) for B = 1 and 2; GEMM 1024×768 @ 768×768; the whole chapter of the page recomputed after one
// edit (web/chapter/index.js computeChapter, toy sizes); and the cost of one small call through the JS API
// (scripts/bench/calls.mjs: add, matmul, softmax, at, view, SelfAttention_v2.forward on [6, 3]) for each wasm
// flavour, in a process of its own; and the Python notebook's timings (scripts/bench/notebook.mjs: time to
// the first cell's output, cold, in Node and in Chromium; the chapter's notebook once Python has loaded);
// and the built site's load on a classroom network (scripts/bench/site.mjs: 100 ms latency, 10 Mbit/s, cold).
// Implementations: this project's wasm SIMD and wasm scalar builds (through the JS API, so the times
// include copying tensors in and out), its threaded wasm build (simd-threads) at 1 and 2 threads, its native
// build (bench/attn_bench --serve) at 1 and 2 threads, TF.js with
// @tensorflow/tfjs-backend-wasm (one thread, SIMD), plain JavaScript loops, PyTorch (/usr/bin/python3,
// one thread) when it is installed, and onnxruntime-web (wasm execution provider, at 1 thread and at the
// machine's threads, each in a process of its own; the chapter's module exported by torch with the same
// weights, scripts/bench/ort.mjs) when python3's torch is there to export it. Each round runs every
// implementation once on every case, so they share
// the machine's conditions; the table gives the median (min, max) over rounds, and each implementation's
// first call apart (V8 runs it in its baseline tier).
// FLOP counts: a multiply-add is 2 FLOP; MHA counts the four projections (4·2·B·T·768²) and only the causal
// half of the scores and of the weighted sum (2·2·B·12·T(T+1)/2·64): 6.44 GFLOP at B = 1, whatever an
// implementation computes (TF.js and plain JS... compute the full scores: their GFLOP/s is the same count).
// Peaks, measured here in every round: wasm, f32x4 mul+add pairs per second in V8 (the best of a GEMM-like
// register block and 12 independent chains, scripts/bench/peak.wat); native, an FMA loop (attn_bench).
//
//   --rounds N     rounds (default 7; the site's loads 3 unless given); plain JS runs in at most 3 of them (~10 s a forward)
//   --only a,b     implementations: simd,scalar,threads1,threads2,native,native2,tfjs,plain,torch,ort,notebook,site,inputs
//                  (default all that are there)
//   --native PATH  the attn_bench binary (default build/native/bench/attn_bench, then build/*/bench/attn_bench)
//   --json FILE    also write the JSON there
//   --chapter      only the chapter's timing, as JSON (the main run starts itself so, in a fresh process)
//   --calls F      only the per-call times of flavour F, as JSON (likewise)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { loadAttention } from '../wasm/index.js';
import { CALL_CASES, callTimes } from './bench/calls.mjs';
import { notebookTimes } from './bench/notebook.mjs';
import { siteTimes } from './bench/site.mjs';
import { inputTimes } from './bench/inputs.mjs';
import { plainGemm, plainMha } from './bench/plain.mjs';
import { exportOrtModel, machineThreads, ortPeer } from './bench/ort.mjs';
import { wasmPeak } from '../web/peak.js';

const root = new URL('../', import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const ROUNDS = Math.max(1, Number(option('rounds', 7)));
const ONLY = option('only', 'simd,scalar,threads1,threads2,native,native2,tfjs,plain,torch,ort,notebook,site,inputs').split(',');
const T = 1024, D = 768, HEADS = 12;
const FLOP = {
  mha1: 4 * 2 * 1 * T * D * D + 2 * 2 * 1 * HEADS * ((T * (T + 1)) / 2) * (D / HEADS),
  mha2: 4 * 2 * 2 * T * D * D + 2 * 2 * 2 * HEADS * ((T * (T + 1)) / 2) * (D / HEADS),
  gemm: 2 * 1024 * 768 * 768,
};
const CASES = { mha1: 'MHA B=1', mha2: 'MHA B=2', gemm: 'GEMM 1024x768x768', chapter: 'chapter (toy sizes)' };
const log = (...a) => console.error(...a);

// ------------------------------------------------------------ the implementations

// This project through its JS API (one flavour; the threaded one on `threads` threads).
async function ours(flavour, threads) {
  const torch = await loadAttention({ flavour, ...(threads ? { threads } : {}) });
  torch.manualSeed(123);
  const mha = new torch.MultiHeadAttention(D, D, T, 0.0, HEADS).eval();
  const x1 = torch.rand(1, T, D), x2 = torch.rand(2, T, D);
  const a = torch.rand(1024, 768), b = torch.rand(768, 768);
  const timed = (f) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  const first = timed(() => mha.forward(x1));
  return {
    torch, mha, x1,
    info: `${torch.backend}, ${torch.flavour} flavour, ${torch.threads} thread${torch.threads > 1 ? 's' : ''}`,
    threads: torch.threads,
    // the wasm heap (the module's whole memory) once every case has run: what the page would hold
    heapBytes: () => torch.memoryUsage().heapBytes,
    first: { mha1: first },
    run: {
      mha1: () => timed(() => mha.forward(x1)),
      mha2: () => timed(() => mha.forward(x2)),
      gemm: () => timed(() => torch.matmul(a, b)),
    },
  };
}

// A persistent process that answers one JSON line per command (attn_bench --serve, torch_bench.py).
async function server(command, commandArgs) {
  const child = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (text) => {
    if (text) child.stdin.write(`${text}\n`);
    const { value, done } = await lines.next();
    if (done) throw new Error(`${command} ended`);
    return JSON.parse(value);
  };
  const ready = await ask(null);
  return { ready, ask, close: () => child.stdin.end('quit\n') };
}

function nativeBinary() {
  const given = option('native', null);
  if (given) return given;
  const candidates = [fileURLToPath(new URL('build/native/bench/attn_bench', root))];
  const build = fileURLToPath(new URL('build/', root));
  if (existsSync(build)) for (const d of readdirSync(build)) candidates.push(`${build}${d}/bench/attn_bench`);
  return candidates.find((p) => existsSync(p)) ?? null;
}

async function native(threads = 1) {
  const binary = nativeBinary();
  if (!binary) throw new Error('no bench/attn_bench: build it first (cmake --build --preset native)');
  const s = await server(binary, ['--threads', String(threads), '--serve']);
  if (s.ready.threads !== threads) throw new Error(`attn_bench runs ${s.ready.threads} thread(s), not ${threads}: rebuild it`);
  const first = (await s.ask('first 1')).ms;
  return {
    info: `${s.ready.kernels}, ${threads} thread${threads > 1 ? 's' : ''} (${binary.replace(fileURLToPath(root), '')})`,
    threads,
    first: { mha1: first },
    async: true,
    run: { mha1: async () => (await s.ask('mha 1')).ms, mha2: async () => (await s.ask('mha 2')).ms,
      gemm: async () => (await s.ask('gemm')).ms },
    peak: async () => (await s.ask('peak')).gflops,
    peakMulAdd: async () => (await s.ask('peak-muladd')).gflops,
    close: s.close,
  };
}

async function torchPy() {
  if (!existsSync('/usr/bin/python3')) throw new Error('no /usr/bin/python3');
  const s = await server('/usr/bin/python3', [fileURLToPath(new URL('scripts/bench/torch_bench.py', root))]);
  const first = (await s.ask('first 1')).ms;
  return {
    info: `torch ${s.ready.torch}, ${s.ready.threads} thread, ${s.ready.blas}`,
    first: { mha1: first },
    async: true,
    run: { mha1: async () => (await s.ask('mha 1')).ms, mha2: async () => (await s.ask('mha 2')).ms,
      gemm: async () => (await s.ask('gemm')).ms },
    close: s.close,
  };
}

// The module's weights as plain arrays, for the implementations that do not use the project.
function weightsOf(mha) {
  return {
    Wq: mha.W_query.weight.data, Wk: mha.W_key.weight.data, Wv: mha.W_value.weight.data,
    Wo: mha.out_proj.weight.data, bo: mha.out_proj.bias.data, dIn: D, dOut: D, heads: HEADS,
  };
}

async function tfjs(reference) {
  const { loadTfjs, tfjsMha } = await import('./bench/tfjs.mjs');
  const { tf, version, simd, threads } = await loadTfjs(new URL('package.json', root));
  const forward = tfjsMha(tf, weightsOf(reference.mha), T);
  const x = tf.tensor2d(reference.x1.data, [T, D]);
  const a = tf.randomUniform([1024, 768]), b = tf.randomUniform([768, 768]);
  const timed = (f) => {
    const t0 = performance.now();
    const y = f();
    y.dataSync();
    const ms = performance.now() - t0;
    y.dispose();
    return ms;
  };
  const first = timed(() => forward(x));
  // the same numbers as ours, to a float's precision
  const y = forward(x), got = y.dataSync(), want = reference.mha.forward(reference.x1).data;
  y.dispose();
  let err = 0;
  for (let i = 0; i < want.length; i++) err = Math.max(err, Math.abs(got[i] - want[i]));
  return {
    info: `tfjs-core ${version}, wasm backend, SIMD ${simd}, ${threads} thread; max |y - ours| = ${err.toExponential(1)}`,
    first: { mha1: first },
    run: { mha1: () => timed(() => forward(x)), gemm: () => timed(() => tf.matMul(a, b)) },
  };
}

// onnxruntime-web on the chapter's module exported once by torch 1.13 (same seed as ours(), so the same
// weights; run on ours' x and compared with ours' y), at `threads` threads.
let ortExport = null;
async function onnxruntime(reference, threads) {
  ortExport ??= exportOrtModel({ seed: 123, tokens: T, d: D, heads: HEADS, x: reference.x1.data,
    y: reference.mha.forward(reference.x1).data });
  return ortPeer(await ortExport, threads);
}

function plain(reference) {
  const w = weightsOf(reference.mha), x = reference.x1.data;
  const a = new Float32Array(1024 * 768).map(Math.random), b = new Float32Array(768 * 768).map(Math.random);
  const timed = (f) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  return {
    info: 'Float32Array loops, causal half only',
    maxRounds: 3,
    first: {},
    run: { mha1: () => timed(() => plainMha(w, x, 1, T)), gemm: () => timed(() => plainGemm(a, b, 1024, 768, 768)) },
  };
}

// ------------------------------------------------------------ the chapter

// In a process of its own (`bench.mjs --chapter`), as a page would run it: not in a heap that the GPT-2-size
// cases have filled with megabytes of garbage.
async function inChild(...flags) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  for await (const chunk of child.stdout) text += chunk;
  return JSON.parse(text);
}

async function chapter(torch) {
  const chapterJs = new URL('web/chapter/index.js', root), stateJs = new URL('web/state.js', root);
  if (!existsSync(chapterJs) || !existsSync(stateJs)) return null;
  const { computeChapter } = await import(chapterJs.href);
  const { bookSettings } = await import(stateJs.href);
  const settings = bookSettings();
  const edit = (i) => {  // one edit: a different third decimal in one embedding
    settings.embeddings[1][0] = 0.55 + (i % 7) * 0.001;
    return settings;
  };
  let t0 = performance.now();
  computeChapter(torch, edit(0));
  const first = performance.now() - t0;
  for (let i = 0; i < 300; i++) computeChapter(torch, edit(i));
  const times = [];
  for (let i = 0; i < 100; i++) {
    t0 = performance.now();
    computeChapter(torch, edit(i));
    times.push(performance.now() - t0);
  }
  return { first, times };
}

// ------------------------------------------------------------ against the peers

// This project's MHA B=1 implementation at n threads: the simd flavour at 1; at more, the simd-threads
// flavour's line of the GPT-2 section (threads1, threads2), when it has run.
const threadedImpl = (n) => `threads${n}`;

// Each peer's MHA B=1 median over ours at the same threads (above 1: ours is faster), and the targets for them.
function peerComparison(find, impls, notes) {
  const ms = (name) => find(name, 'mha1') ?? null;
  const fmtMs = (v) => (v === null ? '-' : `${v.toFixed(1)} ms`);
  const ours1 = ms('simd');
  const n = machineThreads();
  const oursN = n > 1 ? ms(threadedImpl(n)) : ours1;
  const peers1 = [['ort-t1', 'onnxruntime-web, 1 thread'], ['tfjs', 'TF.js wasm, 1 thread'],
    ['torch', 'PyTorch, 1 thread (native code)'], ['plain', 'plain JS']];
  const over = (name, ours) => (ms(name) !== null && ours !== null ? ms(name) / ours : null);
  const describe = (name, label, ours) => {
    if (ms(name) === null) return `${label}: ${notes[name] ?? 'not run'}`;
    const r = over(name, ours);
    return `${label} ${fmtMs(ms(name))}${r === null ? '' : ` = ${r.toFixed(2)}x ours`}`;
  };
  const lines = [];
  lines.push('MHA B=1 against this project on the same x (medians of the same rounds; ratio = their time / ours):');
  lines.push(`  1 thread, ours (wasm SIMD) ${fmtMs(ours1)}: ${peers1.map(([name, label]) => describe(name, label, ours1)).join('; ')}`);
  // CPU time, which other work on the machine inflates less than the wall time (the warm-up call left out)
  const cpuMedian = (name) => (impls[name]?.cpuTimes?.length > 1 ? median(impls[name].cpuTimes.slice(1)) : null);
  if (cpuMedian('simd') !== null && cpuMedian('ort-t1') !== null) {
    lines.push(`  1 thread, CPU time per forward: ours ${fmtMs(cpuMedian('simd'))}, onnxruntime-web ${fmtMs(cpuMedian('ort-t1'))} ` +
      `= ${(cpuMedian('ort-t1') / cpuMedian('simd')).toFixed(2)}x ours`);
  }
  if (n > 1) {
    const oursLabel = oursN === null
      ? `-- (no ${threadedImpl(n)} line: the simd-threads flavour has not run at ${n} threads)` : fmtMs(oursN);
    const ortN = impls[`ort-t${n}`];
    const ortLabel = `onnxruntime-web, ${ortN ? ortN.threads : n} thread${ortN && ortN.threads === 1 ? ' (could not start threads in Node)' : 's'}`;
    lines.push(`  ${n} threads, ours ${oursLabel}: ${describe(`ort-t${n}`, ortLabel, oursN)}` +
      `; onnxruntime-web's ${n} threads over its 1: ${ms('ort-t1') && ms(`ort-t${n}`) ? (ms('ort-t1') / ms(`ort-t${n}`)).toFixed(2) : '-'}x`);
  }
  const targets = [
    ['wasm SIMD MHA B=1 median <= 145 ms', ours1, (v) => v <= 145],
    ['wasm SIMD >= 2.2x faster than onnxruntime-web at 1 thread', over('ort-t1', ours1), (v) => v >= 2.2],
  ];
  const ratios = {};
  if (n > 1) {
    ratios[`ort_t${n}_over_ours_t${n}_mha1`] = over(`ort-t${n}`, oursN);
    targets.push([`ours at ${n} threads >= 2.2x faster than onnxruntime-web at ${n} threads`, over(`ort-t${n}`, oursN), (v) => v >= 2.2]);
  }
  if (cpuMedian('simd') !== null && cpuMedian('ort-t1') !== null) ratios.ort_t1_over_simd_mha1_cpu_time = cpuMedian('ort-t1') / cpuMedian('simd');
  return { ratios, lines, targets };
}

// ------------------------------------------------------------ running

const median = (v) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)];
const stats = (v) => ({ median: median(v), min: Math.min(...v), max: Math.max(...v), runs: v.length });

async function main() {
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown', cpus: os.cpus().length, node: process.version,
    platform: `${os.platform()} ${os.release()}`, loadavg: os.loadavg().map((l) => l.toFixed(2)), date: new Date().toISOString(),
  };
  log(`bench: ${machine.cpu}, ${machine.cpus} CPUs, Node ${machine.node}, load ${machine.loadavg.join(' ')}`);
  const chapterTimes = ONLY.includes('simd') ? await inChild('--chapter') : null;
  const calls = {};
  for (const flavour of ['simd', 'scalar']) if (ONLY.includes(flavour)) calls[flavour] = await inChild('--calls', flavour);
  const notebook = ONLY.includes('notebook') ? await notebookTimes(Math.min(ROUNDS, 5)) : null;
  const site = ONLY.includes('site') ? await siteTimes(option('rounds') ? ROUNDS : 3) : null;
  const inputs = ONLY.includes('inputs') ? await inputTimes(3) : null;
  const peakOfWasm = await wasmPeak();
  const impls = {};
  const notes = {};
  const setup = async (name, make, chosenBy = name) => {
    if (!ONLY.includes(chosenBy)) return;
    try {
      log(`setting up ${name}...`);
      impls[name] = await make();
    } catch (e) {
      notes[name] = `skipped: ${e.message}`;
      log(`${name}: ${notes[name]}`);
    }
  };
  await setup('simd', () => ours('simd'));
  await setup('scalar', () => ours('scalar'));
  await setup('threads1', () => ours('simd-threads', 1));
  await setup('threads2', () => ours('simd-threads', 2));
  const reference = impls.simd ?? impls.scalar ?? (await ours('simd'));
  await setup('native', () => native(1));
  await setup('native2', () => native(2));
  await setup('tfjs', () => tfjs(reference));
  await setup('plain', () => plain(reference));
  await setup('torch', torchPy);
  for (const threads of new Set([1, machineThreads()])) await setup(`ort-t${threads}`, () => onnxruntime(reference, threads), 'ort');
  if (impls.simd && impls['ort-t1']) {
    // this process's CPU time per forward of ours too, for the 1-thread comparison on a busy machine
    const wall = impls.simd.run.mha1;
    impls.simd.cpuTimes = [];
    impls.simd.run.mha1 = () => {
      const cpu0 = process.cpuUsage();
      const ms = wall();
      const cpu = process.cpuUsage(cpu0);
      impls.simd.cpuTimes.push((cpu.user + cpu.system) / 1e3);
      return ms;
    };
  }

  const times = {}, peaks = { wasm: [], native: [], nativeMulAdd: [] };
  for (const name of Object.keys(impls)) {
    times[name] = {};
    for (const c of Object.keys(impls[name].run)) times[name][c] = [];
  }
  // a warm-up call of every case (V8's optimising tier, caches), not counted
  for (const impl of Object.values(impls)) for (const run of Object.values(impl.run)) if (impl.maxRounds === undefined) await run();
  for (let r = 0; r < ROUNDS; r++) {
    log(`round ${r + 1}/${ROUNDS}`);
    peaks.wasm.push(peakOfWasm());
    if (impls.native) {
      peaks.native.push(await impls.native.peak());
      peaks.nativeMulAdd.push(await impls.native.peakMulAdd());
    }
    for (const [name, impl] of Object.entries(impls)) {
      if (impl.maxRounds !== undefined && r >= impl.maxRounds) continue;
      for (const [c, run] of Object.entries(impl.run)) times[name][c].push(await run());
    }
  }
  for (const impl of Object.values(impls)) impl.close?.();
  if (ortExport) (await ortExport.catch(() => null))?.remove();

  // ---- results
  const wasmPeakGflops = median(peaks.wasm);
  const nativePeakGflops = peaks.native.length ? median(peaks.native) : null;
  // one core's peak times the threads an implementation runs on
  const peakOf = (name) => (['native', 'native2', 'torch'].includes(name) ? nativePeakGflops : wasmPeakGflops) *
    (impls[name]?.threads ?? 1);
  const results = [];
  for (const [name, byCase] of Object.entries(times)) {
    for (const [c, v] of Object.entries(byCase)) {
      if (!v.length) continue;
      const s = stats(v);
      const gflops = FLOP[c] / s.median / 1e6;
      const peak = peakOf(name);
      results.push({ impl: name, case: c, ms: s, first_ms: impls[name].first[c] ?? null, gflops,
        pct_of_peak: peak ? (100 * gflops) / peak : null });
    }
  }
  if (chapterTimes) {
    results.push({ impl: 'simd', case: 'chapter', ms: stats(chapterTimes.times), first_ms: chapterTimes.first,
      gflops: null, pct_of_peak: null });
  }
  const find = (impl, c) => results.find((r) => r.impl === impl && r.case === c)?.ms.median;
  const ratio = (p, q) => (p && q ? p / q : null);
  const ratios = {
    tfjs_over_simd_mha1: ratio(find('tfjs', 'mha1'), find('simd', 'mha1')),
    ort_t1_over_simd_mha1: ratio(find('ort-t1', 'mha1'), find('simd', 'mha1')),
    torch_over_simd_mha1: ratio(find('torch', 'mha1'), find('simd', 'mha1')),
    plain_over_simd_mha1: ratio(find('plain', 'mha1'), find('simd', 'mha1')),
    torch_over_native_mha1: ratio(find('torch', 'mha1'), find('native', 'mha1')),
    simd_b2_over_b1: ratio(find('simd', 'mha2'), find('simd', 'mha1')),
    native_b2_over_b1: ratio(find('native', 'mha2'), find('native', 'mha1')),
    scalar_over_simd_mha1: ratio(find('scalar', 'mha1'), find('simd', 'mha1')),
    threads1_over_simd_mha1: ratio(find('threads1', 'mha1'), find('simd', 'mha1')),
    threads1_over_threads2_mha1: ratio(find('threads1', 'mha1'), find('threads2', 'mha1')),
    simd_over_threads2_mha1: ratio(find('simd', 'mha1'), find('threads2', 'mha1')),
    native_over_native2_mha1: ratio(find('native', 'mha1'), find('native2', 'mha1')),
  };
  // the wasm heap of each flavour after its runs (B = 2 included), and the threaded one's over the SIMD one's
  const heaps = Object.fromEntries(Object.entries(impls).filter(([, impl]) => impl.heapBytes).map(([n, impl]) => [n, impl.heapBytes()]));
  const heapRatio = ratio(heaps.threads2, heaps.simd);
  const againstPeers = peerComparison(find, impls, notes);
  Object.assign(ratios, againstPeers.ratios);  // at the machine's threads
  const gemmPct = results.find((r) => r.impl === 'simd' && r.case === 'gemm')?.pct_of_peak ?? null;
  const targets = [
    ['wasm SIMD MHA B=1 median <= 200 ms', find('simd', 'mha1'), (v) => v <= 200],
    ['wasm SIMD >= 2.2x faster than TF.js-wasm', ratios.tfjs_over_simd_mha1, (v) => v >= 2.2],
    ...againstPeers.targets,
    ['native MHA B=1 median <= 80 ms', find('native', 'mha1'), (v) => v <= 80],
    ['wasm SIMD B=2 <= 2.1x B=1', ratios.simd_b2_over_b1, (v) => v <= 2.1],
    ['native B=2 <= 2.1x B=1', ratios.native_b2_over_b1, (v) => v <= 2.1],
    ['wasm 2 threads >= 1.8x faster than 1 thread (simd-threads, MHA B=1)', ratios.threads1_over_threads2_mha1, (v) => v >= 1.8],
    ['native MHA B=1 at 2 threads <= 45 ms', find('native2', 'mha1'), (v) => v <= 45],
    ['wasm heap at 2 threads <= 1.5x the SIMD flavour\'s', heapRatio, (v) => v <= 1.5],
    ['wasm SIMD GEMM >= 70% of the wasm peak', gemmPct, (v) => v >= 70],
    ['chapter recomputed after one edit <= 2 ms (wasm SIMD)', find('simd', 'chapter'), (v) => v <= 2],
    ['notebook: first output <= 3 s (Chromium, cold, local)', notebook?.pageFirstOutputMs?.median, (v) => v <= 3000],
    ['notebook: first output on a return visit <= 1 s (Chromium, local)', notebook?.pageFirstOutputMs?.warm?.median, (v) => v <= 1000],
    ["notebook: the chapter's notebook <= 2 s once loaded", notebook?.chapterMs?.median, (v) => v <= 2000],
    ['site: first numbers <= 1.2 s (100 ms, 10 Mbit/s, cold; median of 3)', site?.firstNumbersMs?.median, (v) => v <= 1200],
    ['site: <= 12 requests before the first numbers', site?.requests, (v) => v <= 12],
    ["site: first numbers <= 1.5x the floor page's (same bytes in one HTML + one module, same network)", site?.overFloor, (v) => v <= 1.5],
    ["single file: first numbers <= 1.5x the floor file's (same size, decodes an inline base64 blob)", site?.singleOverFloor, (v) => v <= 1.5],
    ["single file: first numbers on screen (first contentful paint) <= 1.5x the floor file's", site?.singleShownMs?.overFloor, (v) => v <= 1.5],
    ['page at 16 x 16 x 16: a keystroke in a word <= 100 ms (Chromium, local)', inputs?.['16x16x16']?.keystrokeMs, (v) => v <= 100],
    ['page at 16 x 16 x 16: a seed edit <= 100 ms', inputs?.['16x16x16']?.seedMs, (v) => v <= 100],
    ['page at 16 x 16 x 16: a cold link paints the step <= 1.5 s', inputs?.['16x16x16']?.coldMs, (v) => v <= 1500],
  ].map(([name, value, ok]) => ({ target: name, value, met: value === null || value === undefined ? null : ok(value) }));

  // What each time target asks of this machine: the share of its measured peak that the target time means
  // (above 100%, the target cannot be met here whatever the code does).
  const pctOfPeakAt = (flop, ms, peak) => (ms && peak ? (100 * flop) / ms / 1e6 / peak : null);
  const tfjsMs = find('tfjs', 'mha1');
  const limits = {
    wasm_mha1_ms_at_peak: FLOP.mha1 / wasmPeakGflops / 1e6,
    native_mha1_ms_at_peak: nativePeakGflops ? FLOP.mha1 / nativePeakGflops / 1e6 : null,
    wasm_200ms_pct_of_peak: pctOfPeakAt(FLOP.mha1, 200, wasmPeakGflops),
    wasm_2_2x_tfjs_pct_of_peak: pctOfPeakAt(FLOP.mha1, tfjsMs && tfjsMs / 2.2, wasmPeakGflops),
    native_80ms_pct_of_peak: pctOfPeakAt(FLOP.mha1, 80, nativePeakGflops),
  };

  const fmt = (v, d = 1) => (v === null || v === undefined ? '-' : v.toFixed(d));
  const lines = [];
  lines.push(`machine: ${machine.cpu}, ${machine.cpus} CPUs, ${machine.platform}, Node ${machine.node}, load ${machine.loadavg.join(' ')} (at start)`);
  lines.push(`peaks (median over rounds): wasm f32x4 mul+add ${fmt(wasmPeakGflops)} GFLOP/s` +
    (nativePeakGflops ? `; native FMA ${fmt(nativePeakGflops)} GFLOP/s (separate mul+add ${fmt(median(peaks.nativeMulAdd))})` : ''));
  lines.push(`FLOP: MHA B=1 ${(FLOP.mha1 / 1e9).toFixed(2)} G (projections + causal half), B=2 ${(FLOP.mha2 / 1e9).toFixed(2)} G; GEMM ${(FLOP.gemm / 1e9).toFixed(2)} G`);
  lines.push('');
  lines.push(`${'implementation'.padEnd(14)} ${'case'.padEnd(20)} ${'median ms'.padStart(10)} ${'min'.padStart(8)} ${'max'.padStart(8)} ${'first'.padStart(8)} ${'GFLOP/s'.padStart(8)} ${'% peak'.padStart(7)} runs`);
  for (const r of results) {
    lines.push(`${r.impl.padEnd(14)} ${CASES[r.case].padEnd(20)} ${fmt(r.ms.median, 2).padStart(10)} ${fmt(r.ms.min, 2).padStart(8)} ${fmt(r.ms.max, 2).padStart(8)} ${fmt(r.first_ms, 1).padStart(8)} ${fmt(r.gflops).padStart(8)} ${fmt(r.pct_of_peak).padStart(7)} ${r.ms.runs}`);
  }
  lines.push('');
  for (const [name, impl] of Object.entries(impls)) lines.push(`${name}: ${impl.info}`);
  if (Object.keys(heaps).length) {
    lines.push(`wasm heap after the GPT-2-size runs: ${Object.entries(heaps).map(([n, b]) => `${n} ${fmt(b / 2 ** 20)} MB`).join(', ')}` +
      (heapRatio ? `; threads2 / simd ${fmt(heapRatio, 2)}` : ''));
  }
  for (const [name, note] of Object.entries(notes)) lines.push(`${name}: ${note}`);
  lines.push('');
  lines.push(`ratios: ${Object.entries(ratios).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
  lines.push(...againstPeers.lines, '');
  for (const t of targets) lines.push(`target ${t.met === null ? 'n/a ' : t.met ? 'MET ' : 'MISS'}  ${t.target}: ${fmt(t.value, 2)}`);
  lines.push('');
  if (Object.keys(calls).length) {
    lines.push('one call through the JS API on [6, 3] inputs, µs (median of batch means; min-max), Node:');
    for (const [c, label] of Object.entries(CALL_CASES)) {
      lines.push(`  ${label.padEnd(26)} ${Object.entries(calls).map(([f, t]) =>
        `${f} ${fmt(t[c].median, 2)} (${fmt(t[c].min, 2)}-${fmt(t[c].max, 2)})`).join('   ')}`);
    }
    lines.push('');
  }
  if (notebook) {
    const range = (t) => (t ? `${fmt(t.median, 0)} ms (${fmt(t.min, 0)}-${fmt(t.max, 0)})` : '-');
    lines.push(`notebook: first output, cold: Node ${range(notebook.firstOutputMs)}, Chromium ${range(notebook.pageFirstOutputMs)}; ` +
      `the chapter's notebook (${notebook.chapterMs?.cells ?? '-'} cells) once loaded: ${range(notebook.chapterMs)}`);
    const page = notebook.pageFirstOutputMs;
    if (page) {
      lines.push(`notebook in Chromium (dist/site on the local static host), first cell's output: cold ${range(page)}; ` +
        `return visit ${range(page.warm)}; the visit after ${range(page.again)}; opened from the walk-through after its warm-up ${range(page.afterWarmUp)}` +
        ` (painted, as the page notes it; as Playwright's polling saw it, medians: ${Object.entries(page.polledMedians ?? {}).map(([kind, ms]) => `${kind} ${ms} ms`).join(', ')})`);
      lines.push(`  phases, cold: ${page.coldPhases?.join(' · ') ?? '-'}`);
      lines.push(`  phases, the visit after the return: ${page.againPhases?.join(' · ') ?? '-'}`);
    }
    lines.push('');
  }
  if (site) {
    const range = (t) => (t ? `${fmt(t.median, 0)} ms (${fmt(t.min, 0)}-${fmt(t.max, 0)})` : '-');
    lines.push(`site (dist/site, ${site.network}): first numbers painted ${range(site.firstNumbersMs)}, ${site.requests} requests ` +
      `(the longest chain ${site.chain}), ${site.kilobytes} KB before them; localhost ${range(site.localFirstNumbersMs)}`);
    lines.push(`  floor page (${site.floor.requests} requests, ${site.floor.kilobytes} KB): ${range(site.floor.firstNumbersMs)}; ` +
      `the site takes ${fmt(site.overFloor, 2)}x the floor`);
    lines.push(`  waterfall (ms from navigation): ${site.waterfall.join(', ')}`);
    if (site.singleFileFirstNumbersMs) {
      lines.push(`single file (file://) ${range(site.singleFileFirstNumbersMs)}; floor file (${site.singleFloor.kilobytes} KB, ` +
        `decodes an inline blob) ${range(site.singleFloor.firstNumbersMs)}; the single file takes ${fmt(site.singleOverFloor, 2)}x the floor`);
      if (site.singleShownMs) {
        lines.push(`  on screen (Chromium's first contentful paint, for both their numbers): the single file ${range(site.singleShownMs.single)}, ` +
          `the floor file ${range(site.singleShownMs.floor)}, ${fmt(site.singleShownMs.overFloor, 2)}x`);
      }
      if (site.singleCpuMs) {
        lines.push(`  main thread's CPU time to that paint: the single file ${range(site.singleCpuMs.single)}, the floor file ` +
          `${range(site.singleCpuMs.floor)}, ${fmt(site.singleCpuMs.overFloor, 2)}x`);
      }
      const phases = site.singlePhasesMs?.single;
      if (phases) {
        lines.push(`  of it: the page's module compiled ${fmt(phases.compile, 1)} ms, the task that holds the first-numbers mark ` +
          `${fmt(phases.run, 1)}, the tasks after it to the paint ${fmt(phases.frame, 1)}; ${site.singleFontLookups.single} font requests (the floor ` +
          `${site.singleFontLookups.floor}) waited ${fmt(phases.fontWait, 1)} ms`);
      }
    }
    lines.push(`  at the first-numbers mark, before the paint: the site ${fmt(site.markedMs.overFloor, 2)}x its floor` +
      (site.markedMs.singleOverFloor ? `, the single file ${fmt(site.markedMs.singleOverFloor, 2)}x` : ''));
    lines.push('');
  }
  if (inputs) {
    lines.push(`page edits (${inputs.conditions}):`);
    for (const size of ['book', '16x16x16']) {
      const r = inputs[size];
      const parts = (o) => Object.entries(o ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
      lines.push(`  ${size.padEnd(9)} cold link ${r.coldMs} ms (${parts(r.partsMs.cold)}); keystroke ${r.keystrokeMs} ms (${parts(r.partsMs.keystroke)}); ` +
        `seed ${r.seedMs} ms (${parts(r.partsMs.seed)}); off-screen figures drawn too: keystroke ${r.keystrokeSettledMs} ms, seed ${r.seedSettledMs} ms; ` +
        `main-thread CPU: keystroke ${r.keystrokeCpuMs} ms, seed ${r.seedCpuMs} ms (until shown ${r.shownCpuMs.keystroke}, ${r.shownCpuMs.seed})`);
    }
    lines.push('');
  }
  lines.push(`limits: MHA B=1 at 100% of the measured peak takes ${fmt(limits.wasm_mha1_ms_at_peak)} ms in wasm` +
    (limits.native_mha1_ms_at_peak ? `, ${fmt(limits.native_mha1_ms_at_peak)} ms native` : '') + '; the time targets ask for ' +
    `${fmt(limits.wasm_200ms_pct_of_peak, 0)}% of the wasm peak (200 ms)` +
    (limits.wasm_2_2x_tfjs_pct_of_peak ? `, ${fmt(limits.wasm_2_2x_tfjs_pct_of_peak, 0)}% (2.2x TF.js)` : '') +
    (limits.native_80ms_pct_of_peak ? `, ${fmt(limits.native_80ms_pct_of_peak, 0)}% of the native FMA peak (80 ms)` : ''));
  console.log(lines.join('\n'));
  const json = { machine, flop: FLOP, peaks: { wasm_gflops: wasmPeakGflops, native_fma_gflops: nativePeakGflops,
    native_muladd_gflops: peaks.nativeMulAdd.length ? median(peaks.nativeMulAdd) : null }, rounds: ROUNDS, results,
  ratios, heap_bytes: heaps, targets, limits, calls_us: calls, notebook, site, inputs, notes };
  console.log(JSON.stringify(json));
  const out = option('json', null);
  if (out) writeFileSync(out, `${JSON.stringify(json, null, 1)}\n`);
}

if (args.includes('--chapter')) {
  console.log(JSON.stringify(await chapter(await loadAttention({ flavour: 'simd' }))));
} else if (args.includes('--calls')) {
  console.log(JSON.stringify(callTimes(await loadAttention({ flavour: option('calls', 'simd') }))));
} else {
  await main();
}
