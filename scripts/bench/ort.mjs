// onnxruntime-web (its wasm execution provider, from node_modules; no network) as a peer of scripts/bench.mjs.
//
// The model is the chapter's MultiHeadAttention exported by torch 1.13 (scripts/bench/ort_model.py) with the
// weights this project's module draws after the same seed, into a temporary folder; it runs on the
// project's own x, and its output is compared with the project's forward (largest absolute difference).
// onnxruntime-web initialises its WebAssembly once per process with a fixed thread count, so each thread
// count runs in a child process of its own (`node scripts/bench/ort.mjs --serve DIR THREADS`), which
// answers one JSON line per command, like the native and PyTorch peers. `--profile [THREADS]` prints where
// its time goes (below).
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';
const READY_TIMEOUT_MS = 180_000;

/** The machine's threads: what "at the machine's threads" runs on. */
export const machineThreads = () => (os.availableParallelism ? os.availableParallelism() : os.cpus().length);

/**
 * Exports the chapter's MultiHeadAttention(d, d, tokens, 0.0, heads) after torch.manual_seed(seed) into a new
 * temporary folder, with the project's x and y beside it (raw float32) for the comparison.
 * @returns {Promise<{ dir: string, model: object, modelBytes: () => Buffer, remove: () => void }>}
 */
export async function exportOrtModel({ seed, tokens, d, heads, x, y }) {
  for (const [name, v] of Object.entries({ seed, tokens, d, heads })) {
    const least = name === 'seed' ? 0 : 1;
    if (!Number.isInteger(v) || v < least) throw new Error(`exportOrtModel: ${name} must be a whole number >= ${least}, got ${v}`);
  }
  if (d % heads) throw new Error(`exportOrtModel: heads must divide d, got d ${d} and heads ${heads}`);
  const batch = x.length / (tokens * d);
  if (!Number.isInteger(batch) || batch < 1 || y.length !== x.length) {
    throw new Error(`exportOrtModel: x and y must both be [batch, ${tokens}, ${d}], got ${x.length} and ${y.length} values`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attention-lab-ort-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const out = path.join(dir, 'mha.onnx');
    const args = [path.join(here, 'ort_model.py'), out, '--seed', seed, '--tokens', tokens, '--d', d, '--heads', heads,
      '--batch', batch].map(String);
    const printed = await new Promise((resolve, reject) => {
      execFile(PYTHON, args, { encoding: 'utf8' }, (error, stdout, stderr) =>
        error ? reject(new Error(`ort_model.py failed: ${stderr.trim().split('\n').at(-1) || error.message}`)) : resolve(stdout));
    });
    const model = JSON.parse(printed);
    writeFileSync(path.join(dir, 'x.bin'), new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    writeFileSync(path.join(dir, 'y.bin'), new Uint8Array(y.buffer, y.byteOffset, y.byteLength));
    writeFileSync(path.join(dir, 'meta.json'), JSON.stringify({ dims: [batch, tokens, d], model }));
    return { dir, model, modelBytes: () => readFileSync(out), remove };
  } catch (e) {
    remove();
    throw e;
  }
}

/** Loads onnxruntime-web for `threads` threads (once per process); says whether the threads started. */
export async function loadOrt(threads) {
  const warnings = [];
  const warn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));  // its fallback to one thread is only a warning
  try {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.proxy = false;
    return { ort, warnings };
  } finally {
    console.warn = warn;
  }
}

