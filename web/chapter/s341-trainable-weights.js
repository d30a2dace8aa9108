// 3.4.1 Trainable weights, step by step: W_query, W_key and W_value drawn with torch.rand under the seed,
// the query, key and value of the query word (x(2) in the book), the keys and values of every token, and its
// scaled attention.
// Reads the inputs, inputRows, tokens, q and d_in of 3.3.1; adds nothing for later sections.
import * as explain from '../explain.js';
import { row, col, whole } from '../operands.js';

export default function trainableWeights(chapter) {
  const { torch, settings, results, show, features, dims, words, inputs, inputRows, tokens, q, d_in } = chapter;
  const d_out = settings.d_out;
  torch.manualSeed(settings.seed);
  const W = {};
  for (const name of ['W_query', 'W_key', 'W_value']) {
    const start = torch.rngDraws();
    W[name] = show(name, torch.rand(d_in, d_out).asParameter(false), { // torch.nn.Parameter(..., requires_grad=False)
      rows: features(d_in),
      cols: dims(d_out, 'o'),
      explain: (values) => explain.randDraws({ seed: settings.seed, start, shape: [d_in, d_out], values }),
    });
  }
  const w = (name) => results[name].values;
  const x_2 = show('x_2', tokens[q], {
    cols: features(d_in),
    explain: (out) => (i) => [`row ${q} (“${words[q]}”) of inputs: ${explain.fmt(out[i[0]])}`],
    operands: ([j]) => [['inputs', [q, j]]],
  });
  const x2 = w('x_2');
  const outCols = dims(d_out, 'o');
  // x_2 @ W: one column of W per output
  const projected = (name, weight) => ({
    cols: outCols,
    explain: (out) => explain.vecmat(x2, w(weight), out, { name }),
    operands: ([j]) => [whole('x_2', 1), col(weight, j)],
  });
  const q2 = show('query_2', x_2.matmul(W.W_query), projected(`q${q + 1}`, 'W_query'));
  show('key_2', x_2.matmul(W.W_key), projected(`k${q + 1}`, 'W_key'));
  show('value_2', x_2.matmul(W.W_value), projected(`v${q + 1}`, 'W_value'));
  // inputs @ W: a row of inputs and a column of W per cell
  const everyToken = (name, weight) => ({
    rows: words,
    cols: outCols,
    explain: (out) => explain.matmul(inputRows, w(weight), out, { name, aName: 'x', bName: `${weight} column` }),
    operands: ([i, j]) => [row('inputs', i), col(weight, j)],
  });
  const keys = show('keys', inputs.matmul(W.W_key), everyToken('k', 'W_key'));
  const values = show('values', inputs.matmul(W.W_value), everyToken('v', 'W_value'));
  const q2Values = w('query_2');
  const keyRows = w('keys');
  show('attn_score_22', q2.dot(keys.at(q)), {
    label: 'attn_scores_22',
    explain: (out) => () => [explain.dotLine(`ω${q + 1}${q + 1} = q${q + 1} · k${q + 1}`, q2Values, keyRows[q], out)],
    operands: () => [whole('query_2', 1), row('keys', q)],
  });
  const s2 = show('attn_scores_2_qk', q2.matmul(keys.T), {
    label: 'attn_scores_2',
    cols: words,
    explain: (out) => explain.rowDots(keyRows, q2Values, out, { name: `ω${q + 1}` }),
    operands: ([i]) => [whole('query_2', 1), row('keys', i)],
  });
  // the mistake: the scores from the values instead of the keys
  const valueRows = w('values');
  show('mistake_scores_from_values', q2.matmul(values.T), { label: 'query_2 @ values.T', cols: words, explain: (out) => explain.rowDots(valueRows, q2Values, out, { name: `ω${q + 1}` }) });
  const d_k = keys.shape[keys.ndim - 1];
  const scaled2 = show('attn_scores_2_scaled', s2.div(d_k ** 0.5), {
    label: 'attn_scores_2 / d_k**0.5',
    cols: words,
    explain: (out) => explain.scale(results.attn_scores_2_qk.values, out, d_k),
    operands: ([i]) => [['attn_scores_2_qk', [i]]],
  });
  const w2 = show('attn_weights_2_qk', torch.softmax(scaled2, -1), {
    label: 'attn_weights_2',
    cols: words,
    explain: (out) => explain.softmax(results.attn_scores_2_scaled.values, out),
    operands: () => [whole('attn_scores_2_scaled', 1)],
  });
  // the mistake: no scaling by √d_k before the softmax
  show('mistake_unscaled', torch.softmax(s2, -1), { label: 'torch.softmax(attn_scores_2, dim=-1)', cols: words, explain: (out) => explain.softmax(results.attn_scores_2_qk.values, out) });
  show('context_vec_2_qk', w2.matmul(values), {
    label: 'context_vec_2',
    cols: outCols,
    explain: (out) => explain.weightedSum(w('attn_weights_2_qk'), w('values'), out, { name: `z${q + 1}` }),
    operands: ([j]) => [whole('attn_weights_2_qk', 1), col('values', j)],
  });
}
