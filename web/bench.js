// The bench page: MultiHeadAttention(768, 768, 1024, 0.0, 12) forward timed over T = 64 … 1024 and plotted
// (its projections' linear share and its attention's quadratic share, from the FLOP counts), timed at
// T = 1024 (the first call apart, then N warm runs), the chapter's bonus comparison of ways to compute the same
// attention replayed (web/bench/), and one head's 1024 × 1024 attention map drawn pixel by pixel. Everything runs on the
// main thread, so the page yields to the browser between forwards to show its progress.
//
// Nothing here needs freeing: tensors hold their values in JavaScript, and the module's C++ object is freed
// by the API once its wrapper is garbage-collected.
import { h, showStartFailure } from './render/dom.js';
import { afterPaint } from './render/after-paint.js';
import { wasmPeak } from './peak.js';
import { loadAttention } from '../wasm/index.js';
import { setUpReplay } from './bench/replay.js';
import { loadPageTorch, setUpThreads, threadsText } from './bench/threads.js';

const T = 1024;
const D = 768;
const HEADS = 12;
const HEAD_DIM = D / HEADS;
// A multiply-add counts as 2. The four projections, plus only the causal half of the scores and of the
// weighted sum: 6.44 GFLOP at B = 1, the count scripts/bench.mjs uses.
const B = 1;
const FLOP = 4 * 2 * B * T * D * D + 2 * 2 * B * HEADS * ((T * (T + 1)) / 2) * HEAD_DIM;
// The sweep over the number of tokens, with each length's arithmetic split as above: the projections grow
// like T, the attention (causal scores and weighted sum) like T².
const SWEEP = [64, 128, 256, 512, 1024];
const SWEEP_RUNS = 3; // ?sweep-runs=1 (1 to 3) times fewer: a short check
const linearFlop = (t) => 4 * 2 * B * t * D * D;
const quadraticFlop = (t) => 2 * 2 * B * HEADS * ((t * (t + 1)) / 2) * HEAD_DIM;
const RUNS_MIN = 1;
const RUNS_MAX = 20;

const $ = (id) => document.getElementById(id);
const els = {
  status: $('status'),
  backend: $('backend'),
  form: $('run-form'),
  runs: $('runs'),
  run: $('run'),
  progress: $('progress'),
  peak: $('peak'),
  results: $('results'),
  runsBody: $('runs-body'),
  head: $('head'),
  readout: $('readout'),
  canvas: $('map'),
  mark: $('map-mark'),
  scaleLow: $('scale-low'),
  scaleHigh: $('scale-high'),
  scaleHead: $('scale-head'),
  scaleBar: document.querySelector('.map-scale .scale-bar'),
  sweepRun: $('sweep-run'),
  sweepProgress: $('sweep-progress'),
  sweep: $('sweep'),
  sweepPlot: $('sweep-plot'),
  sweepBody: $('sweep-body'),
  replay: {
    quick: $('replay-quick'),
    notebook: $('replay-notebook'),
    stop: $('replay-stop'),
    quickSize: $('replay-quick-size'),
    notebookSize: $('replay-notebook-size'),
    progress: $('replay-progress'),
    results: $('replay-results'),
    cards: $('replay-cards'),
    tableBody: $('replay-body'),
    sizeLine: $('replay-size-line'),
  },
  threads: {
    select: $('threads'),
    run: $('threads-run'),
    enable: $('threads-enable'),
    availability: $('threads-availability'),
    progress: $('threads-progress'),
    table: $('threads-table'),
    caption: $('threads-caption'),
    body: $('threads-body'),
    summary: $('threads-summary'),
  },
};

const state = {
  torch: null,
  threadsControl: null, // web/bench/threads.js's controls
  mha: null,
  x: null,
  firstMs: null, // the first forward since the page loaded (code it first runs may be in V8's baseline tier)
  running: false,
  map: null, // { head, weights: Float32Array [T*T], ratio }
  pinned: null, // the cell a click or the keyboard chose: { row, col }
};

