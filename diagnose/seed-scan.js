// The range of seeds (0-10,000) for every result of the chapter, without running the chapter per seed: each
// result is modelled here in doubles from the draws that feed it (seed-stream.js), so a seed costs the few
// generator words and the arithmetic its first printed numbers need, and is dropped at the first number that
// cannot print as pasted. The few seeds left (the true one, and rarely a near miss) are then run in the core
// and compared exactly, as every other change is. The models follow web/chapter/ draw for draw;
// tests/node/diagnose-seed-scan.test.js holds them to the core's results for several seeds and sizes.
import { SeedStream, linearAt, randAt, randnAt, dropoutKeep, dropoutDraws, keeper } from './seed-stream.js';
import { partsOfShape } from './compare.js';
import { queryIndex } from '../web/state.js';

// ---- results as rows, each made when first read ------------------------------------------------------------
// A result is `count` rows of `width` numbers (its last dim; the leading dims flattened). A row is computed when
// first read, from the rows it needs: the first printed number of a causal class's output needs only the first
// token's value, and a seed is usually dropped there.

class Rows {
  constructor(count, width, make) {
    this.count = count;
    this.width = width;
    this.make = make;
    this.memo = new Array(count);
  }

  row(r) {
    return this.memo[r] ?? (this.memo[r] = this.make(r));
  }

  at(flat) {
    return this.row(Math.floor(flat / this.width))[flat % this.width];
  }

  all() {
    const out = new Float64Array(this.count * this.width);
    for (let r = 0; r < this.count; r++) out.set(this.row(r), r * this.width);
    return out;
  }
}
// rows are plain arrays: V8 makes small ones far faster than typed arrays
const zeros = (n) => {
  // (a loop: Array(n).fill(0) was the scan's costliest line in Chromium)
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = 0;
  return out;
};
const fromFlat = (flat, count, width) => new Rows(count, width, (r) => flat.slice(r * width, (r + 1) * width));
const scalar = (make) => new Rows(1, 1, () => Array.of(make()));
const mapRows = (a, f, width = a.width) => new Rows(a.count, width, (r) => f(a.row(r), r));
const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const sum = (a) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
};
const scale = (by) => (row) => row.map((v) => v / by);
// f(0), ..., f(count - 1) (a loop: Array.from({ length }) is slow in V8, and the scan makes these per seed)
const times = (count, f) => {
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = f(i);
  return out;
};

// x @ W for W (d_in x d_out, row-major), a torch.rand weight
const project = (x, w, d_out) =>
  mapRows(x, (row) => {
    const out = zeros(d_out);
    for (let t = 0; t < row.length; t++) for (let j = 0; j < d_out; j++) out[j] += row[t] * w[t * d_out + j];
    return out;
  }, d_out);
// nn.Linear: x @ weight.T + bias
const linear = (x, layer, d_out) =>
  mapRows(x, (row) => {
    const out = zeros(d_out);
    const { weight, bias } = layer;
    const d_in = row.length;
    for (let j = 0; j < d_out; j++) {
      let s = bias ? bias[j] : 0;
      for (let t = 0; t < d_in; t++) s += row[t] * weight[j * d_in + t];
      out[j] = s;
    }
    return out;
  }, d_out);
// q @ k.T; with `fill`, the future (above the diagonal) is that number and its keys are never read
const scores = (q, k, fill = null) =>
  new Rows(q.count, k.count, (r) => {
    const out = zeros(k.count);
    const qr = q.row(r);
    for (let j = 0; j < k.count; j++) out[j] = fill !== null && j > r ? fill : dot(qr, k.row(j));
    return out;
  });
// softmax over each row of numbers each divided by `by` first (-Infinity gives 0)
function softmax(row, by = 1) {
  const out = new Array(row.length);
  let max = -Infinity;
  for (let j = 0; j < row.length; j++) {
    out[j] = by === 1 ? row[j] : row[j] / by;
    if (out[j] > max) max = out[j];
  }
  let s = 0;
  for (let j = 0; j < row.length; j++) s += out[j] = Math.exp(out[j] - max);
  for (let j = 0; j < row.length; j++) out[j] /= s;
  return out;
}
const softmaxRows = (a, by = 1) => mapRows(a, (row) => softmax(row, by));
// weights @ v, reading only the value rows a nonzero weight takes
const weighted = (w, v) =>
  mapRows(w, (row) => {
    const out = zeros(v.width);
    for (let j = 0; j < row.length; j++) {
      if (row[j] === 0) continue;
      const vj = v.row(j);
      for (let c = 0; c < out.length; c++) out[c] += row[j] * vj[c];
    }
    return out;
  }, v.width);
// the future (above the diagonal) of a square result set to `fill`
const maskFuture = (a, fill) => mapRows(a, (row, r) => row.map((v, j) => (j > r ? fill : v)));
const copies = (a, count) => new Rows(a.count * count, a.width, (r) => a.row(r % a.count));
const columns = (a, from, width) => new Rows(a.count, width, (r) => a.row(r).slice(from, from + width));
const sideBySide = (parts) =>
  new Rows(parts[0].count, parts.length * parts[0].width, (r) => {
    const out = [];
    for (const p of parts) out.push(...p.row(r));
    return out;
  });