/** A session on the model's bytes (wasm execution provider, every graph optimisation). */
export async function ortSession({ ort, warnings }, modelBytes, options = {}) {
  const warn = console.warn;
  console.warn = (...a) => warnings.push(a.join(' '));
  try {
    return await ort.InferenceSession.create(modelBytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all', ...options });
  } finally {
    console.warn = warn;
  }
}

/** One forward: x (Float32Array) with its dims in, y's values out. */
export async function ortForward(ort, session, x, dims) {
  const result = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', x, dims) });
  const y = result[session.outputNames[0]];
  const values = y.data;
  y.dispose?.();
  return values;
}

export function maxAbsDifference(a, b) {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} and ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

const floats = (file) => {
  const bytes = readFileSync(file);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

// ------------------------------------------------------------ the child process

async function serve(dir, threads) {
  const { dims } = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const x = floats(path.join(dir, 'x.bin')), want = floats(path.join(dir, 'y.bin'));
  const loaded = await loadOrt(threads);
  const { ort } = loaded;
  let t0 = performance.now();
  const session = await ortSession(loaded, readFileSync(path.join(dir, 'mha.onnx')));
  const createMs = performance.now() - t0;
  // Threads really running: the configured count after start-up (it falls back to 1 where it cannot start
  // workers) and the process's CPU time over wall time during each forward.
  const timed = async () => {
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const y = await ortForward(ort, session, x, dims);
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1e3, y };
  };
  const first = await timed();
  const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
  say({
    ready: true, version: ort.env.versions?.web ?? 'unknown', requestedThreads: threads,
    threads: ort.env.wasm.numThreads, warnings: loaded.warnings, createMs, firstMs: first.ms,
    maxAbsDiff: maxAbsDifference(first.y, want),
  });
  for await (const line of createInterface({ input: process.stdin })) {
    const [command] = line.trim().split(/\s+/);
    if (!command || command === 'quit') break;
    if (command === 'mha') {
      const { ms, cpuMs } = await timed();
      say({ ms, cpuMs });
    } else {
      say({ error: `unknown command ${JSON.stringify(command)}` });
    }
  }
  await session.release();
  process.exit(0);  // onnxruntime-web's worker threads would keep the process alive
}

// ------------------------------------------------------------ the parent's side

/**
 * A peer for scripts/bench.mjs: onnxruntime-web at `threads` threads in a child process, on the exported
 * model. `run.mha1` times one forward of B = 1.
 */
export async function ortPeer(exported, threads) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', exported.dir, String(threads)],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(`exited (${signal ?? code})`)));
  const died = exited.then((why) => { throw new Error(`onnxruntime-web's process ${why}`); });
  died.catch(() => {});  // awaited only while an answer is due
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (timeoutMs) => {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`onnxruntime-web gave no answer in ${timeoutMs / 1e3} s`)), timeoutMs);
    });
    try {
      const line = await Promise.race([lines.next(), timeout, died]);
      if (line.done) throw new Error(`onnxruntime-web's process ${await exited}`);
      const answer = JSON.parse(line.value);
      if (answer.error) throw new Error(answer.error);
      return answer;
    } finally {
      clearTimeout(timer);
    }
  };
  let ready;
  try {
    ready = await next(READY_TIMEOUT_MS);
  } catch (e) {
    child.kill();
    throw e;
  }
  const busy = [];  // CPU time over wall time per forward: ~1 on one thread, up to the thread count
  const cpuTimes = [];  // CPU ms per forward: on a busy machine, less inflated than the wall time at 1 thread
  const threadsNote = ready.threads === threads
    ? `${ready.threads} thread${ready.threads > 1 ? 's' : ''}`
    : `asked for ${threads} threads, runs on ${ready.threads}: onnxruntime-web could not start threads in Node (${ready.warnings.join('; ') || 'no reason given'})`;
  const weightsNote = ready.maxAbsDiff > 1e-3 ? ' (not the same weights?)' : '';
  return {
    ready,
    threads: ready.threads,
    get info() {
      const cores = busy.length ? [...busy].sort((p, q) => p - q)[Math.floor(busy.length / 2)] : null;
      // SIMD: its only wasm builds are ort-wasm-simd-threaded*
      return `onnxruntime-web ${ready.version}, wasm EP, SIMD, ${threadsNote}` +
        (cores === null ? '' : `, CPU/wall ${cores.toFixed(2)}`) +
        `; session ${ready.createMs.toFixed(0)} ms; model from torch ${exported.model.torch} (opset ${exported.model.opset}, ` +
        `${(exported.model.bytes / 1e6).toFixed(1)} MB); max |y - ours| = ${ready.maxAbsDiff.toExponential(1)}${weightsNote}`;
    },
    cpuTimes,
    first: { mha1: ready.firstMs },
    async: true,
    run: {
      mha1: async () => {
        child.stdin.write('mha\n');
        const { ms, cpuMs } = await next(READY_TIMEOUT_MS);
        busy.push(cpuMs / ms);
        cpuTimes.push(cpuMs);
        return ms;
      },
    },
    close: () => child.stdin.end('quit\n'),
  };
}

// ------------------------------------------------------------ where its time goes

// `node scripts/bench/ort.mjs --profile [THREADS]`: onnxruntime-web's own profiler (enableProfiling) on the
// GPT-2-size module, each node's mean time over 3 runs after a first one, and its share of the forward.
async function profile(threads) {
  const T = 1024, D = 768, HEADS = 12;
  const x = new Float32Array(T * D).map(Math.random);
  const exported = await exportOrtModel({ seed: 123, tokens: T, d: D, heads: HEADS, x, y: x });
  let printed = '';
  try {
    // its WebAssembly writes the profile straight to file descriptor 1: run it in a child and read that
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--profile-runs', exported.dir, String(threads)],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    for await (const chunk of child.stdout) printed += chunk;
    const code = await new Promise((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`the profiled process exited with ${code}`);
  } finally {
    exported.remove();
  }
  const events = printed.split('\n').map((l) => l.trim().replace(/,$/, '')).filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const runs = events.filter((e) => e.name === 'model_run').sort((p, q) => p.ts - q.ts).slice(1);  // the first apart
  const inRuns = (e) => runs.some((r) => e.ts >= r.ts && e.ts + e.dur <= r.ts + r.dur);
  const perNode = new Map();
  for (const e of events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && inRuns(e))) {
    const key = `${e.name.replace(/_kernel_time$/, '')} (${e.args.op_name})`;
    perNode.set(key, (perNode.get(key) ?? 0) + e.dur / 1e3 / runs.length);
  }
  const forwardMs = runs.reduce((sum, r) => sum + r.dur / 1e3, 0) / runs.length;
  console.log(`onnxruntime-web, ${threads} thread(s), MultiHeadAttention(768, 768, 1024, 0.0, 12) on [1, 1024, 768]: ` +
    `${forwardMs.toFixed(1)} ms a forward (mean of ${runs.length} after the first)`);
  for (const [node, ms] of [...perNode].sort((p, q) => q[1] - p[1])) {
    console.log(`  ${node.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / forwardMs).toFixed(1).padStart(5)} %`);
  }
}

async function profileRuns(dir, threads, runs = 4) {
  const { dims } = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const x = floats(path.join(dir, 'x.bin'));
  const loaded = await loadOrt(threads);
  const session = await ortSession(loaded, readFileSync(path.join(dir, 'mha.onnx')), { enableProfiling: true });
  for (let i = 0; i < runs; i++) await ortForward(loaded.ort, session, x, dims);
  session.endProfiling();
  await session.release();
  process.exit(0);
}

if (process.argv[2] === '--serve') await serve(process.argv[3], Number(process.argv[4]));
if (process.argv[2] === '--profile') await profile(Number(process.argv[3] ?? 1));
if (process.argv[2] === '--profile-runs') await profileRuns(process.argv[3], Number(process.argv[4]));