const params = new URLSearchParams(location.search);

boot();

async function boot() {
  let reason;
  try {
    ({ torch: state.torch, reason } = await loadPageTorch(loadAttention));
  } catch (error) {
    return fatal('The WebAssembly module could not be loaded, so nothing can be computed.', error);
  }
  const { torch } = state;
  els.backend.dataset.backend = torch.backend;
  els.backend.dataset.flavour = torch.flavour;

  // Let "Loading…" paint before the model's weights and x are drawn (a blocking fraction of a second).
  await nextFrame();
  try {
    torch.manualSeed(123);
    state.mha = new torch.MultiHeadAttention(D, D, T, 0.0, HEADS).eval();
    state.x = torch.rand(B, T, D);
    const head = Number(params.get('head'));
    const firstHead = Number.isInteger(head) && head >= 0 && head < HEADS ? head : 0;
    els.head.replaceChildren(...Array.from({ length: HEADS }, (_, i) => h('option', { value: i }, String(i))));
    els.head.value = String(firstHead);
    drawHead(firstHead);
  } catch (error) {
    return fatal('The model could not be built.', error);
  }

  const runs = Number(params.get('runs'));
  if (Number.isInteger(runs) && runs >= RUNS_MIN && runs <= RUNS_MAX) els.runs.value = String(runs);

  wireEvents();
  // ?threads-tokens=N (1 to 1024) times the threads on the first N tokens: a short check
  const asked = Number(params.get('threads-tokens'));
  const tokens = Number.isInteger(asked) && asked >= 1 && asked < T ? asked : T;
  const threadsX = tokens === T ? state.x : state.x.slice(1, 0, tokens).contiguous();
  state.threadsControl = setUpThreads(els.threads, {
    torch, reason, forward: () => state.mha.forward(threadsX), tokens, runs: readRuns, nextFrame, isBusy: () => state.running,
    setBusy, onThreads: showBackend,
  }, params);
  // the replay's instances: one thread, the page's kernels (SIMD or scalar)
  const newTorch = () => loadAttention({ flavour: torch.backend === 'wasm-scalar' ? 'scalar' : 'simd' });
  setUpReplay(els.replay, { newTorch, nextFrame, isBusy: () => state.running, setBusy, beforeFirstRun: takeFirstCall }, params);
  els.run.disabled = false;
  els.sweepRun.disabled = false;
  els.replay.quick.disabled = false;
  els.replay.notebook.disabled = false;
  els.head.disabled = false;
  state.threadsControl.setBusy(false);
  els.status.removeAttribute('aria-busy');
  els.status.replaceChildren();
  document.documentElement.dataset.ready = 'true';
}

/** The build and the threads the page's forwards run on, in the header. */
function showBackend(threads) {
  const { torch } = state;
  const kernels = torch.backend === 'wasm-simd128' ? 'SIMD' : 'scalar';
  els.backend.textContent = `WebAssembly · ${kernels} · ${threadsText(threads)}`;
  els.backend.title = `torch.backend: ${torch.backend}, torch.flavour: ${torch.flavour}, torch.threads: ${threads}`;
  els.backend.dataset.threads = String(threads);
}

function fatal(message, error) {
  showStartFailure(els.status, 'The benchmark could not start', message, error);
  els.run.disabled = true;
  els.sweepRun.disabled = true;
  els.replay.quick.disabled = true;
  els.replay.notebook.disabled = true;
  els.head.disabled = true;
  els.backend.textContent = 'not loaded';
}

// nextFrame: resolves after the browser has had the chance to paint (so progress shows before a blocking forward)
const nextFrame = afterPaint;

// ---------------------------------------------------------------- timing

function timeForward() {
  const start = performance.now();
  state.mha.forward(state.x);
  return performance.now() - start;
}