// results of equal shape one after the other, as [k, ...] (heads)
const stacked = (list) => new Rows(list.length * list[0].count, list[0].width, (r) => list[Math.floor(r / list[0].count)].row(r % list[0].count));
function transposed(a) {
  const out = zeros(a.count * a.width);
  for (let i = 0; i < a.count; i++) for (let j = 0; j < a.width; j++) out[j * a.count + i] = a.row(i)[j];
  return fromFlat(out, a.width, a.count);
}

// softmax(masked q k.T / by): the first token sees only itself, so its row is 1 then 0s whatever its score (and
// neither its query nor its key is drawn for it: most seeds are dropped on that row's numbers)
const oneThenZeros = (n) => {
  const out = zeros(n);
  out[0] = 1;
  return out;
};
function causalSoftmax(q, k, by) {
  const masked = scores(q, k, -Infinity);
  return new Rows(q.count, k.count, (r) => (r === 0 ? oneThenZeros(k.count) : softmax(masked.row(r), by)));
}

/** Attention as the chapter's classes compute it: softmax(q k.T / sqrt(d_k)) (masked where causal), then @ v. */
function attend(q, k, v, causal) {
  const weights = causal ? causalSoftmax(q, k, Math.sqrt(k.width)) : softmaxRows(scores(q, k), Math.sqrt(k.width));
  return { weights, out: weighted(weights, v) };
}

// ---- the chapter, result by result, as functions of its random streams ------------------------------------

// An nn.Linear drawn when its weight or bias is first read (a class: getters in an object literal would give
// each layer a hidden class of its own, which V8 keeps until a full collection).
class LazyLinear {
  constructor(model, key, start, d_in, d_out, bias, withBias = bias) {
    this.model = model;
    this.key = key;
    this.start = start;
    this.d_in = d_in;
    this.d_out = d_out;
    this.bias_ = bias;
    this.withBias = withBias;
    this.drawn = null;
    this.end = start + d_in * d_out + (bias ? d_out : 0);
  }

  // the same draws are one layer: CausalAttention, the wrapper's first head and MultiHeadAttention share them
  draw() {
    return (this.drawn ??= this.model.layer(this.key, this.start, this.d_in, this.d_out, this.bias_));
  }

  get weight() {
    return this.draw().weight;
  }

  // withBias false: the bias drawn, then zeroed (Exercise 3.1's transfer)
  get bias() {
    return this.withBias ? this.draw().bias : null;
  }
}

// A seed's stream read from draw `by` on: what a seed point draws after the generator had moved on (a draws change).
class MovedStream {
  constructor(stream, by) {
    this.stream = stream;
    this.by = by;
  }

  word(k) {
    return this.stream.word(k + this.by);
  }

  uniform(k) {
    return this.stream.uniform(k + this.by);
  }

  uniform53(k) {
    return this.stream.uniform53(k + this.by);
  }
}

// The chapter's manual_seed calls (ChapterRun's seed points, named section/kept part/order) and the model's name
// for what each draws until the next one; a draws change at a point not listed here is not modelled. (3.5.2's
// first seed draws only the uniforms its explanation replays: no result reads them.)
const POINTS = new Map([
  ['simpleAttention//0', 'inputs'],
  ['trainableWeights//0', 'weights'],
  ['attentionClasses/sa_v1/0', 'sa_v1'],
  ['attentionClasses/sa_v2/0', 'sa_v2'],
  ['attentionClasses/ex31/0', 'ex31'],
  ['dropout//0', 'dropout_uniforms'],
  ['dropout//1', 'dropout_default'],
  ['dropout//2', 'dropout_mkl'],
  ['dropout//3', 'dropout_ones'],
  ['dropout//4', 'dropout_weights'],
  ['causalAttention/ca/0', 'ca'],
  ['stackingHeads/wrapper/0', 'wrapper'],
  ['stackingHeads/narrow/0', 'narrow'],
  ['weightSplits/mha/0', 'mha'],
  ['weightSplits/mistake_out_proj/0', 'mistake_out_proj'],
  ['weightSplits//0', 'mha_dropout'],
]);

/** Whether the models follow a draws change at this seed point (ChapterRun's point.name). */
export const modelsDrawsAt = (pointName) => POINTS.has(pointName);

/**
 * The chapter's random results for one choice of its seeds, each made when first asked for: model.result(name)
 * -> Rows, or undefined for a result not modelled. `streams.seed`, `streams.seedV2` and `streams.inputSeed` are
 * SeedStreams seeded as the chapter's manual_seeds; `used` records which were read. `shift` ({ point, by }: a
 * POINTS name) is a draws change: what that seed point draws is read `by` draws further on.
 */
class ChapterModel {
  // `fixed`: what the scan keeps from one seed to the next, { varying (the key scanned), layers, memo }: the
  // layers, inputs and torch.rand weights drawn from the other keys' streams, which no seed of this key moves
  constructor(settings, typedInputs, streams, fixed = null, shift = null) {
    this.s = settings;
    this.typedInputs = typedInputs;
    this.streams = streams;
    this.fixed = fixed;
    this.shift = shift;
    this.moved = shift ? new Map() : null; // `key@point` -> { key, stream } for the moved point
    this.used = new Set();
    this.results = new Map();
    this.layers = []; // the nn.Linear layers drawn so far
    this.memo = {}; // one slot per intermediate, named in the code below
    this.n = settings.tokens.length;
    this.d_in = settings.embeddings[0].length;
    this.d_out = settings.d_out;
    this.q = queryIndex(settings);
  }

