// The range of seeds (0-10,000) for every result of the chapter, without running the chapter per seed: each
// result is modelled here in doubles from the draws that feed it (seed-stream.js), so a seed costs the few
// generator words and the arithmetic its first printed numbers need, and is dropped at the first number that
// cannot print as pasted. The few seeds left (the true one, and rarely a near miss) are then run in the core
// and compared exactly, as every other change is. The models follow web/chapter/ draw for draw;
// tests/node/diagnose-seed-scan.test.js holds them to the core's results for several seeds and sizes.
import { SeedStream, linearAt, randAt, randnAt, dropoutKeep } from './seed-stream.js';
import { partsOfShape } from './compare.js';
import { queryIndex } from '../web/state.js';

// ---- arithmetic on row-major Float64Arrays --------------------------------------------------------------------

// A (n x k) @ B (k x m)
function matmul(a, n, k, b, m) {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += a[i * k + t] * b[t * m + j];
      out[i * m + j] = s;
    }
  }
  return out;
}
// A (n x k) @ B.T, B (m x k)
function matmulT(a, n, k, b, m) {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += a[i * k + t] * b[j * k + t];
      out[i * m + j] = s;
    }
  }
  return out;
}
// nn.Linear on X (n x d_in): X @ weight.T + bias
function linear(x, n, layer, d_in, d_out) {
  const out = matmulT(x, n, d_in, layer.weight, d_out);
  if (layer.bias) for (let i = 0; i < n; i++) for (let j = 0; j < d_out; j++) out[i * d_out + j] += layer.bias[j];
  return out;
}
const scale = (a, by) => a.map((v) => v / by);
// softmax over each row of `cols` (-Infinity gives 0)
function softmaxRows(a, cols) {
  const out = new Float64Array(a.length);
  for (let r = 0; r < a.length; r += cols) {
    let max = -Infinity;
    for (let j = 0; j < cols; j++) max = Math.max(max, a[r + j]);
    let sum = 0;
    for (let j = 0; j < cols; j++) sum += out[r + j] = Math.exp(a[r + j] - max);
    for (let j = 0; j < cols; j++) out[r + j] /= sum;
  }
  return out;
}
// softmax over dim 0 of an n x n matrix
const softmaxCols = (a, n) => transpose(softmaxRows(transpose(a, n, n), n), n, n);
function transpose(a, n, m) {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) out[j * n + i] = a[i * m + j];
  return out;
}
// the future (above the diagonal) of an n x n matrix set to `fill`
const maskFuture = (a, n, fill) => a.map((v, idx) => (idx % n > Math.floor(idx / n) ? fill : v));
const copies = (a, count) => {
  const out = new Float64Array(a.length * count);
  for (let c = 0; c < count; c++) out.set(a, c * a.length);
  return out;
};
// columns [from, from + width) of an n x cols matrix
function columns(a, n, cols, from, width) {
  const out = new Float64Array(n * width);
  for (let i = 0; i < n; i++) for (let j = 0; j < width; j++) out[i * width + j] = a[i * cols + from + j];
  return out;
}
// matrices of n x width each, side by side
function sideBySide(parts, n, width) {
  const cols = parts.length * width;
  const out = new Float64Array(n * cols);
  parts.forEach((p, h) => {
    for (let i = 0; i < n; i++) for (let j = 0; j < width; j++) out[i * cols + h * width + j] = p[i * width + j];
  });
  return out;
}
const sum = (a) => a.reduce((s, v) => s + v, 0);

/** Attention as the chapter's classes compute it: softmax(q k.T / sqrt(d_k)) (masked where causal), and @ v. */
function attend(q, k, v, n, d_k, d_v, causal) {
  let scores = matmulT(q, n, d_k, k, n);
  if (causal) scores = maskFuture(scores, n, -Infinity);
  const weights = softmaxRows(scale(scores, Math.sqrt(d_k)), n);
  return { weights, out: matmul(weights, n, n, v, d_v) };
}

// ---- the chapter, result by result, as functions of its random streams ------------------------------------