const gflops = (ms) => FLOP / ms / 1e6;
const formatMs = (ms) => `${ms.toFixed(1)} ms`;
const formatRate = (ms) => `${gflops(ms).toFixed(1)} GFLOP/s`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function readRuns() {
  const n = Math.round(Number(els.runs.value));
  return Number.isFinite(n) ? Math.min(RUNS_MAX, Math.max(RUNS_MIN, n)) : 5;
}

async function run() {
  if (state.running) return;
  const count = readRuns();
  els.runs.value = String(count);
  setRunning(true);
  els.results.hidden = false;
  els.runsBody.replaceChildren();
  els.peak.replaceChildren();
  for (const id of ['median', 'min', 'max']) showStat(id, null);
  const rows = [];
  const warm = [];
  try {
    if (state.firstMs === null) {
      progress('First call…');
      await nextFrame();
      state.firstMs = timeForward();
      rows.push({ label: 'first call', ms: state.firstMs, first: true });
    }
    showStat('first', state.firstMs);
    for (let i = 1; i <= count; i++) {
      progress(`Warm run ${i} of ${count}…`);
      renderRows(rows, count);
      await nextFrame();
      const ms = timeForward();
      warm.push(ms);
      rows.push({ label: `warm ${i}`, ms });
      showStat('median', median(warm));
      showStat('min', Math.min(...warm));
      showStat('max', Math.max(...warm));
    }
    renderRows(rows, count);
    const m = median(warm);
    progress('Measuring this browser’s SIMD peak…');
    await nextFrame();
    showPeak(await measurePeak(), m);
    progress(`Done: ${count} warm ${count === 1 ? 'run' : 'runs'}, median ${formatMs(m)} (${formatRate(m)}).`);
    els.results.dataset.state = 'done';
  } catch (error) {
    progress(`The forward failed: ${error?.message ?? error}`, true);
    els.results.dataset.state = 'error';
  } finally {
    setRunning(false);
  }
}

// The engine's f32x4 mul+add peak (web/peak.js), measured after the forwards so that both share the
// machine's state; the best of three, each a few tens of milliseconds.
let peakProbe = null;
async function measurePeak() {
  peakProbe ??= await wasmPeak();
  return Math.max(peakProbe(), peakProbe(), peakProbe());
}

/** The median's share of the peak: of one thread's peak times the threads the forwards ran on. */
function showPeak(peakGflops, medianMs) {
  const threads = state.torch.threads;
  const percent = (100 * gflops(medianMs)) / (peakGflops * threads);
  els.peak.dataset.gflops = String(peakGflops);
  els.peak.dataset.percent = String(percent);
  els.peak.dataset.threads = String(threads);
  els.peak.replaceChildren(
    'This browser’s WebAssembly SIMD peak on one thread, measured just now: ',
    h('strong', {}, `${peakGflops.toFixed(1)} GFLOP/s`),
    ' (a loop of nothing but 4-lane multiplies and adds, the arithmetic of every product here). The median ' +
      `forward${threads > 1 ? `, on ${threadsText(threads)}, ` : ' '}runs at `,
    h('strong', {}, `${percent.toFixed(0)}%`),
    threads > 1 ? ` of ${threads} times it,` : ' of it,',
    ' copying and the softmax’s exponentials included.',
  );
}

/** One timing at a time: the controls that would start another, or draw a map between forwards, wait. */
function setBusy(running) {
  state.running = running;
  els.run.disabled = running;
  els.sweepRun.disabled = running;
  els.replay.quick.disabled = running;
  els.replay.notebook.disabled = running;
  els.runs.disabled = running;
  els.head.disabled = running; // drawing a map between forwards would share their time
  state.threadsControl?.setBusy(running);
}

function setRunning(running) {
  setBusy(running);
  els.run.textContent = running ? 'Running…' : 'Run again';
  if (running) els.results.dataset.state = 'running';
  els.results.setAttribute('aria-busy', String(running));
}