  // a key's stream, or (`key@point`, from tag) the moved point's
  stream(key) {
    const moved = this.moved?.get(key);
    if (moved) {
      this.used.add(moved.key);
      return moved.stream;
    }
    this.used.add(key);
    return this.streams[key];
  }

  // what `key`'s stream is called at seed point `point`: the key, or where a draws change moved that point a name
  // of its own, so that its layers are drawn apart from the key's other points'
  tag(key, point) {
    if (this.shift?.point !== point) return key;
    const tag = `${key}@${point}`;
    if (!this.moved.has(tag)) this.moved.set(tag, { key, stream: new MovedStream(this.streams[key], this.shift.by) });
    return tag;
  }

  // a memo slot shared by several seed points' draws, kept apart for the moved point
  slot(name, point) {
    return this.shift?.point === point ? `${name}@${point}` : name;
  }

  layer(key, start, d_in, d_out, bias) {
    const layers = this.fixed && key !== this.fixed.varying ? this.fixed.layers : this.layers;
    for (const l of layers) if (l.key === key && l.start === start && l.d_in === d_in && l.d_out === d_out && l.bias_ === bias) return l.drawn;
    const drawn = linearAt(this.stream(key), start, d_in, d_out, bias);
    layers.push({ key, start, d_in, d_out, bias_: bias, drawn });
    return drawn;
  }

  get(slot, make) {
    return this.memo[slot] ?? (this.memo[slot] = make());
  }

  // a slot that only the streams `keys` move: kept across the scan's seeds where none of them is scanned
  getFixed(slot, keys, make) {
    if (!this.fixed || keys.includes(this.fixed.varying)) return this.get(slot, make);
    return this.fixed.memo[slot] ?? (this.fixed.memo[slot] = make());
  }

  result(name) {
    const make = makerOf(name);
    if (!make) return undefined;
    let v = this.results.get(name);
    if (v === undefined) this.results.set(name, (v = make(this)));
    return v;
  }

  // 3.3.1: the inputs as typed, or torch.rand / torch.randn(n, d_in) after manual_seed(inputSeed)
  inputs() {
    return this.getFixed('inputs', ['inputSeed'], () => {
      const { n, d_in } = this;
      if (this.s.inputs === 'typed') return fromFlat(this.typedInputs, n, d_in);
      const stream = this.stream(this.tag('inputSeed', 'inputs'));
      if (this.s.inputs === 'randn') return fromFlat(randnAt(stream, n * d_in), n, d_in);
      return new Rows(n, d_in, (r) => randAt(stream, r * d_in, d_in));
    });
  }

  queryRow() {
    return this.get('queryRow', () => new Rows(1, this.d_in, () => this.inputs().row(this.q)));
  }

  // 3.3.2: attention with the inputs themselves as queries, keys and values
  plainScores() {
    return this.get('plainScores', () => scores(this.inputs(), this.inputs()));
  }

  // 3.4.1 and SelfAttention_v1: three torch.rand(d_in, d_out) right after manual_seed(seed) (point: which of the two)
  randWeight(k, point = 'weights') {
    return this.getFixed(this.slot(RAND_SLOTS[k], point), ['seed'], () => {
      const size = this.d_in * this.d_out;
      return randAt(this.stream(this.tag('seed', point)), k * size, size);
    });
  }

  randProjected(k, point = 'weights') {
    return this.getFixed(this.slot(PROJECTED_SLOTS[k], point), ['seed', 'inputSeed'], () => project(this.inputs(), this.randWeight(k, point), this.d_out));
  }

  // `count` nn.Linear(d_in, width, bias) from draw `start` of a stream after seed point `point`, one after the
  // other, each drawn when first read
  linears(point, key, start, width = this.d_out, bias = this.s.qkv_bias, count = 3) {
    const per = this.d_in * width + (bias ? width : 0);
    const tag = this.tag(key, point);
    const layers = [];
    for (let k = 0; k < count; k++) layers.push(new LazyLinear(this, tag, start + k * per, this.d_in, width, bias));
    return layers;
  }

  // queries, keys and values of three nn.Linear layers on the inputs
  projected(layers, width = this.d_out) {
    return layers.map((l) => linear(this.inputs(), l, width));
  }

  // 3.4.2: SelfAttention_v2 after manual_seed(seedV2)
  v2() {
    return this.get('v2', () => this.projected(this.linears('sa_v2', 'seedV2', 0)));
  }

  v2Scores() {
    return this.get('v2Scores', () => scores(this.v2()[0], this.v2()[1]));
  }

  causalWeights() {
    return this.get('causalWeights', () => causalSoftmax(this.v2()[0], this.v2()[1], Math.sqrt(this.d_out)));
  }

  // 3.5.2: nn.Dropout(p) after manual_seed(seed) (seed point `point`) on an n x n result, under a build's masks
  dropped(values, profile, point) {
    const { p } = this.s;
    if (!(p > 0 && p < 1)) return values;
    const keep = dropoutKeep(this.stream(this.tag('seed', point)), 0, values.count * values.width, p, profile);
    const by = Math.fround(1 / Math.fround(1 - p));
    return mapRows(values, (row, r) => row.map((v, j) => (keep[r * values.width + j] ? v * by : v * 0)));
  }

