// Every computation of chapter 3, in the chapter's order and with its seeds, from the page's settings.
// computeChapter() returns a map of named results; each step shows some of them. A result is
//   { name, label, tensor, shape, values, book, rows, cols, axes, explain, marks }
// where `book` is the chapter's printed text (used only with the book's settings), rows/cols label the
// last two axes with token words, `axes` (tensors of 3 or more dims) names every dim, e.g. ['batch',
// 'head', 'query', 'key'], explain(index) takes a cell apart, and marks(index) flags masked/dropped cells.
// A few results are facts rather than tensors, { name, value }: causal_equal, scores_loop_equal,
// ex31_equal, bmm_heads_equal, mha_steps_equal (booleans from torch.allclose) and dropout_draws
// ({ default, mkl }: words each path drew). mha_error ({ name, message }) replaces every mha_* result
// when d_out is not divisible by the number of heads.
import * as X from './explain.js';
import { BOOK_PRINTS } from './book.js';

const SCORES_NAME = 'ω';

// The book's variable names for results whose key here must differ (the chapter reuses names).
const LABELS = {
  dot_x1_x2: 'torch.dot(x1, x2)',
  attn_weights_2_tmp_sum: 'attn_weights_2_tmp.sum()',
  attn_weights_2_naive_sum: 'attn_weights_2_naive.sum()',
  attn_weights_2_sum: 'attn_weights_2.sum()',
  attn_scores_loop: 'attn_scores (loop)',
  attn_weights_row_sums: 'attn_weights.sum(dim=1)',
  key_2: 'key_2',
  value_2: 'value_2',
  attn_score_22: 'attn_scores_22',
  attn_scores_2_qk: 'attn_scores_2',
  attn_scores_2_scaled: 'attn_scores_2 / d_k**0.5',
  attn_weights_2_qk: 'attn_weights_2',
  context_vec_2_qk: 'context_vec_2',
  sa_v1_W_query: 'sa_v1.W_query',
  sa_v1_out: 'sa_v1(inputs)',
  sa_v2_W_query: 'sa_v2.W_query.weight',
  sa_v2_out: 'sa_v2(inputs)',
  ex31_v2_W_query: 'attention_v2.W_query.weight',
  ex31_v2_bias: 'attention_v2.W_query.bias',
  ex31_v1_W_query: 'attention_v1.W_query',
  ex31_v1_after: 'attention_v1.W_query (after the transfer)',
  ex31_out_v2: 'attention_v2(x)',
  ex31_out_v1: 'attention_v1(x)',
  causal_queries: 'queries',
  causal_keys: 'keys',
  causal_scores: 'attn_scores',
  causal_weights: 'attn_weights',
  causal_mask: 'mask',
  masked_scores: 'masked',
  causal_attn_weights: 'attn_weights (masked)',
  dropout_ones: 'dropout(example)',
  dropout_weights: 'dropout(attn_weights)',
  dropout_ones_default: 'dropout(example), default build',
  dropout_ones_mkl: 'dropout(example), MKL build on an Intel CPU',
  ca_context_vecs: 'ca(batch)',
  wrapper_out: 'mha(batch)',
  wrapper_out_d1: 'mha(batch), d_out = 1',
  bmm_a: 'a',
  bmm_out: 'a @ a.transpose(2, 3)',
  bmm_first_head: 'first_res',
  bmm_second_head: 'second_res',
  mha_queries: 'queries',
  mha_queries_split: 'queries.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)',
  mha_scores: 'attn_scores (masked, per head)',
  mha_weights: 'attn_weights',
  mha_context_heads: 'attn_weights @ values',
  mha_context_merged: 'context_vec',
  mha_out: 'mha(batch)',
};

// The chapter's modules, with what they drew, kept from one recompute to the next while the settings their
// weights depend on stay the same (an edit of an embedding or a word): the same seeds would draw the same
// weights again. Skipping those draws changes no other number: every later draw in the chapter follows a
// manual_seed of its own, and these modules draw nothing in forward (no dropout, or dropout 0).
const kept = new WeakMap(); // torch -> { key, parts }