function progress(text, isError = false) {
  els.progress.textContent = text;
  els.progress.classList.toggle('is-error', isError);
}

function showStat(id, ms) {
  const value = $(`${id}-ms`);
  value.textContent = ms === null ? '…' : formatMs(ms);
  value.dataset.ms = ms === null ? '' : String(ms);
  $(`${id}-gflops`).textContent = ms === null ? '' : formatRate(ms);
}

/** The table of forwards so far, with a bar for each time against the slowest; pending rows greyed. */
function renderRows(rows, count) {
  const slowest = Math.max(...rows.map((r) => r.ms), 1);
  const done = rows.filter((r) => !r.first).length;
  const pending = Array.from({ length: count - done }, (_, k) => ({ label: `warm ${done + k + 1}`, ms: null }));
  els.runsBody.replaceChildren(
    ...[...rows, ...pending].map((r) =>
      h(
        'tr',
        { class: r.ms === null ? 'is-pending' : r.first ? 'is-first' : null, 'data-ms': r.ms ?? '' },
        h('th', { scope: 'row' }, r.label),
        h('td', { class: 'num' }, r.ms === null ? '…' : formatMs(r.ms)),
        h('td', { class: 'num' }, r.ms === null ? '' : gflops(r.ms).toFixed(1)),
        h('td', { class: 'bar-cell' }, r.ms === null ? null : h('span', { class: 'run-bar', style: { '--share': (r.ms / slowest).toFixed(4) } })),
      ),
    ),
  );
}

// ---------------------------------------------------------------- the sweep over T

/**
 * The T = 1024 timing shows the first forward since the page loaded: the sweep and the replay take it before
 * they warm the same code up. `say` shows the progress where the caller shows its own.
 */
async function takeFirstCall(say) {
  if (state.firstMs !== null) return;
  say('First call…');
  await nextFrame();
  state.firstMs = timeForward();
}

const sweepRuns = () => {
  const asked = Number(params.get('sweep-runs'));
  return Number.isInteger(asked) && asked >= 1 && asked <= SWEEP_RUNS ? asked : SWEEP_RUNS;
};

/** Times the forward at each length of SWEEP (one untimed pass, then the median of SWEEP_RUNS) and plots it. */
async function sweep() {
  if (state.running) return;
  setBusy(true);
  const points = [];
  try {
    await takeFirstCall((text) => {
      els.sweepProgress.textContent = text;
    });
    for (const t of SWEEP) {
      els.sweepProgress.textContent = `Timing T = ${t}…`;
      await nextFrame();
      const x = state.torch.rand(B, t, D);
      state.mha.forward(x);
      const times = [];
      for (let i = 0, runs = sweepRuns(); i < runs; i++) {
        const start = performance.now();
        state.mha.forward(x);
        times.push(performance.now() - start);
        await nextFrame();
      }
      points.push(sweepPoint(t, median(times)));
      drawSweep(points);
    }
    els.sweepProgress.textContent = `Done: from T = 64 to 1024 the tokens grew 16 times and the time ${(points.at(-1).ms / points[0].ms).toFixed(0)} times.`;
    els.sweep.dataset.state = 'done';
  } catch (error) {
    els.sweepProgress.textContent = `The forward failed: ${error?.message ?? error}`;
    els.sweep.dataset.state = 'error';
  } finally {
    setBusy(false);
  }
}

/** A measured time split between the projections and the attention in proportion to their FLOP. */
function sweepPoint(t, ms) {
  const linear = linearFlop(t);
  const share = linear / (linear + quadraticFlop(t));
  return { t, ms, linearMs: ms * share, quadraticMs: ms * (1 - share) };
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** A round step for about five ticks up to top: 1, 2 or 5 times a power of ten. */
function tickStep(top) {
  const raw = top / 5;
  const ten = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * ten).find((v) => v >= raw);
}