  // 3.5.3: CausalAttention after manual_seed(seed), on the inputs (each copy of the batch is the same)
  ca() {
    return this.get('ca', () => this.projected(this.linears('ca', 'seed', 0)));
  }

  // 3.6.1: the wrapper's heads, each a CausalAttention drawn after the one before
  wrapperHeads(width) {
    return this.get(width === 1 ? 'wrapper1' : 'wrapper', () => {
      const layers = this.linears(width === 1 ? 'narrow' : 'wrapper', 'seed', 0, width, this.s.qkv_bias, 3 * this.s.heads);
      return times(this.s.heads, (h) => {
        const [q, k, v] = this.projected(layers.slice(3 * h, 3 * h + 3), width);
        return attend(q, k, v, true).out;
      });
    });
  }

  // 3.6.2: MultiHeadAttention after manual_seed(seed): W_query, W_key, W_value, then out_proj (with its bias);
  // `point` 'mha_dropout': the one built with dropout, after a manual_seed of its own
  mha(point = 'mha') {
    return this.get(this.slot('mha', point), () => {
      const { d_out } = this;
      const heads = this.s.heads;
      const hd = d_out / heads;
      const layers = this.linears(point, 'seed', 0);
      const outProj = new LazyLinear(this, this.tag('seed', point), layers[2].end, d_out, d_out, true);
      const [q, k, v] = this.projected(layers);
      const perHead = (t) => times(heads, (h) => columns(t, h * hd, hd));
      const [qs, ks, vs] = [q, k, v].map(perHead);
      const scoresPerHead = qs.map((qh, h) => scores(qh, ks[h], -Infinity));
      const weights = qs.map((qh, h) => causalSoftmax(qh, ks[h], Math.sqrt(hd)));
      const context = weights.map((w, h) => weighted(w, vs[h]));
      const merged = sideBySide(context);
      return { q, qs, scores: scoresPerHead, weights, vs, context, merged, outProj, end: layers[2].end + d_out * d_out + d_out, hd };
    });
  }

  // MultiHeadAttention built with dropout p and run in training mode: one mask over the weights of both copies of
  // the batch, [2, heads, n, n], drawn in forward after its layers
  mhaDropout() {
    return this.get('mhaDropout', () => {
      const { n, d_out } = this;
      const { p, heads, profile } = this.s;
      const m = this.mha('mha_dropout');
      if (!(p > 0 && p < 1)) return copies(linear(m.merged, m.outProj, d_out), 2);
      const by = Math.fround(1 / Math.fround(1 - p));
      const keepAt = keeper(this.stream(this.tag('seed', 'mha_dropout')), m.end, p, profile); // each element's draws read when needed
      const perCopy = [0, 1].map((b) => {
        // (a weight of 0, the future, stays 0 kept or not: its draws are not read)
        const context = m.weights.map((w, h) => weighted(mapRows(w, (row, r) => row.map((x, j) => (x !== 0 && keepAt(((b * heads + h) * n + r) * n + j) ? x * by : x * 0))), m.vs[h]));
        return linear(sideBySide(context), m.outProj, d_out);
      });
      return stacked(perCopy);
    });
  }

  // Exercise 3.1: after manual_seed(seed) v1, v2 with biases and v1 drew first; then v2 (with biases) and v1
  ex31() {
    return this.get('ex31', () => {
      const { d_in, d_out } = this;
      const start = 3 * d_in * d_out + 3 * (d_out * d_in + d_out) + 3 * d_in * d_out;
      const layers = this.linears('ex31', 'seed', start, d_out, true);
      const v1Start = layers[2].end;
      // the transfer zeroes v2's biases
      const [q, k, v] = this.projected(layers.map((l) => new LazyLinear(this, l.key, l.start, d_in, d_out, true, false)));
      return { layers, v1Start, out: attend(q, k, v, false).out };
    });
  }
}

const RAND_SLOTS = ['rand0', 'rand1', 'rand2'];
const PROJECTED_SLOTS = ['projected0', 'projected1', 'projected2'];