function keeper(torch, settings) {
  const { seed, seedV2, d_out, heads, qkv_bias, embeddings } = settings;
  const key = JSON.stringify([seed, seedV2, d_out, heads, qkv_bias, embeddings.length, embeddings[0]?.length]);
  let entry = kept.get(torch);
  if (entry?.key !== key) kept.set(torch, (entry = { key, parts: new Map() }));
  // make() seeds and builds exactly as the chapter does at that point; it runs only when nothing is kept
  return (name, make) => entry.parts.get(name) ?? entry.parts.set(name, make()).get(name);
}

export function computeChapter(torch, settings) {
  const results = {};
  const keep = keeper(torch, settings);
  const words = settings.tokens;
  const show = (name, tensor, extra = {}) => {
    results[name] = {
      name,
      label: LABELS[name] ?? name,
      tensor,
      shape: tensor.shape,
      values: tensor.toArray(),
      book: BOOK_PRINTS[name] ?? null,
      ...extra,
    };
    return tensor;
  };
  // Axis labels, made once per recompute and shared by the results that use them (nothing changes them).
  const labels = new Map();
  const labelled = (key, make) => labels.get(key) ?? labels.set(key, make()).get(key);
  const dims = (n, prefix) => labelled(`${prefix}${n}`, () => Array.from({ length: n }, (_, i) => `${prefix}${i}`));
  const features = (n) => dims(n, 'd');
  // columns that hold several heads side by side: h0·o0, h0·o1, h1·o0, ...
  const headCols = (heads, width) =>
    labelled(`h${heads}·${width}`, () => Array.from({ length: heads * width }, (_, c) => `h${Math.floor(c / width)}·o${c % width}`));
  const n = settings.embeddings.length;
  // Made once: the masks and the dropout example all start from it (no op changes its input).
  const ones = torch.ones(n, n);
  let future = null; // the causal mask as booleans (true above the diagonal), set in 3.5.1
  // An explain() whose operands are built on the first hover, not on every recompute.
  const lazy = (make) => {
    let explain = null;
    return (index) => (explain ??= make())(index);
  };
  // The weights a module computes inside forward(), rebuilt with the same ops so its output can be taken apart.
  const attend = (q, k, causal = false) => {
    const scores = q.matmul(k.transpose(-2, -1));
    return torch.softmax((causal ? scores.maskedFill(future, -Infinity) : scores).div(k.shape[k.ndim - 1] ** 0.5), -1);
  };
  const projections = (m, x) => [m.W_query.forward(x), m.W_key.forward(x), m.W_value.forward(x)];
  // explain() for an nn.Linear's output.
  const linearOf = (layer, x, out, name, what) =>
    lazy(() => X.linear(x.toArray(), layer.weight.toArray(), layer.bias?.toArray() ?? null, out, { name, what }));
  // explain() for a module's output: each cell is a weighted sum of its value rows.
  const contextOf = (parts, out, causal = false) =>
    lazy(() => {
      const [q, k, v] = parts();
      return X.weightedSum(attend(q, k, causal).toArray(), v.toArray(), out);
    });
  // explain() for heads concatenated along the last dim: find the head, then take its cell apart.
  const concatOf = (parts, width) => (index) => {
    const c = index[index.length - 1];
    const h = Math.floor(c / width);
    return [`column ${c} is column ${c % width} of head ${h}`, ...parts[h]([...index.slice(0, -1), c % width])];
  };

  // ------------------------------------------------------------ 3.3.1 a simple self-attention
  const x1 = show('x1', torch.tensor([0.4, 0.1, 0.8]), { cols: features(3) });
  const x2 = show('x2', torch.tensor([0.5, 0.8, 0.6]), { cols: features(3) });
  show('dot_x1_x2', torch.dot(x1, x2), { explain: () => [X.dotLine('x1 · x2', results.x1.values, results.x2.values, results.dot_x1_x2.values)] });

  const inputs = show('inputs', torch.tensor(settings.embeddings), { rows: words, cols: features(3) });
  // The rows of inputs, taken once: every loop over the tokens below walks these views.
  const tokens = [...inputs];
  const query = show('query', tokens[1], { cols: features(3), explain: (i) => [`row 1 (“${words[1]}”) of inputs: ${X.fmt(results.inputs.values[1][i[0]])}`] });

  // one dot product per token, written into an empty tensor like the book's loop
  const scores2 = torch.empty(inputs.shape[0]);
  tokens.forEach((x_i, i) => scores2.set(i, x_i.dot(query)));
  show('attn_scores_2', scores2, { cols: words });
  results.attn_scores_2.explain = X.rowDots(results.inputs.values, results.query.values, results.attn_scores_2.values, { name: 'ω2' });

  const tmp = show('attn_weights_2_tmp', scores2.div(scores2.sum()), { cols: words });
  results.attn_weights_2_tmp.explain = X.divideBySum(results.attn_scores_2.values, results.attn_weights_2_tmp.values);
  show('attn_weights_2_tmp_sum', tmp.sum());
  results.attn_weights_2_tmp_sum.explain = X.sumOf(results.attn_weights_2_tmp.values, results.attn_weights_2_tmp_sum.values);

  const exps = scores2.exp(); // exp(x) once, for both sides of exp(x) / exp(x).sum(0)
  const naive = show('attn_weights_2_naive', exps.div(exps.sum(0)), { cols: words });
  results.attn_weights_2_naive.explain = X.naiveSoftmax(results.attn_scores_2.values, results.attn_weights_2_naive.values);
  show('attn_weights_2_naive_sum', naive.sum());
  results.attn_weights_2_naive_sum.explain = X.sumOf(results.attn_weights_2_naive.values, results.attn_weights_2_naive_sum.values);

  const weights2 = show('attn_weights_2', torch.softmax(scores2, 0), { cols: words });
  results.attn_weights_2.explain = X.softmax(results.attn_scores_2.values, results.attn_weights_2.values);
  show('attn_weights_2_sum', weights2.sum());
  results.attn_weights_2_sum.explain = X.sumOf(results.attn_weights_2.values, results.attn_weights_2_sum.values);

  const context2 = torch.zeros(...query.shape);
  tokens.forEach((x_i, i) => context2.add_(weights2.at(i).mul(x_i)));
  show('context_vec_2', context2, { cols: features(3) });
  results.context_vec_2.explain = X.weightedSum(results.attn_weights_2.values, results.inputs.values, results.context_vec_2.values, { name: 'z2' });

  // ------------------------------------------------------------ 3.3.2 all tokens
  // the book's double loop of torch.dot; each number goes straight into its cell of a new tensor (the same
  // float32 as writing it with set(), without 36 more calls into the core)
  const scoresLoop = torch.tensor(tokens.map((x_i) => tokens.map((x_j) => x_i.dot(x_j).toArray())));
  show('attn_scores_loop', scoresLoop, { rows: words, cols: words });
  const inputsT = inputs.T;
  const scores = show('attn_scores', inputs.matmul(inputsT), { rows: words, cols: words });
  results.attn_scores.explain = lazy(() => X.matmul(results.inputs.values, inputsT.toArray(), results.attn_scores.values, { name: SCORES_NAME, aName: 'x', bName: 'x' }));
  results.attn_scores_loop.explain = results.attn_scores.explain;
  const weights = show('attn_weights', torch.softmax(scores, 1), { rows: words, cols: words });
  results.attn_weights.explain = X.softmax(results.attn_scores.values, results.attn_weights.values);
  show('attn_weights_row_sums', weights.sum(1), { cols: words });
  results.attn_weights_row_sums.explain = X.sumOf(results.attn_weights.values, results.attn_weights_row_sums.values);
  results.scores_loop_equal = { name: 'scores_loop_equal', value: torch.allclose(scoresLoop, scores) };
  show('all_context_vecs', weights.matmul(inputs), { rows: words, cols: features(3) });
  results.all_context_vecs.explain = X.weightedSum(results.attn_weights.values, results.inputs.values, results.all_context_vecs.values);

  // ------------------------------------------------------------ 3.4.1 trainable weights, step by step
  const d_in = inputs.shape[1];
  const d_out = settings.d_out;
  torch.manualSeed(settings.seed);
  const drawn = {};
  for (const name of ['W_query', 'W_key', 'W_value']) {
    const start = torch.rngDraws();
    const W = show(name, torch.rand(d_in, d_out), { rows: features(d_in), cols: dims(d_out, 'o') });
    results[name].explain = X.randDraws({ seed: settings.seed, start, shape: [d_in, d_out], values: results[name].values });
    drawn[name] = W;
  }
  const x_2 = show('x_2', tokens[1], { cols: features(3), explain: (i) => [`row 1 (“${words[1]}”) of inputs: ${X.fmt(results.inputs.values[1][i[0]])}`] });
  const q2 = show('query_2', x_2.matmul(drawn.W_query), { cols: dims(d_out, 'o') });
  results.query_2.explain = X.vecmat(results.x_2.values, results.W_query.values, results.query_2.values, { name: 'q2' });
  show('key_2', x_2.matmul(drawn.W_key), { cols: dims(d_out, 'o') });
  results.key_2.explain = X.vecmat(results.x_2.values, results.W_key.values, results.key_2.values, { name: 'k2' });
  show('value_2', x_2.matmul(drawn.W_value), { cols: dims(d_out, 'o') });
  results.value_2.explain = X.vecmat(results.x_2.values, results.W_value.values, results.value_2.values, { name: 'v2' });
  const keys = show('keys', inputs.matmul(drawn.W_key), { rows: words, cols: dims(d_out, 'o') });
  results.keys.explain = X.matmul(results.inputs.values, results.W_key.values, results.keys.values, { name: 'k', aName: 'x', bName: 'W_key column' });
  const values = show('values', inputs.matmul(drawn.W_value), { rows: words, cols: dims(d_out, 'o') });
  results.values.explain = X.matmul(results.inputs.values, results.W_value.values, results.values.values, { name: 'v', aName: 'x', bName: 'W_value column' });
  show('attn_score_22', q2.dot(keys.at(1)), { explain: () => [X.dotLine('ω22 = q2 · k2', results.query_2.values, results.keys.values[1], results.attn_score_22.values)] });
  const s2 = show('attn_scores_2_qk', q2.matmul(keys.T), { cols: words });
  results.attn_scores_2_qk.explain = X.rowDots(results.keys.values, results.query_2.values, results.attn_scores_2_qk.values, { name: 'ω2' });
  const d_k = keys.shape[keys.ndim - 1];
  const scaled2 = show('attn_scores_2_scaled', s2.div(d_k ** 0.5), { cols: words });
  results.attn_scores_2_scaled.explain = X.scale(results.attn_scores_2_qk.values, results.attn_scores_2_scaled.values, d_k);
  const w2 = show('attn_weights_2_qk', torch.softmax(scaled2, -1), { cols: words });
  results.attn_weights_2_qk.explain = X.softmax(results.attn_scores_2_scaled.values, results.attn_weights_2_qk.values);
  show('context_vec_2_qk', w2.matmul(values), { cols: dims(d_out, 'o') });
  results.context_vec_2_qk.explain = X.weightedSum(results.attn_weights_2_qk.values, results.values.values, results.context_vec_2_qk.values, { name: 'z2' });

  // ------------------------------------------------------------ 3.4.2 compact classes
  const { sa_v1, v1Start, v1Weight } = keep('sa_v1', () => {
    torch.manualSeed(settings.seed);
    const v1Start = torch.rngDraws();
    const sa_v1 = new torch.SelfAttention_v1(d_in, d_out);
    return { sa_v1, v1Start, v1Weight: sa_v1.W_query };
  });
  show('sa_v1_W_query', v1Weight, { rows: features(d_in), cols: dims(d_out, 'o') });
  results.sa_v1_W_query.explain = X.randDraws({ seed: settings.seed, start: v1Start, shape: [d_in, d_out], values: results.sa_v1_W_query.values });
  show('sa_v1_out', sa_v1.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  const v1Parts = (m) => [inputs.matmul(m.W_query), inputs.matmul(m.W_key), inputs.matmul(m.W_value)];
  results.sa_v1_out.explain = contextOf(() => v1Parts(sa_v1), results.sa_v1_out.values);

  const { sa_v2, v2Weight } = keep('sa_v2', () => {
    torch.manualSeed(settings.seedV2);
    const sa_v2 = new torch.SelfAttention_v2(d_in, d_out, settings.qkv_bias);
    return { sa_v2, v2Weight: sa_v2.W_query.weight };
  });
  const bound = 1 / Math.sqrt(d_in);
  show('sa_v2_W_query', v2Weight, { rows: dims(d_out, 'o'), cols: features(d_in) });
  results.sa_v2_W_query.explain = X.linearDraws({ seed: settings.seedV2, start: 0, shape: [d_out, d_in], values: results.sa_v2_W_query.values, bound, what: 'W_query.weight' });
  show('sa_v2_out', sa_v2.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  results.sa_v2_out.explain = contextOf(() => projections(sa_v2, inputs), results.sa_v2_out.values);

  // Exercise 3.1, with the history the book's printout has: after SelfAttention_v1 (seed 123) one earlier
  // run of the same cell drew 42 more numbers (v2 with biases, then v1).
  const ex = keep('ex31', () => {
    torch.manualSeed(settings.seed);
    new torch.SelfAttention_v1(d_in, d_out);
    new torch.SelfAttention_v2(d_in, d_out, true);
    new torch.SelfAttention_v1(d_in, d_out);
    const exStart = torch.rngDraws();
    const attention_v2 = new torch.SelfAttention_v2(d_in, d_out, true);
    const attention_v1 = new torch.SelfAttention_v1(d_in, d_out);
    // the weights as drawn (shown below), then the transfer
    const drawn = { v2Weight: attention_v2.W_query.weight, v2Bias: attention_v2.W_query.bias, v1Weight: attention_v1.W_query };
    for (const w of ['W_query', 'W_key', 'W_value']) {
      attention_v1[w] = attention_v2[w].weight.T; // nn.Linear stores the transpose
      attention_v2[w].bias.zero_();
    }
    return { exStart, attention_v2, attention_v1, ...drawn, v1After: attention_v1.W_query };
  });
  const { exStart, attention_v2, attention_v1 } = ex;
  show('ex31_v2_W_query', ex.v2Weight, { rows: dims(d_out, 'o'), cols: features(d_in) });
  results.ex31_v2_W_query.explain = X.linearDraws({ seed: settings.seed, start: exStart, shape: [d_out, d_in], values: results.ex31_v2_W_query.values, bound, what: 'W_query.weight' });
  show('ex31_v2_bias', ex.v2Bias, { cols: dims(d_out, 'o') });
  results.ex31_v2_bias.explain = X.linearDraws({ seed: settings.seed, start: exStart + d_out * d_in, shape: [d_out], values: results.ex31_v2_bias.values, bound, what: 'W_query.bias' });
  show('ex31_v1_W_query', ex.v1Weight, { rows: features(d_in), cols: dims(d_out, 'o') });
  // v2 drew weight and bias for each of its three layers before v1 drew
  results.ex31_v1_W_query.explain = X.randDraws({ seed: settings.seed, start: exStart + 3 * (d_out * d_in + d_out), shape: [d_in, d_out], values: results.ex31_v1_W_query.values });
  show('ex31_v1_after', ex.v1After, { rows: features(d_in), cols: dims(d_out, 'o') });
  results.ex31_v1_after.explain = X.copiedFrom(([i, j]) => `attention_v2.W_query.weight[${j}, ${i}] = ${X.fmt(results.ex31_v2_W_query.values[j][i])}, transposed into row ${i}, column ${j}`);
  const out2 = show('ex31_out_v2', attention_v2.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  results.ex31_out_v2.explain = contextOf(() => projections(attention_v2, inputs), results.ex31_out_v2.values);
  const out1 = show('ex31_out_v1', attention_v1.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  results.ex31_out_v1.explain = contextOf(() => v1Parts(attention_v1), results.ex31_out_v1.values);
  results.ex31_equal = { name: 'ex31_equal', value: torch.allclose(out2, out1, { atol: 1e-6 }) };

  // ------------------------------------------------------------ 3.5.1 causal attention (on sa_v2)
  const queries = show('causal_queries', sa_v2.W_query.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  results.causal_queries.explain = linearOf(sa_v2.W_query, inputs, results.causal_queries.values, 'queries', 'W_query.weight');
  const keysV2 = show('causal_keys', sa_v2.W_key.forward(inputs), { rows: words, cols: dims(d_out, 'o') });
  results.causal_keys.explain = linearOf(sa_v2.W_key, inputs, results.causal_keys.values, 'keys', 'W_key.weight');
  const keysT = keysV2.T;
  const scoresV2 = show('causal_scores', queries.matmul(keysT), { rows: words, cols: words });
  results.causal_scores.explain = lazy(() => X.matmul(results.causal_queries.values, keysT.toArray(), results.causal_scores.values, { name: SCORES_NAME, aName: 'query', bName: 'key' }));
  const dk2 = keysV2.shape[keysV2.ndim - 1];
  const scaledV2 = scoresV2.div(dk2 ** 0.5);
  const causalWeights = show('causal_weights', torch.softmax(scaledV2, -1), { rows: words, cols: words });
  results.causal_weights.explain = lazy(() => X.softmax(scaledV2.toArray(), results.causal_weights.values));
  const maskSimple = show('mask_simple', torch.tril(ones), { rows: words, cols: words });
  results.mask_simple.explain = X.causalMaskCell(1);
  results.mask_simple.marks = (idx) => (idx[1] > idx[0] ? 'masked' : null);
  const maskedSimple = show('masked_simple', causalWeights.mul(maskSimple), { rows: words, cols: words });
  results.masked_simple.explain = X.maskProduct(results.causal_weights.values, results.mask_simple.values, results.masked_simple.values);
  results.masked_simple.marks = results.mask_simple.marks;
  const rowSums = maskedSimple.sum(-1, true);
  const norm = show('masked_simple_norm', maskedSimple.div(rowSums), { rows: words, cols: words });
  results.masked_simple_norm.explain = X.divideBySum(results.masked_simple.values, results.masked_simple_norm.values);
  results.masked_simple_norm.marks = results.masked_simple.marks;
  const mask = show('causal_mask', torch.triu(ones, 1), { rows: words, cols: words });
  results.causal_mask.explain = X.causalMaskCell(0);
  results.causal_mask.marks = results.mask_simple.marks;
  future = mask.bool();
  const masked = show('masked_scores', scoresV2.maskedFill(future, -Infinity), { rows: words, cols: words });
  results.masked_scores.explain = X.causalFill(results.causal_scores.values, results.masked_scores.values);
  results.masked_scores.marks = results.masked_simple.marks;
  const maskedScaled = masked.div(dk2 ** 0.5);
  const causal = show('causal_attn_weights', torch.softmax(maskedScaled, 1), { rows: words, cols: words });
  results.causal_attn_weights.explain = lazy(() => X.softmax(maskedScaled.toArray(), results.causal_attn_weights.values));
  results.causal_attn_weights.marks = results.masked_simple.marks;
  results.causal_equal = { name: 'causal_equal', value: torch.allclose(causal, norm, { atol: 1e-6 }) };

  // ------------------------------------------------------------ 3.5.2 dropout
  const p = settings.p;
  const onesValues = ones.toArray();
  const dropped = (name) => (idx) => (results[name].values[idx[0]][idx[1]] === 0 ? 'dropped' : null);
  // One module for every mask below: it draws from the generator as it is at each forward.
  const drop = new torch.nn.Dropout(p);
  // Both builds' masks, whatever the profile setting, to set them side by side.
  results.dropout_draws = { name: 'dropout_draws', value: {} };
  for (const profile of ['default', 'mkl']) {
    const name = `dropout_ones_${profile}`;
    torch.setRngProfile(profile);
    torch.manualSeed(settings.seed);
    show(name, drop.forward(ones), { rows: words, cols: words });
    results.dropout_draws.value[profile] = torch.rngDraws();
    results[name].marks = dropped(name);
  }
  // The default path's uniforms, replayed through torch.rand (which shows the same draws' low 24 bits).
  torch.manualSeed(settings.seed);
  const uniforms = X.doubleUniforms(torch.rand(2 * n * n).toArray());
  const seed = settings.seed;
  results.dropout_ones_default.explain = X.dropout(onesValues, results.dropout_ones_default.values, p, { seed, uniforms });
  results.dropout_ones_mkl.explain = X.dropout(onesValues, results.dropout_ones_mkl.values, p, { seed, profile: 'mkl' });
  const how = { seed, profile: settings.profile, uniforms: settings.profile === 'default' ? uniforms : null };

  torch.setRngProfile(settings.profile);
  torch.manualSeed(settings.seed);
  show('dropout_ones', drop.forward(ones), { rows: words, cols: words });
  results.dropout_ones.explain = X.dropout(onesValues, results.dropout_ones.values, p, how);
  results.dropout_ones.marks = dropped('dropout_ones');
  torch.manualSeed(settings.seed);
  show('dropout_weights', drop.forward(causal), { rows: words, cols: words });
  results.dropout_weights.explain = X.dropout(results.causal_attn_weights.values, results.dropout_weights.values, p, how);
  results.dropout_weights.marks = (idx) => (idx[1] > idx[0] ? 'masked' : dropped('dropout_weights')(idx));
  torch.setRngProfile('default');

  // ------------------------------------------------------------ 3.5.3 a batch and CausalAttention
  const batch = show('batch', torch.stack([inputs, inputs], 0), { rows: words, cols: features(3), axes: ['batch', 'token', 'feature'] });
  results.batch.explain = X.copiedFrom(([b, i, j]) => `inputs[${i}, ${j}] = ${X.fmt(results.inputs.values[i][j])}: entry ${b} of the batch is a copy of inputs`);
  const ca = keep('ca', () => {
    torch.manualSeed(settings.seed);
    return new torch.CausalAttention(d_in, d_out, batch.shape[1], 0.0, settings.qkv_bias);
  });
  show('ca_context_vecs', ca.forward(batch), { rows: words, cols: dims(d_out, 'o'), axes: ['batch', 'token', 'output'] });
  results.ca_context_vecs.explain = contextOf(() => projections(ca, batch), results.ca_context_vecs.values, true);

  // ------------------------------------------------------------ 3.6.1 stacking heads
  const heads = settings.heads;
  const wrapper = keep('wrapper', () => {
    torch.manualSeed(settings.seed);
    return new torch.MultiHeadAttentionWrapper(d_in, d_out, batch.shape[1], 0.0, heads, settings.qkv_bias);
  });
  show('wrapper_out', wrapper.forward(batch), { rows: words, cols: headCols(heads, d_out), axes: ['batch', 'token', 'output'] });
  const headParts = (w) => w.heads.map((h) => lazy(() => contextOf(() => projections(h, batch), h.forward(batch).toArray(), true)));
  results.wrapper_out.explain = concatOf(headParts(wrapper), d_out);
  const narrow = keep('narrow', () => {
    torch.manualSeed(settings.seed);
    return new torch.MultiHeadAttentionWrapper(d_in, 1, batch.shape[1], 0.0, heads, settings.qkv_bias);
  });
  show('wrapper_out_d1', narrow.forward(batch), { rows: words, cols: headCols(heads, 1), axes: ['batch', 'token', 'output'] });
  results.wrapper_out_d1.explain = concatOf(headParts(narrow), 1);

  // ------------------------------------------------------------ 3.6.2 weight splits
  const a = show('bmm_a', torch.tensor(BOOK_BMM_INPUT), { rows: dims(3, 't'), cols: dims(4, 'd'), axes: ['batch', 'head', 'token', 'feature'] });
  const aT = a.transpose(2, 3);
  const aa = show('bmm_out', a.matmul(aT), { rows: dims(3, 't'), cols: dims(3, 't'), axes: ['batch', 'head', 'token', 'token'] });
  results.bmm_out.explain = lazy(() => X.matmul(results.bmm_a.values, aT.toArray(), results.bmm_out.values, { name: 'out' }));
  const [first, second] = a.at(0);
  const firstT = first.T;
  const firstRes = show('bmm_first_head', first.matmul(firstT), { rows: dims(3, 't'), cols: dims(3, 't') });
  results.bmm_first_head.explain = lazy(() => X.matmul(first.toArray(), firstT.toArray(), results.bmm_first_head.values, { name: 'first_res' }));
  const secondT = second.T;
  const secondRes = show('bmm_second_head', second.matmul(secondT), { rows: dims(3, 't'), cols: dims(3, 't') });
  results.bmm_second_head.explain = lazy(() => X.matmul(second.toArray(), secondT.toArray(), results.bmm_second_head.values, { name: 'second_res' }));
  const aa0 = aa.at(0);
  results.bmm_heads_equal = {
    name: 'bmm_heads_equal',
    value: torch.allclose(aa0.at(0), firstRes) && torch.allclose(aa0.at(1), secondRes),
  };

  if (d_out % heads === 0) {
    const mha = keep('mha', () => {
      torch.manualSeed(settings.seed);
      return new torch.MultiHeadAttention(d_in, d_out, batch.shape[1], 0.0, heads, settings.qkv_bias);
    });
    const head_dim = d_out / heads;
    const b = batch.shape[0];
    const q = show('mha_queries', mha.W_query.forward(batch), { rows: words, cols: headCols(heads, head_dim), axes: ['batch', 'token', 'output'] });
    results.mha_queries.explain = linearOf(mha.W_query, batch, results.mha_queries.values, 'queries', 'W_query.weight');
    const split = (t) => t.view(b, n, heads, head_dim).transpose(1, 2);
    const [qs, ks, vs] = [q, mha.W_key.forward(batch), mha.W_value.forward(batch)].map(split);
    const perHead = { rows: words, cols: dims(head_dim, 'o'), axes: ['batch', 'head', 'token', 'output'] };
    show('mha_queries_split', qs, perHead);
    results.mha_queries_split.explain = X.copiedFrom(([bi, h, t, j]) =>
      `queries[${bi}, ${t}, ${h * head_dim + j}] = ${X.fmt(results.mha_queries.values[bi][t][h * head_dim + j])}: head ${h} owns ${head_dim === 1 ? `column ${h}` : `columns ${h * head_dim}–${(h + 1) * head_dim - 1}`}`);
    const ksT = ks.transpose(2, 3);
    const rawScores = qs.matmul(ksT);
    const mhaScores = show('mha_scores', rawScores.maskedFill(future, -Infinity), { rows: words, cols: words, axes: ['batch', 'head', 'query', 'key'] });
    const causalMarks = (idx) => (idx[idx.length - 1] > idx[idx.length - 2] ? 'masked' : null);
    const scoreParts = lazy(() => X.matmul(qs.toArray(), ksT.toArray(), rawScores.toArray(), { name: 'ω', aName: 'query', bName: 'key' }));
    results.mha_scores.explain = (idx) => (causalMarks(idx) ? X.causalFill(null, results.mha_scores.values)(idx) : scoreParts(idx));
    results.mha_scores.marks = causalMarks;
    const scaledMha = mhaScores.div(head_dim ** 0.5);
    const mhaWeights = show('mha_weights', torch.softmax(scaledMha, -1), { rows: words, cols: words, axes: ['batch', 'head', 'query', 'key'] });
    results.mha_weights.explain = lazy(() => X.softmax(scaledMha.toArray(), results.mha_weights.values));
    results.mha_weights.marks = causalMarks;
    const ctx = show('mha_context_heads', mhaWeights.matmul(vs), perHead);
    results.mha_context_heads.explain = lazy(() => X.weightedSum(results.mha_weights.values, vs.toArray(), results.mha_context_heads.values));
    const merged = show('mha_context_merged', ctx.transpose(1, 2).contiguous().view(b, n, d_out), { rows: words, cols: headCols(heads, head_dim), axes: ['batch', 'token', 'output'] });
    results.mha_context_merged.explain = X.copiedFrom(([bi, t, c]) => {
      const [h, j] = [Math.floor(c / head_dim), c % head_dim];
      return `head ${h}, column ${j} of (attn_weights @ values)[${bi}] for token ${t}: ${X.fmt(results.mha_context_heads.values[bi][h][t][j])}`;
    });
    const out = show('mha_out', mha.forward(batch), { rows: words, cols: dims(d_out, 'o'), axes: ['batch', 'token', 'output'] });
    results.mha_out.explain = linearOf(mha.out_proj, merged, results.mha_out.values, 'context_vec', 'out_proj.weight');
    results.mha_steps_equal = { name: 'mha_steps_equal', value: torch.allclose(mha.out_proj.forward(merged), out) };
  } else {
    results.mha_error = { name: 'mha_error', message: `d_out (${d_out}) must be divisible by the number of heads (${heads})` };
  }
  return results;
}

// The 4-D tensor of the batched-matmul example (the chapter's own numbers).
const BOOK_BMM_INPUT = [
  [
    [
      [0.2745, 0.6584, 0.2775, 0.8573],
      [0.8993, 0.039, 0.9268, 0.7388],
      [0.7179, 0.7058, 0.9156, 0.434],
    ],
    [
      [0.0772, 0.3565, 0.1479, 0.5331],
      [0.4066, 0.2318, 0.4545, 0.9737],
      [0.4606, 0.5159, 0.422, 0.5786],
    ],
  ],
];