/** Time against T: a stacked bar per length (projections below, attention above), on a linear T axis. */
function drawSweep(points) {
  // as wide as its box (at most 640), so that the labels keep their size on a phone
  const W = Math.round(Math.min(640, Math.max(300, els.sweepPlot.clientWidth || 640)));
  const H = 300;
  const pad = { left: 56, right: 16, top: 14, bottom: 44 };
  const step = tickStep(Math.max(...points.map((p) => p.ms)));
  const top = Math.ceil(Math.max(...points.map((p) => p.ms)) / step) * step;
  const x = (t) => pad.left + (t / SWEEP.at(-1)) * (W - pad.left - pad.right);
  const y = (ms) => H - pad.bottom - (ms / top) * (H - pad.top - pad.bottom);
  const bar = W < 500 ? 10 : 22;
  const plot = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'sweep-svg', role: 'img',
    'aria-label': `Time of one forward against the number of tokens T: ${points.map((p) => `T = ${p.t}: ${formatMs(p.ms)}`).join('; ')}` });
  for (let v = 0; v <= top + 1e-9; v += step) {
    plot.append(svg('line', { class: 'sweep-grid', x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v) }),
      svg('text', { class: 'sweep-tick', x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, `${+v.toFixed(3)}`));
  }
  // a length's label only where it has room beside the one before (64 and 128 crowd on a phone)
  SWEEP.filter((t, k) => k === 0 || x(t) - x(SWEEP[k - 1]) >= 30)
    .forEach((t) => plot.append(svg('text', { class: 'sweep-tick', x: x(t), y: H - pad.bottom + 16, 'text-anchor': 'middle' }, String(t))));
  plot.append(
    svg('text', { class: 'sweep-axis', x: (pad.left + W - pad.right) / 2, y: H - 6, 'text-anchor': 'middle' }, 'tokens T'),
    svg('text', { class: 'sweep-axis', x: 14, y: (pad.top + H - pad.bottom) / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${(pad.top + H - pad.bottom) / 2})` }, 'ms per forward'),
  );
  for (const p of points) {
    plot.append(
      svg('rect', { class: 'sweep-linear', x: x(p.t) - bar / 2, y: y(p.linearMs), width: bar, height: y(0) - y(p.linearMs) }),
      svg('rect', { class: 'sweep-quadratic', x: x(p.t) - bar / 2, y: y(p.ms), width: bar, height: y(p.linearMs) - y(p.ms) }),
      svg('circle', { class: 'sweep-point', cx: x(p.t), cy: y(p.ms), r: 4, 'data-t': p.t, 'data-ms': p.ms }),
    );
  }
  els.sweepPlot.replaceChildren(plot);
  els.sweepBody.replaceChildren(...points.map((p) =>
    h('tr', { 'data-t': p.t },
      h('th', { scope: 'row' }, String(p.t)),
      h('td', { class: 'num' }, formatMs(p.ms)),
      h('td', { class: 'num' }, `${p.linearMs.toFixed(1)} (${Math.round((100 * p.linearMs) / p.ms)} %)`),
      h('td', { class: 'num' }, `${p.quadraticMs.toFixed(1)} (${Math.round((100 * p.quadraticMs) / p.ms)} %)`))));
  els.sweep.hidden = false;
}

// ---------------------------------------------------------------- the attention map

// Weights are shown against an even share (1 / (i + 1) in row i): the ratio's log, clipped at ±log(ratio)
// where ratio is the smallest of these that holds at least 99 % of the head's visible weights.
const NICE_RATIOS = [1.02, 1.05, 1.1, 1.15, 1.2, 1.3, 1.5, 2, 3, 5, 10, 20, 50, 100, 1e3, 1e4, 1e6];
const HATCH_PERIOD = 16; // canvas pixels between the masked triangle's diagonal lines
const HATCH_WIDTH = 3;

function drawHead(head) {
  const weights = state.mha.attentionWeights(state.x, head, T).data; // [1, T, T], row-major
  state.map = { head, weights, ratio: clipRatio(weights) };
  paintMap();
  if (params.get('head') !== String(head) && (head !== 0 || params.has('head'))) {
    params.set('head', String(head));
    history.replaceState(null, '', `${location.pathname}?${params}`);
  }
  els.canvas.dataset.head = String(head);
  els.canvas.setAttribute('aria-label', `Attention map of head ${head}: 1024 queries by 1024 keys, the upper triangle masked`);
  showCell(state.pinned);
}

function clipRatio(weights) {
  const logs = new Float32Array((T * (T + 1)) / 2);
  let n = 0;
  for (let i = 0; i < T; i++) {
    for (let j = 0; j <= i; j++) logs[n++] = Math.abs(Math.log(weights[i * T + j] * (i + 1)));
  }
  logs.sort();
  const p99 = Math.exp(logs[Math.floor(0.99 * (logs.length - 1))]);
  return NICE_RATIOS.find((r) => r >= p99) ?? NICE_RATIOS.at(-1);
}

/** The page's colours as RGBA bytes (any CSS colour: the canvas converts it). */
function cssColours(names) {
  const style = getComputedStyle(document.body);
  const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  probe.canvas.width = names.length;
  probe.canvas.height = 1;
  names.forEach((name, i) => {
    probe.fillStyle = style.getPropertyValue(name).trim() || '#888';
    probe.fillRect(i, 0, 1, 1);
  });
  const bytes = probe.getImageData(0, 0, names.length, 1).data;
  return names.map((_, i) => bytes.slice(i * 4, i * 4 + 4));
}

/** 256 colours from less (orange) through an even share (the panel's colour) to more (blue). */
function colourRamp() {
  const [low, mid, high] = cssColours(['--map-low', '--map-mid', '--map-high']);
  const ramp = new Uint8ClampedArray(256 * 4);
  const toLinear = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toByte = (c) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  for (let k = 0; k < 256; k++) {
    const t = (k / 255) * 2 - 1;
    const [from, to, s] = t < 0 ? [mid, low, -t] : [mid, high, t];
    for (let c = 0; c < 3; c++) {
      // mixed in linear light, so the middle of each half does not look muddy
      ramp[k * 4 + c] = toByte(toLinear(from[c]) * (1 - s) + toLinear(to[c]) * s);
    }
    ramp[k * 4 + 3] = 255;
  }
  return ramp;
}

function paintMap() {
  const { weights, ratio } = state.map;
  const ramp = colourRamp();
  const [masked, hatch] = cssColours(['--map-masked', '--map-hatch']);
  const ctx = els.canvas.getContext('2d');
  const image = ctx.createImageData(T, T);
  const px = image.data;
  const scale = 255 / (2 * Math.log(ratio));
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      const at = (i * T + j) * 4;
      let from = ramp;
      let k = 0;
      if (j > i) {
        from = (i + j) % HATCH_PERIOD < HATCH_WIDTH ? hatch : masked;
      } else {
        const level = Math.log(weights[i * T + j] * (i + 1)) * scale + 127.5;
        k = (level <= 0 ? 0 : level >= 255 ? 255 : Math.round(level)) * 4; // NaN (a zero weight) ends at 0 too
      }
      px[at] = from[k];
      px[at + 1] = from[k + 1];
      px[at + 2] = from[k + 2];
      px[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  els.canvas.dataset.masked = `${masked[0]},${masked[1]},${masked[2]}`;
  els.canvas.dataset.hatch = `${hatch[0]},${hatch[1]},${hatch[2]}`;
  paintLegend(ramp, ratio);
}

function paintLegend(ramp, ratio) {
  const bar = els.scaleBar;
  const ctx = bar.getContext('2d');
  const image = ctx.createImageData(256, 1);
  image.data.set(ramp);
  ctx.putImageData(image, 0, 0);
  const r = formatRatio(ratio);
  els.scaleLow.textContent = `÷${r}`;
  els.scaleHigh.textContent = `×${r}`;
  for (const el of document.querySelectorAll('.map-caption .ratio')) el.textContent = r;
  els.scaleHead.textContent = String(state.map.head);
}

const formatRatio = (r) => (r >= 10 ? String(r) : r.toFixed(2).replace(/0$/, ''));

// ---------------------------------------------------------------- reading a weight

const HINT = 'Point at the map, or focus it and use the arrow keys (Shift: 64 at a time), to read a weight.';

function cellAt(event) {
  const rect = els.canvas.getBoundingClientRect();
  const clamp = (v) => Math.min(T - 1, Math.max(0, Math.floor(v * T)));
  return { row: clamp((event.clientY - rect.top) / rect.height), col: clamp((event.clientX - rect.left) / rect.width) };
}

/** Significant digits enough to tell neighbouring weights apart, without float32's noise. */
function formatWeight(v) {
  return v === 0 ? '0' : String(Number(v.toPrecision(4)));
}

function showCell(cell) {
  const { readout, mark } = els;
  if (!cell || !state.map) {
    mark.hidden = true;
    readout.textContent = HINT;
    delete readout.dataset.row;
    delete readout.dataset.col;
    delete readout.dataset.value;
    return;
  }
  const { row, col } = cell;
  const value = state.map.weights[row * T + col];
  readout.dataset.row = String(row);
  readout.dataset.col = String(col);
  readout.dataset.value = String(value);
  const where = [h('span', { class: 'ro-where' }, `query ${row}, key ${col}: `)];
  if (col > row) {
    readout.replaceChildren(...where, h('strong', { class: 'ro-value' }, formatWeight(value)), ' (masked: this key comes after the query)');
  } else {
    const share = value * (row + 1);
    readout.replaceChildren(
      ...where,
      'weight ',
      h('strong', { class: 'ro-value' }, formatWeight(value)),
      ` (${share.toFixed(3)} × an even share of 1/${row + 1})`,
    );
  }
  mark.hidden = false;
  mark.style.left = `${((col + 0.5) / T) * 100}%`;
  mark.style.top = `${((row + 0.5) / T) * 100}%`;
}

// ---------------------------------------------------------------- events

function wireEvents() {
  els.form.addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  els.sweepRun.addEventListener('click', sweep);

  els.head.addEventListener('change', async () => {
    els.head.disabled = true;
    els.readout.textContent = `Drawing head ${els.head.value}…`;
    await nextFrame();
    try {
      drawHead(Number(els.head.value));
    } catch (error) {
      els.readout.textContent = `This head could not be drawn: ${error?.message ?? error}`;
    }
    els.head.disabled = state.running;
  });

  const canvas = els.canvas;
  canvas.addEventListener('pointermove', (e) => showCell(cellAt(e)));
  canvas.addEventListener('pointerleave', () => showCell(state.pinned));
  canvas.addEventListener('click', (e) => {
    state.pinned = cellAt(e);
    showCell(state.pinned);
  });
  canvas.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 64 : 1;
    const moves = { ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step] };
    const move = moves[e.key];
    if (!move || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    const from = state.pinned ?? { row: T / 2, col: T / 4 };
    const clamp = (v) => Math.min(T - 1, Math.max(0, v));
    state.pinned = { row: clamp(from.row + move[0]), col: clamp(from.col + move[1]) };
    showCell(state.pinned);
  });
  canvas.addEventListener('focus', () => {
    if (!state.pinned) {
      state.pinned = { row: T / 2, col: T / 4 };
      showCell(state.pinned);
    }
  });

  // Light and dark have their own colours: redraw when the reader's preference changes.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => state.map && paintMap());
}