/**
 * The chapter's random results for one choice of its seeds, each made when first asked for: env.result(name)
 * -> Float64Array (row-major) or undefined for a result not modelled. `streams.seed`, `streams.seedV2` and
 * `streams.inputSeed` are SeedStreams seeded as the chapter's manual_seeds; `used` records which were read.
 */
class ChapterModel {
  constructor(settings, typedInputs, streams) {
    this.s = settings;
    this.typedInputs = typedInputs;
    this.streams = streams;
    this.used = new Set();
    this.memo = new Map();
    this.n = settings.tokens.length;
    this.d_in = settings.embeddings[0].length;
    this.d_out = settings.d_out;
  }

  stream(key) {
    this.used.add(key);
    return this.streams[key];
  }

  get(name, make) {
    if (!this.memo.has(name)) this.memo.set(name, make());
    return this.memo.get(name);
  }

  result(name) {
    const make = RESULTS[name];
    return make ? this.get(name, () => make(this)) : undefined;
  }

  // 3.3.1: the inputs as typed, or torch.rand / torch.randn(n, d_in) after manual_seed(inputSeed)
  inputs() {
    return this.get('inputs', () => {
      if (this.s.inputs === 'typed') return this.typedInputs;
      const stream = this.stream('inputSeed');
      return this.s.inputs === 'randn' ? randnAt(stream, this.n * this.d_in) : randAt(stream, 0, this.n * this.d_in);
    });
  }

  // 3.3.2: attention with the inputs themselves as queries, keys and values
  plainScores() {
    return this.get('plainScores', () => matmulT(this.inputs(), this.n, this.d_in, this.inputs(), this.n));
  }

  // 3.4.1 and SelfAttention_v1: three torch.rand(d_in, d_out) right after manual_seed(seed)
  randWeights(start = 0) {
    return this.get(`rand${start}`, () => {
      const size = this.d_in * this.d_out;
      const stream = this.stream('seed');
      return [0, 1, 2].map((k) => randAt(stream, start + k * size, size));
    });
  }

  // three nn.Linear(d_in, width, qkv_bias) from `start` of a stream, one after the other
  linears(key, start, width = this.d_out, bias = this.s.qkv_bias, count = 3) {
    return this.get(`linears:${key}:${start}:${width}:${bias}:${count}`, () => {
      const stream = this.stream(key);
      const layers = [];
      for (let k = 0, at = start; k < count; k++) {
        layers.push(linearAt(stream, at, this.d_in, width, bias));
        at = layers[k].end;
      }
      return layers;
    });
  }

  // queries, keys, values of nn.Linear layers on the inputs
  projected(layers, width = this.d_out) {
    return layers.map((l) => linear(this.inputs(), this.n, l, this.d_in, width));
  }

  // 3.4.2: SelfAttention_v2 after manual_seed(seedV2)
  v2() {
    return this.get('v2', () => this.projected(this.linears('seedV2', 0)));
  }

  v2Scores() {
    return this.get('v2Scores', () => {
      const [q, k] = this.v2();
      return matmulT(q, this.n, this.d_out, k, this.n);
    });
  }

  causalWeights() {
    return this.get('causalWeights', () => softmaxRows(scale(maskFuture(this.v2Scores(), this.n, -Infinity), Math.sqrt(this.d_out)), this.n));
  }

  // 3.5.2: nn.Dropout(p) on n x n after manual_seed(seed), under a build's masks
  dropped(values, profile) {
    const { p } = this.s;
    if (!(p > 0 && p < 1)) return values;
    const keep = dropoutKeep(this.stream('seed'), 0, values.length, p, profile);
    const by = Math.fround(1 / Math.fround(1 - p));
    return values.map((v, i) => (keep[i] ? v * by : v * 0));
  }

  // 3.5.3: CausalAttention after manual_seed(seed), on the inputs (each copy of the batch is the same)
  ca() {
    return this.get('ca', () => this.projected(this.linears('seed', 0)));
  }

  // 3.6.1: the wrapper's heads, each a CausalAttention drawn after the one before
  wrapperHeads(width) {
    return this.get(`wrapper${width}`, () => {
      const layers = this.linears('seed', 0, width, this.s.qkv_bias, 3 * this.s.heads);
      return Array.from({ length: this.s.heads }, (_, h) => {
        const [q, k, v] = this.projected(layers.slice(3 * h, 3 * h + 3), width);
        return attend(q, k, v, this.n, width, width, true).out;
      });
    });
  }