// name -> (model) -> Rows: every result whose numbers a seed moves, as web/chapter/ makes it
const RESULTS = {
  // 3.3
  inputs: (m) => m.inputs(),
  batch: (m) => copies(m.inputs(), 2),
  query: (m) => m.queryRow(),
  x_2: (m) => m.queryRow(),
  attn_scores_2: (m) => scores(m.queryRow(), m.inputs()),
  attn_weights_2_tmp: (m) => mapRows(m.result('attn_scores_2'), (row) => row.map((v) => v / sum(row))),
  attn_weights_2_tmp_sum: (m) => scalar(() => sum(m.result('attn_weights_2_tmp').row(0))),
  attn_weights_2_naive: (m) => softmaxRows(m.result('attn_scores_2')),
  attn_weights_2_naive_sum: (m) => scalar(() => sum(m.result('attn_weights_2_naive').row(0))),
  attn_weights_2: (m) => softmaxRows(m.result('attn_scores_2')),
  attn_weights_2_sum: (m) => scalar(() => sum(m.result('attn_weights_2').row(0))),
  context_vec_2: (m) => weighted(m.result('attn_weights_2'), m.inputs()),
  attn_scores_loop: (m) => m.plainScores(),
  attn_scores: (m) => m.plainScores(),
  attn_weights: (m) => softmaxRows(m.plainScores()),
  mistake_softmax_dim0: (m) => transposed(softmaxRows(transposed(m.plainScores()))),
  attn_weights_row_sums: (m) => new Rows(1, m.n, () => Array.from({ length: m.n }, (_, i) => sum(m.result('attn_weights').row(i)))),
  all_context_vecs: (m) => weighted(m.result('attn_weights'), m.inputs()),
  // 3.4.1
  W_query: (m) => fromFlat(m.randWeight(0), m.d_in, m.d_out),
  W_key: (m) => fromFlat(m.randWeight(1), m.d_in, m.d_out),
  W_value: (m) => fromFlat(m.randWeight(2), m.d_in, m.d_out),
  query_2: (m) => project(m.queryRow(), m.randWeight(0), m.d_out),
  key_2: (m) => project(m.queryRow(), m.randWeight(1), m.d_out),
  value_2: (m) => project(m.queryRow(), m.randWeight(2), m.d_out),
  keys: (m) => m.randProjected(1),
  values: (m) => m.randProjected(2),
  attn_score_22: (m) => scalar(() => dot(m.result('query_2').row(0), m.result('keys').row(m.q))),
  attn_scores_2_qk: (m) => scores(m.result('query_2'), m.result('keys')),
  mistake_scores_from_values: (m) => scores(m.result('query_2'), m.result('values')),
  attn_scores_2_scaled: (m) => mapRows(m.result('attn_scores_2_qk'), scale(Math.sqrt(m.d_out))),
  attn_weights_2_qk: (m) => softmaxRows(m.result('attn_scores_2_scaled')),
  mistake_unscaled: (m) => softmaxRows(m.result('attn_scores_2_qk')),
  context_vec_2_qk: (m) => weighted(m.result('attn_weights_2_qk'), m.result('values')),
  'mistake:divide-by-d_k-q2': (m) => softmaxRows(m.result('attn_scores_2_qk'), m.d_out),
  // 3.4.2
  sa_v1_W_query: (m) => fromFlat(m.randWeight(0, 'sa_v1'), m.d_in, m.d_out),
  sa_v1_out: (m) => attend(m.randProjected(0, 'sa_v1'), m.randProjected(1, 'sa_v1'), m.randProjected(2, 'sa_v1'), false).out,
  sa_v2_W_query: (m) => new Rows(m.d_out, m.d_in, (r) => m.linears('sa_v2', 'seedV2', 0)[0].weight.slice(r * m.d_in, (r + 1) * m.d_in)),
  sa_v2_out: (m) => attend(...m.v2(), false).out,
  ex31_v2_W_query: (m) => new Rows(m.d_out, m.d_in, (r) => m.ex31().layers[0].weight.slice(r * m.d_in, (r + 1) * m.d_in)),
  ex31_v2_bias: (m) => new Rows(1, m.d_out, () => m.ex31().layers[0].bias),
  ex31_v1_W_query: (m) => new Rows(m.d_in, m.d_out, (r) => randAt(m.stream(m.tag('seed', 'ex31')), m.ex31().v1Start + r * m.d_out, m.d_out)),
  ex31_v1_after: (m) => transposed(m.result('ex31_v2_W_query')),
  ex31_out_v2: (m) => m.ex31().out,
  ex31_out_v1: (m) => m.ex31().out,
  // 3.5.1 (SelfAttention_v2's queries and keys)
  causal_scores: (m) => m.v2Scores(),
  causal_weights: (m) => softmaxRows(m.v2Scores(), Math.sqrt(m.d_out)),
  masked_simple: (m) => maskFuture(m.result('causal_weights'), 0),
  masked_simple_norm: (m) => mapRows(m.result('masked_simple'), (row) => row.map((v) => v / sum(row))),
  masked_scores: (m) => scores(m.v2()[0], m.v2()[1], -Infinity),
  causal_attn_weights: (m) => m.causalWeights(),
  'mistake:fill-zero': (m) => softmaxRows(scores(m.v2()[0], m.v2()[1], 0), Math.sqrt(m.d_out)),
  'mistake:divide-by-d_k': (m) => softmaxRows(scores(m.v2()[0], m.v2()[1], -Infinity), m.d_out),
  // 3.5.2
  dropout_ones: (m) => m.dropped(fromFlat(zeros(m.n * m.n).fill(1), m.n, m.n), m.s.profile, 'dropout_ones'),
  dropout_ones_default: (m) => m.dropped(fromFlat(zeros(m.n * m.n).fill(1), m.n, m.n), 'default', 'dropout_default'),
  dropout_ones_mkl: (m) => m.dropped(fromFlat(zeros(m.n * m.n).fill(1), m.n, m.n), 'mkl', 'dropout_mkl'),
  dropout_weights: (m) => m.dropped(m.causalWeights(), m.s.profile, 'dropout_weights'),
  // 3.5.3
  ca_context_vecs: (m) => copies(attend(...m.ca(), true).out, 2),
  mistake_mask_kept: (m) => attend(...m.ca(), true).weights,
  mistake_mask_dropped: (m) => attend(...m.ca(), false).weights,
  // 3.6.1
  wrapper_out: (m) => copies(sideBySide(m.wrapperHeads(m.d_out)), 2),
  wrapper_out_d1: (m) => copies(sideBySide(m.wrapperHeads(1)), 2),
  // 3.6.2
  mha_queries: (m) => copies(m.mha().q, 2),
  mha_queries_split: (m) => copies(stacked(m.mha().qs), 2),
  mha_scores: (m) => copies(stacked(m.mha().scores), 2),
  mha_weights: (m) => copies(stacked(m.mha().weights), 2),
  mha_context_heads: (m) => copies(stacked(m.mha().context), 2),
  mha_context_merged: (m) => copies(m.mha().merged, 2),
  mha_out: (m) => copies(linear(m.mha().merged, m.mha().outProj, m.d_out), 2),
  mistake_dropout_off: (m) => copies(linear(m.mha('mha_dropout').merged, m.mha('mha_dropout').outProj, m.d_out), 2),
  mistake_dropout_on: (m) => m.mhaDropout(),
  mistake_out_proj: (m) => {
    // out_proj = nn.Linear(d_out, d_in), drawn after W_query, W_key and W_value
    const after = 3 * (m.d_out * m.d_in + (m.s.qkv_bias ? m.d_out : 0));
    const layer = new LazyLinear(m, m.tag('seed', 'mistake_out_proj'), after, m.d_out, m.d_in, true);
    return copies(linear(m.mha().merged, layer, m.d_in), 2);
  },
};

