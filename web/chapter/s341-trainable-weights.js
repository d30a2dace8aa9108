// 3.4.1 Trainable weights, step by step: W_query, W_key and W_value drawn with torch.rand under the seed,
// the query, key and value of x(2), the keys and values of every token, and x(2)'s scaled attention.
import * as X from '../explain.js';

export default function trainableWeights(c) {
  const { torch, show, features, dims, words, inputs, inputRows, tokens, q, d_in, settings } = c;
  const d_out = settings.d_out;
  torch.manualSeed(settings.seed);
  const W = {};
  for (const name of ['W_query', 'W_key', 'W_value']) {
    const start = torch.rngDraws();
    W[name] = show(name, torch.rand(d_in, d_out), {
      rows: features(d_in),
      cols: dims(d_out, 'o'),
      explain: (values) => X.randDraws({ seed: settings.seed, start, shape: [d_in, d_out], values }),
    });
  }
  const w = (name) => c.results[name].values;
  const x_2 = show('x_2', tokens[q], { cols: features(d_in), explain: (out) => (i) => [`row ${q} (“${words[q]}”) of inputs: ${X.fmt(out[i[0]])}`] });
  const x2 = w('x_2');
  const outCols = dims(d_out, 'o');
  const q2 = show('query_2', x_2.matmul(W.W_query), { cols: outCols, explain: (out) => X.vecmat(x2, w('W_query'), out, { name: 'q2' }) });
  show('key_2', x_2.matmul(W.W_key), { cols: outCols, explain: (out) => X.vecmat(x2, w('W_key'), out, { name: 'k2' }) });
  show('value_2', x_2.matmul(W.W_value), { cols: outCols, explain: (out) => X.vecmat(x2, w('W_value'), out, { name: 'v2' }) });
  const keys = show('keys', inputs.matmul(W.W_key), {
    rows: words,
    cols: outCols,
    explain: (out) => X.matmul(inputRows, w('W_key'), out, { name: 'k', aName: 'x', bName: 'W_key column' }),
  });
  const values = show('values', inputs.matmul(W.W_value), {
    rows: words,
    cols: outCols,
    explain: (out) => X.matmul(inputRows, w('W_value'), out, { name: 'v', aName: 'x', bName: 'W_value column' }),
  });
  const q2Values = w('query_2');
  const keyRows = w('keys');
  show('attn_score_22', q2.dot(keys.at(q)), { label: 'attn_scores_22', explain: (out) => () => [X.dotLine(`ω${q + 1}${q + 1} = q${q + 1} · k${q + 1}`, q2Values, keyRows[q], out)] });
  const s2 = show('attn_scores_2_qk', q2.matmul(keys.T), { label: 'attn_scores_2', cols: words, explain: (out) => X.rowDots(keyRows, q2Values, out, { name: 'ω2' }) });
  // the mistake: the scores from the values instead of the keys
  const valueRows = w('values');
  show('mistake_scores_from_values', q2.matmul(values.T), { label: 'query_2 @ values.T', cols: words, explain: (out) => X.rowDots(valueRows, q2Values, out, { name: 'ω2' }) });
  const d_k = keys.shape[keys.ndim - 1];
  const scaled2 = show('attn_scores_2_scaled', s2.div(d_k ** 0.5), {
    label: 'attn_scores_2 / d_k**0.5',
    cols: words,
    explain: (out) => X.scale(c.results.attn_scores_2_qk.values, out, d_k),
  });
  const w2 = show('attn_weights_2_qk', torch.softmax(scaled2, -1), { label: 'attn_weights_2', cols: words, explain: (out) => X.softmax(c.results.attn_scores_2_scaled.values, out) });
  // the mistake: no scaling by √d_k before the softmax
  show('mistake_unscaled', torch.softmax(s2, -1), { label: 'torch.softmax(attn_scores_2, dim=-1)', cols: words, explain: (out) => X.softmax(c.results.attn_scores_2_qk.values, out) });
  show('context_vec_2_qk', w2.matmul(values), {
    label: 'context_vec_2',
    cols: outCols,
    explain: (out) => X.weightedSum(w('attn_weights_2_qk'), w('values'), out, { name: 'z2' }),
  });
}