  // 3.6.2: MultiHeadAttention after manual_seed(seed): W_query, W_key, W_value, then out_proj (with its bias)
  mha() {
    return this.get('mha', () => {
      const { n, d_out } = this;
      const heads = this.s.heads;
      const hd = d_out / heads;
      const layers = this.linears('seed', 0);
      const outProj = linearAt(this.stream('seed'), layers[2].end, d_out, d_out, true);
      const [q, k, v] = this.projected(layers);
      const perHead = (t) => Array.from({ length: heads }, (_, h) => columns(t, n, d_out, h * hd, hd));
      const [qs, ks, vs] = [q, k, v].map(perHead);
      const scores = qs.map((qh, h) => maskFuture(matmulT(qh, n, hd, ks[h], n), n, -Infinity));
      const weights = scores.map((sc) => softmaxRows(scale(sc, Math.sqrt(hd)), n));
      const context = weights.map((w, h) => matmul(w, n, n, vs[h], hd));
      const merged = sideBySide(context, n, hd);
      return { q, qs, scores, weights, vs, context, merged, outProj, end: outProj.end, hd };
    });
  }

  // MultiHeadAttention built with dropout p and run in training mode: its masks drawn in forward, after its layers
  mhaDropout() {
    return this.get('mhaDropout', () => {
      const { n, d_out } = this;
      const { p, heads, profile } = this.s;
      const m = this.mha();
      if (!(p > 0 && p < 1)) return linear(copies(m.merged, 2), 2 * n, m.outProj, d_out, d_out);
      // the weights of both copies of the batch, [2, heads, n, n], one mask over them all
      const weights = copies(Float64Array.from(m.weights.flatMap((w) => [...w])), 2);
      const keep = dropoutKeep(this.stream('seed'), m.end, weights.length, p, profile);
      const by = Math.fround(1 / Math.fround(1 - p));
      const dropped = weights.map((w, i) => (keep[i] ? w * by : w * 0));
      const size = n * n;
      const copiesOut = [0, 1].map((b) => sideBySide(Array.from({ length: heads }, (_, h) => matmul(dropped.subarray((b * heads + h) * size, (b * heads + h + 1) * size), n, n, m.vs[h], m.hd)), n, m.hd));
      const merged = new Float64Array(2 * n * d_out);
      merged.set(copiesOut[0]);
      merged.set(copiesOut[1], n * d_out);
      return linear(merged, 2 * n, m.outProj, d_out, d_out);
    });
  }

  // Exercise 3.1: after manual_seed(seed) v1, v2 with biases and v1 drew first; then v2 (biases) and v1
  ex31() {
    return this.get('ex31', () => {
      const { d_in, d_out } = this;
      const start = 3 * d_in * d_out + 3 * (d_out * d_in + d_out) + 3 * d_in * d_out;
      const layers = this.linears('seed', start, d_out, true);
      const v1Query = randAt(this.stream('seed'), layers[2].end, d_in * d_out);
      const [q, k, v] = this.projected(layers.map((l) => ({ weight: l.weight, bias: null })));
      return { layers, v1Query, out: attend(q, k, v, this.n, d_out, d_out, false).out };
    });
  }
}