// ---- the classes' forwards with a learner's mistake, and in training mode ----------------------------------
// changes.js's CLASS_MISTAKES ('mistake:<mistake>-in-<part>') and trainingTargets ('training:training-<part>-<p>'),
// which the search compares in every run that has the class: modelled so that the seed model can bound them too.

// softmax(q k.T / √d_k) @ v as a class's forward computes it, with one of changes.js's IN_FORWARD mistakes (or
// none): `causal` masks the future; `batched`: the batch of two equal copies is dim 0, so a softmax over dim=0
// gives each weight 1/2, and NaN where both copies hold −∞
function attendAs(q, k, v, { causal, batched, mistake = null }) {
  const fill = !causal || mistake === 'masked-fill-copy' || mistake === 'mask-after-softmax' ? null : mistake === 'fill-zero' ? 0 : -Infinity;
  const raw = scores(q, mistake === 'scores-from-values' ? v : k, fill);
  const by = mistake === 'no-scaling' ? 1 : mistake === 'divide-by-d_k' ? k.width : Math.sqrt(k.width);
  let weights;
  if (mistake !== 'softmax-dim0') weights = softmaxRows(raw, by);
  else if (batched) weights = mapRows(raw, (row) => row.map((x) => (x === -Infinity ? NaN : 0.5)));
  else weights = transposed(softmaxRows(transposed(raw), by));
  if (mistake === 'mask-after-softmax') weights = maskFuture(weights, 0);
  return { weights, out: weighted(weights, v) };
}

// x @ layer.weight (+ bias) for a square weight: the projection without .T
const withoutT = (x, layer, d_out) =>
  mapRows(x, (row) => {
    const out = zeros(d_out);
    const { weight, bias } = layer;
    for (let j = 0; j < d_out; j++) {
      let s = bias ? bias[j] : 0;
      for (let t = 0; t < row.length; t++) s += row[t] * weight[t * d_out + j];
      out[j] = s;
    }
    return out;
  }, d_out);

// a class's queries, keys and values from its layers, projected as the mistake has it (null: it cannot run)
function projectedAs(m, layers, width, mistake) {
  if (mistake !== 'weight-without-T') return m.projected(layers, width);
  return width === m.d_in ? layers.map((l) => withoutT(m.inputs(), l, width)) : null;
}

// each class's forward on its input, with `mistake` (one copy of the batch where it has one; null: cannot run)
const CLASS_FORWARDS = {
  sa_v1: (m, mistake) => (mistake === 'weight-without-T' ? null : attendAs(m.randProjected(0, 'sa_v1'), m.randProjected(1, 'sa_v1'), m.randProjected(2, 'sa_v1'), { causal: false, batched: false, mistake }).out),
  sa_v2: (m, mistake) => {
    const qkv = projectedAs(m, m.linears('sa_v2', 'seedV2', 0), m.d_out, mistake);
    return qkv && attendAs(...qkv, { causal: false, batched: false, mistake }).out;
  },
  ca: (m, mistake) => {
    const qkv = projectedAs(m, m.linears('ca', 'seed', 0), m.d_out, mistake);
    return qkv && copies(attendAs(...qkv, { causal: true, batched: true, mistake }).out, 2);
  },
  wrapper: (m, mistake) => {
    const layers = m.linears('wrapper', 'seed', 0, m.d_out, m.s.qkv_bias, 3 * m.s.heads);
    const heads = [];
    for (let h = 0; h < m.s.heads; h++) {
      const qkv = projectedAs(m, layers.slice(3 * h, 3 * h + 3), m.d_out, mistake);
      if (!qkv) return null;
      heads.push(attendAs(...qkv, { causal: true, batched: true, mistake }).out);
    }
    return copies(sideBySide(heads), 2);
  },
  mha: (m, mistake) => {
    const { d_out } = m;
    const hd = d_out / m.s.heads;
    const layers = m.linears('mha', 'seed', 0);
    const qkv = projectedAs(m, layers, d_out, mistake);
    if (!qkv) return null;
    const outProj = new LazyLinear(m, m.tag('seed', 'mha'), layers[2].end, d_out, d_out, true);
    const [q, k, v] = qkv;
    const heads = times(m.s.heads, (h) => attendAs(columns(q, h * hd, hd), columns(k, h * hd, hd), columns(v, h * hd, hd), { causal: true, batched: true, mistake }).out);
    return copies(linear(sideBySide(heads), outProj, d_out), 2);
  },
};

// A class built with dropout p after manual_seed(seed) and run in training mode: its layers as the chapter's
// class draws them, then in forward a mask over the attention weights of both copies of the batch (each head's
// in turn in the wrapper; one over all heads in MultiHeadAttention), under the settings' build.
function trainingForward(m, part, p) {
  const { n, d_out } = m;
  const { heads, profile } = m.s;
  const by = Math.fround(1 / Math.fround(1 - p));
  const stream = m.stream(m.tag('seed', 'training'));
  // copy b of weights (n x n) dropped by the mask, its element (r, j) at at + (b * n + r) * n + j of it
  const dropIn = (w, keepAt, b, at = 0) => mapRows(w, (row, r) => row.map((x, j) => (x !== 0 && keepAt(at + (b * n + r) * n + j) ? x * by : x * 0)));
  if (part === 'ca' || part === 'wrapper') {
    const count = part === 'ca' ? 1 : heads;
    const layers = m.linears('training', 'seed', 0, d_out, m.s.qkv_bias, 3 * count);
    const maskDraws = dropoutDraws(2 * n * n, p, profile);
    const perHead = times(count, (h) => {
      const [q, k, v] = m.projected(layers.slice(3 * h, 3 * h + 3));
      const { weights } = attendAs(q, k, v, { causal: true, batched: true });
      const keepAt = keeper(stream, layers[3 * count - 1].end + h * maskDraws, p, profile);
      return [0, 1].map((b) => weighted(dropIn(weights, keepAt, b), v));
    });
    return stacked([0, 1].map((b) => sideBySide(perHead.map((copies) => copies[b]))));
  }
  const hd = d_out / heads;
  const layers = m.linears('training', 'seed', 0);
  const outProj = new LazyLinear(m, m.tag('seed', 'training'), layers[2].end, d_out, d_out, true);
  const [q, k, v] = m.projected(layers);
  const keepAt = keeper(stream, outProj.end, p, profile);
  const weights = times(heads, (h) => attendAs(columns(q, h * hd, hd), columns(k, h * hd, hd), columns(v, h * hd, hd), { causal: true, batched: true }).weights);
  return stacked([0, 1].map((b) => linear(sideBySide(weights.map((w, h) => weighted(dropIn(w, keepAt, 0, (b * heads + h) * n * n), columns(v, h * hd, hd)))), outProj, d_out)));
}

const CLASS_MISTAKE = /^mistake:(.+)-in-(sa_v1|sa_v2|ca|wrapper|mha)$/;
const TRAINING = /^training:training-(ca|wrapper|mha)-(.+)$/;

// name -> (model) -> Rows (or null where it cannot run with these sizes), for RESULTS and the classes' forwards
// (each name's found once: the scan asks for every result of every seed)
const makers = new Map();
function makerOf(name) {
  if (!makers.has(name)) makers.set(name, findMaker(name));
  return makers.get(name);
}

function findMaker(name) {
  if (RESULTS[name]) return RESULTS[name];
  const wrong = CLASS_MISTAKE.exec(name);
  if (wrong) return (m) => CLASS_FORWARDS[wrong[2]](m, wrong[1]);
  const training = TRAINING.exec(name);
  if (training) return (m) => trainingForward(m, training[1], Number(training[2]));
  return undefined;
}

/**
 * The chapter's results for `seeds` (the settings' seeds, any of them replaced) and `draws` (a draws change,
 * { point: ChapterRun's point.name, count }, or null), modelled in doubles: name -> Float64Array.
 */
export function modelResults(settings, typedInputs, seeds, names = Object.keys(RESULTS), draws = null) {
  const streams = Object.fromEntries(['seed', 'seedV2', 'inputSeed'].map((k) => [k, new SeedStream().seed(seeds[k] ?? settings[k])]));
  const model = new ChapterModel(settings, Array.from(typedInputs.flat()), streams, null, shiftOf(draws));
  return Object.fromEntries(names.filter((n) => makerOf(n)).map((n) => [n, model.result(n)?.all() ?? null]));
}

// ---- the scan --------------------------------------------------------------------------------------------------

// How far a modelled number may be from a printed one and still print as it: half the printed unit, plus what
// float32 arithmetic in the core can differ from the doubles here (the test holds the models within 1e-5 of a
// number plus 4e-6: a sum that cancels, in 16 dims, came 1.04e-6 past 1e-5 of it).
export const MODEL_SLACK = { relative: 1e-5, absolute: 4e-6 };
function bounds(paste) {
  return paste.numbers.map(({ value, decimals, scientific }) => {
    if (!Number.isFinite(value)) return { value, slack: 0 };
    const unit = scientific ? 10 ** ((value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)))) - decimals) : 10 ** -decimals;
    return { value, slack: unit * 0.51 + MODEL_SLACK.relative * Math.abs(value) + MODEL_SLACK.absolute };
  });
}