// name -> (model) -> Float64Array: every result whose numbers a seed moves, as web/chapter/ makes it
const q2 = (m) => m.inputs().subarray(m.q * m.d_in, (m.q + 1) * m.d_in);
const RESULTS = {
  // 3.3
  inputs: (m) => m.inputs(),
  batch: (m) => copies(m.inputs(), 2),
  query: (m) => q2(m),
  x_2: (m) => q2(m),
  attn_scores_2: (m) => matmulT(q2(m), 1, m.d_in, m.inputs(), m.n),
  attn_weights_2_tmp: (m) => scale(m.result('attn_scores_2'), sum(m.result('attn_scores_2'))),
  attn_weights_2_tmp_sum: (m) => Float64Array.of(sum(m.result('attn_weights_2_tmp'))),
  attn_weights_2_naive: (m) => softmaxRows(m.result('attn_scores_2'), m.n),
  attn_weights_2_naive_sum: (m) => Float64Array.of(sum(m.result('attn_weights_2_naive'))),
  attn_weights_2: (m) => softmaxRows(m.result('attn_scores_2'), m.n),
  attn_weights_2_sum: (m) => Float64Array.of(sum(m.result('attn_weights_2'))),
  context_vec_2: (m) => matmul(m.result('attn_weights_2'), 1, m.n, m.inputs(), m.d_in),
  attn_scores_loop: (m) => m.plainScores(),
  attn_scores: (m) => m.plainScores(),
  attn_weights: (m) => softmaxRows(m.plainScores(), m.n),
  mistake_softmax_dim0: (m) => softmaxCols(m.plainScores(), m.n),
  attn_weights_row_sums: (m) => Float64Array.from({ length: m.n }, (_, i) => sum(m.result('attn_weights').subarray(i * m.n, (i + 1) * m.n))),
  all_context_vecs: (m) => matmul(m.result('attn_weights'), m.n, m.n, m.inputs(), m.d_in),
  // 3.4.1
  W_query: (m) => m.randWeights()[0],
  W_key: (m) => m.randWeights()[1],
  W_value: (m) => m.randWeights()[2],
  query_2: (m) => matmul(q2(m), 1, m.d_in, m.randWeights()[0], m.d_out),
  key_2: (m) => matmul(q2(m), 1, m.d_in, m.randWeights()[1], m.d_out),
  value_2: (m) => matmul(q2(m), 1, m.d_in, m.randWeights()[2], m.d_out),
  keys: (m) => matmul(m.inputs(), m.n, m.d_in, m.randWeights()[1], m.d_out),
  values: (m) => matmul(m.inputs(), m.n, m.d_in, m.randWeights()[2], m.d_out),
  attn_score_22: (m) => Float64Array.of(sum(m.result('query_2').map((v, j) => v * m.result('keys')[m.q * m.d_out + j]))),
  attn_scores_2_qk: (m) => matmulT(m.result('query_2'), 1, m.d_out, m.result('keys'), m.n),
  mistake_scores_from_values: (m) => matmulT(m.result('query_2'), 1, m.d_out, m.result('values'), m.n),
  attn_scores_2_scaled: (m) => scale(m.result('attn_scores_2_qk'), Math.sqrt(m.d_out)),
  attn_weights_2_qk: (m) => softmaxRows(m.result('attn_scores_2_scaled'), m.n),
  mistake_unscaled: (m) => softmaxRows(m.result('attn_scores_2_qk'), m.n),
  context_vec_2_qk: (m) => matmul(m.result('attn_weights_2_qk'), 1, m.n, m.result('values'), m.d_out),
  'mistake:divide-by-d_k-q2': (m) => softmaxRows(scale(m.result('attn_scores_2_qk'), m.d_out), m.n),
  // 3.4.2
  sa_v1_W_query: (m) => m.randWeights()[0],
  sa_v1_out: (m) => {
    const [q, k, v] = m.randWeights().map((w) => matmul(m.inputs(), m.n, m.d_in, w, m.d_out));
    return attend(q, k, v, m.n, m.d_out, m.d_out, false).out;
  },
  sa_v2_W_query: (m) => m.linears('seedV2', 0)[0].weight,
  sa_v2_out: (m) => {
    const [q, k, v] = m.v2();
    return attend(q, k, v, m.n, m.d_out, m.d_out, false).out;
  },
  ex31_v2_W_query: (m) => m.ex31().layers[0].weight,
  ex31_v2_bias: (m) => m.ex31().layers[0].bias,
  ex31_v1_W_query: (m) => m.ex31().v1Query,
  ex31_v1_after: (m) => transpose(m.ex31().layers[0].weight, m.d_out, m.d_in),
  ex31_out_v2: (m) => m.ex31().out,
  ex31_out_v1: (m) => m.ex31().out,
  // 3.5.1 (SelfAttention_v2's queries and keys)
  causal_scores: (m) => m.v2Scores(),
  causal_weights: (m) => softmaxRows(scale(m.v2Scores(), Math.sqrt(m.d_out)), m.n),
  masked_simple: (m) => maskFuture(m.result('causal_weights'), m.n, 0),
  masked_simple_norm: (m) => {
    const w = m.result('masked_simple');
    return w.map((v, idx) => v / sum(w.subarray(Math.floor(idx / m.n) * m.n, (Math.floor(idx / m.n) + 1) * m.n)));
  },
  masked_scores: (m) => maskFuture(m.v2Scores(), m.n, -Infinity),
  causal_attn_weights: (m) => m.causalWeights(),
  'mistake:fill-zero': (m) => softmaxRows(scale(maskFuture(m.v2Scores(), m.n, 0), Math.sqrt(m.d_out)), m.n),
  'mistake:divide-by-d_k': (m) => softmaxRows(scale(maskFuture(m.v2Scores(), m.n, -Infinity), m.d_out), m.n),
  // 3.5.2
  dropout_ones: (m) => m.dropped(new Float64Array(m.n * m.n).fill(1), m.s.profile),
  dropout_ones_default: (m) => m.dropped(new Float64Array(m.n * m.n).fill(1), 'default'),
  dropout_ones_mkl: (m) => m.dropped(new Float64Array(m.n * m.n).fill(1), 'mkl'),
  dropout_weights: (m) => m.dropped(m.causalWeights(), m.s.profile),
  // 3.5.3
  ca_context_vecs: (m) => {
    const [q, k, v] = m.ca();
    return copies(attend(q, k, v, m.n, m.d_out, m.d_out, true).out, 2);
  },
  mistake_mask_kept: (m) => attend(m.ca()[0], m.ca()[1], m.ca()[2], m.n, m.d_out, m.d_out, true).weights,
  mistake_mask_dropped: (m) => attend(m.ca()[0], m.ca()[1], m.ca()[2], m.n, m.d_out, m.d_out, false).weights,
  // 3.6.1
  wrapper_out: (m) => copies(sideBySide(m.wrapperHeads(m.d_out), m.n, m.d_out), 2),
  wrapper_out_d1: (m) => copies(sideBySide(m.wrapperHeads(1), m.n, 1), 2),
  // 3.6.2
  mha_queries: (m) => copies(m.mha().q, 2),
  mha_queries_split: (m) => copies(Float64Array.from(m.mha().qs.flatMap((t) => [...t])), 2),
  mha_scores: (m) => copies(Float64Array.from(m.mha().scores.flatMap((t) => [...t])), 2),
  mha_weights: (m) => copies(Float64Array.from(m.mha().weights.flatMap((t) => [...t])), 2),
  mha_context_heads: (m) => copies(Float64Array.from(m.mha().context.flatMap((t) => [...t])), 2),
  mha_context_merged: (m) => copies(m.mha().merged, 2),
  mha_out: (m) => copies(linear(m.mha().merged, m.n, m.mha().outProj, m.d_out, m.d_out), 2),
  mistake_dropout_off: (m) => m.result('mha_out'),
  mistake_dropout_on: (m) => m.mhaDropout(),
  mistake_out_proj: (m) => {
    const after = 3 * (m.d_out * m.d_in + (m.s.qkv_bias ? m.d_out : 0));
    const proj = linearAt(m.stream('seed'), after, m.d_out, m.d_in, true);
    return copies(linear(m.mha().merged, m.n, proj, m.d_out, m.d_in), 2);
  },
};
/** The chapter's results for `seeds` (the settings' seeds with any of them replaced), modelled in doubles: name -> Float64Array. */
export function modelResults(settings, typedInputs, seeds, names = Object.keys(RESULTS)) {
  const streams = Object.fromEntries(['seed', 'seedV2', 'inputSeed'].map((k) => [k, new SeedStream().seed(seeds[k] ?? settings[k])]));
  const model = withQuery(new ChapterModel(settings, Float64Array.from(typedInputs.flat()), streams), settings);
  return Object.fromEntries(names.filter((n) => RESULTS[n]).map((n) => [n, model.result(n)]));
}
const withQuery = (model, settings) => Object.assign(model, { q: queryIndex(settings) });