// Whether a modelled number can print as pasted number i.
const fitter = (marks) => (v, i) => {
  const { value, slack } = marks[i];
  return slack === 0 ? Object.is(v, value) || (Number.isNaN(v) && Number.isNaN(value)) : Math.abs(v - value) <= slack;
};

// whether every cell of `view` (paste cell i -> the result's flat index) may print as pasted (a loop that stops
// at the first that cannot: most seeds stop at the first)
function printsAs(values, view, fits) {
  for (let i = 0; i < view.length; i++) if (!fits(values.at(view[i]), i)) return false;
  return true;
}

// a draws change as the model's shift (a point it does not model: none)
const shiftOf = (draws) => (draws ? { point: POINTS.get(draws.point), by: draws.count } : null);

/**
 * Whether, under `settings`, `seeds` ({ key: value } replacing the settings' seeds) and `draws` (a draws change,
 * { point: ChapterRun's point.name, count }, or null; true at a point the models do not follow), one of `targets`
 * ({ name, shape, headWidth }) may have more than `above` cells that print as pasted, in any part of the paste's
 * shape: by the model, counting the cells that lie within the scan's slack (a bound: a cell outside it cannot
 * print as pasted). True where a target is not modelled or its shape is unknown.
 */
export function mayPrintMore({ settings, typedInputs, seeds, draws = null, targets, paste, above }) {
  if (draws && !modelsDrawsAt(draws.point)) return true;
  const marks = bounds(paste);
  const fits = fitter(marks);
  const streams = Object.fromEntries(['seed', 'seedV2', 'inputSeed'].map((k) => [k, new SeedStream().seed(seeds[k] ?? settings[k])]));
  const model = new ChapterModel(settings, typedInputs.flat(), streams, null, shiftOf(draws));
  for (const t of targets) {
    if (!makerOf(t.name) || !t.shape) return true;
    const values = model.result(t.name);
    if (values === null) continue; // (a mistake that cannot run with these sizes: nothing compared)
    if (values.count * values.width !== t.shape.reduce((a, b) => a * b, 1)) return true;
    for (const view of viewsOf(t.shape, paste.shape, t.headWidth)) {
      if (view.length !== marks.length) continue;
      let count = 0;
      for (let i = 0; i < view.length && count + view.length - i > above; i++) {
        if (fits(values.at(view[i]), i) && ++count > above) return true;
      }
    }
  }
  return false;
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
 * Seeds of `keys` (from..range, 0 unless given, or the list `values`; but `skip`) under which a modelled result can print as `paste`:
 * for each key, the targets ({ name, headWidth }) a seed of that key moves, and each seed's candidates as
 * { key, value, name }, in seed order. Targets that are not modelled are returned in `unmodelled`, to be scanned
 * the slow way.
 */
export function scanSeeds({ from = 0, range, values = null, ...job }) {
  const scanner = seedScanner(job);
  return { candidates: scanner.scan(from, range, values), unmodelled: scanner.unmodelled };
}

/**
 * scanSeeds prepared once for several parts of the range: scan(from, range, values) -> the candidates of those
 * seeds, in the order scanSeeds gives (by key, then by seed); what each key moves is found once.
 */
export function seedScanner({ settings, typedInputs, targets, paste, keys, skip }) {
  const marks = bounds(paste);
  const fits = fitter(marks);
  const inputs = typedInputs.flat();
  const fixed = Object.fromEntries(['seed', 'seedV2', 'inputSeed'].map((k) => [k, new SeedStream().seed(settings[k])]));
  const unmodelled = targets.filter((t) => !RESULTS[t.name]);
  const perKey = [];
  for (const key of keys) {
    // which targets this key's seed moves, found by what their models read, with the parts of each to compare
    const moved = [];
    for (const t of targets.filter((x) => RESULTS[x.name])) {
      const model = new ChapterModel(settings, inputs, fixed);
      const size = model.result(t.name).all().length; // every row, so that every stream it reads is seen
      if (!model.used.has(key) || !t.shape || size !== t.shape.reduce((a, b) => a * b, 1)) continue;
      const views = viewsOf(t.shape, paste.shape, t.headWidth).filter((v) => v.length === marks.length);
      if (views.length) moved.push({ ...t, views });
    }
    // the other keys' streams are the settings' seeds, their words and layers kept from one seed to the next
    if (moved.length) perKey.push({ key, moved, stream: new SeedStream(), kept: { varying: key, layers: [], memo: {} } });
  }
  const scan = (from, range, list = null) => {
    const candidates = [];
    for (const { key, moved, stream, kept } of perKey) {
      const streams = { ...fixed, [key]: stream };
      for (let i = list ? 0 : from; list ? i < list.length : i <= range; i++) {
        const value = list ? list[i] : i;
        if (skip(key, value)) continue;
        stream.seed(value);
        const model = new ChapterModel(settings, inputs, streams, kept);
        for (const t of moved) {
          const values = model.result(t.name);
          if (t.views.some((view) => printsAs(values, view, fits))) candidates.push({ key, value, name: t.name });
        }
      }
    }
    return candidates;
  };
  return { scan, unmodelled };
}