// ---- the scan --------------------------------------------------------------------------------------------------

// How far a modelled number may be from a printed one and still print as it: half the printed unit, plus what
// float32 arithmetic in the core can differ from the doubles here.
function bounds(paste) {
  return paste.numbers.map(({ value, decimals, scientific }) => {
    if (!Number.isFinite(value)) return { value, slack: 0 };
    const unit = scientific ? 10 ** ((value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)))) - decimals) : 10 ** -decimals;
    return { value, slack: unit * 0.51 + 1e-5 * Math.abs(value) + 1e-6 };
  });
}

/**
 * The cells of a result that each part of the paste's shape reads, as index maps (paste cell i -> the result's
 * flat index): the whole, one copy or row (compare.js's parts), and one head's columns where `headWidth` is given.
 */
function viewsOf(shape, pasteShape, headWidth) {
  const views = partsOfShape(shape, pasteShape).map((part) => Int32Array.from({ length: part.size }, (_, i) => part.start + i));
  const last = shape[shape.length - 1];
  if (headWidth && shape.length > 0 && last > headWidth && last % headWidth === 0) {
    const count = last / headWidth;
    const outer = shape.slice(0, -1);
    const rows = outer.reduce((a, b) => a * b, 1);
    const headFlat = new Int32Array(count * rows * headWidth);
    for (let h = 0; h < count; h++) for (let r = 0; r < rows; r++) for (let j = 0; j < headWidth; j++) headFlat[(h * rows + r) * headWidth + j] = r * last + h * headWidth + j;
    for (const part of partsOfShape([count, ...outer, headWidth], pasteShape).filter((p) => p.at.length >= 1)) {
      views.push(headFlat.subarray(part.start, part.start + part.size));
    }
  }
  return views;
}

/**
 * Seeds of `keys` (0..range, but `skip`) under which a modelled result can print as `paste`: for each key, the
 * targets ({ name, headWidth }) a seed of that key moves, and each seed's candidates as { key, value, name }, in
 * seed order. Targets that are not modelled are returned in `unmodelled`, to be scanned the slow way.
 */
export function scanSeeds({ settings, typedInputs, targets, paste, keys, range, skip }) {
  const marks = bounds(paste);
  const fits = (v, i) => {
    const { value, slack } = marks[i];
    return slack === 0 ? Object.is(v, value) || (Number.isNaN(v) && Number.isNaN(value)) : Math.abs(v - value) <= slack;
  };
  const inputs = Float64Array.from(typedInputs.flat());
  const fixed = Object.fromEntries(['seed', 'seedV2', 'inputSeed'].map((k) => [k, new SeedStream().seed(settings[k])]));
  const unmodelled = targets.filter((t) => !RESULTS[t.name]);
  const candidates = [];
  for (const key of keys) {
    // which targets this key's seed moves, found by what their models read, with the parts of each to compare
    const moved = [];
    for (const t of targets.filter((x) => RESULTS[x.name])) {
      const model = withQuery(new ChapterModel(settings, inputs, fixed), settings);
      const values = model.result(t.name);
      if (!model.used.has(key) || !t.shape) continue;
      const views = viewsOf(t.shape, paste.shape, t.headWidth).filter((v) => v.length === marks.length);
      if (views.length && values.length === t.shape.reduce((a, b) => a * b, 1)) moved.push({ ...t, views });
    }
    if (moved.length === 0) continue;
    const stream = new SeedStream();
    const streams = { ...fixed, [key]: stream };
    // the other keys' streams are the settings' seeds, their words kept from one seed to the next
    for (let value = 0; value <= range; value++) {
      if (skip(key, value)) continue;
      stream.seed(value);
      const model = withQuery(new ChapterModel(settings, inputs, streams), settings);
      for (const t of moved) {
        const values = model.result(t.name);
        if (t.views.some((view) => view.every((at, i) => fits(values[at], i)))) candidates.push({ key, value, name: t.name });
      }
    }
  }
  return { candidates, unmodelled };
}
