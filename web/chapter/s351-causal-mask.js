// 3.5.1 Hiding future words, on SelfAttention_v2's queries and keys: the weights masked with tril and
// renormalised, then the chapter's way, -inf above the diagonal before the softmax; both give the same.
// Reads the inputs and n of 3.3.1 and the sa_v2 of 3.4.2; returns the n x n ones the masks start from,
// the causal mask as booleans (future) and the masked weights (causal), for 3.5.2 onwards.
import * as explain from '../explain.js';
import { row, same, upTo } from '../operands.js';

export default function causalMask(chapter) {
  const { torch, settings, results, show, fact, dims, words, lazy, linearOf, inputs, n, sa_v2 } = chapter;
  const square = { rows: words, cols: words };
  const outCols = dims(settings.d_out, 'o');
  const queries = show('causal_queries', sa_v2.W_query.forward(inputs), { label: 'queries', rows: words, cols: outCols, explain: linearOf(sa_v2.W_query, inputs, 'queries', 'W_query.weight') });
  const keys = show('causal_keys', sa_v2.W_key.forward(inputs), { label: 'keys', rows: words, cols: outCols, explain: linearOf(sa_v2.W_key, inputs, 'keys', 'W_key.weight') });
  const keysT = keys.T;
  const scores = show('causal_scores', queries.matmul(keysT), {
    label: 'attn_scores',
    ...square,
    explain: (out) => lazy(() => explain.matmul(results.causal_queries.values, keysT.toArray(), out, { name: 'ω', aName: 'query', bName: 'key' })),
    operands: ([i, j]) => [row('causal_queries', i), row('causal_keys', j)],
  });
  const d_k = keys.shape[keys.ndim - 1];
  const scaled = scores.div(d_k ** 0.5);
  const weights = show('causal_weights', torch.softmax(scaled, -1), {
    label: 'attn_weights',
    ...square,
    explain: (out) => lazy(() => explain.softmax(scaled.toArray(), out)),
    operands: ([i]) => [row('causal_scores', i)],
  });

  // Made once: the masks and the dropout example all start from it (no op changes its input).
  const ones = torch.ones(n, n);
  const markFuture = (idx) => (idx[1] > idx[0] ? 'masked' : null);
  const maskSimple = show('mask_simple', torch.tril(ones), { ...square, marks: markFuture, explain: () => explain.causalMaskCell(1) });
  const maskedSimple = show('masked_simple', weights.mul(maskSimple), {
    ...square,
    marks: markFuture,
    explain: (out) => explain.maskProduct(results.causal_weights.values, results.mask_simple.values, out),
    operands: (index) => [same('causal_weights', index), same('mask_simple', index)],
  });
  const rowSums = maskedSimple.sum(-1, true);
  const norm = show('masked_simple_norm', maskedSimple.div(rowSums), {
    ...square,
    marks: markFuture,
    explain: (out) => explain.divideBySum(results.masked_simple.values, out),
    operands: ([i]) => [row('masked_simple', i)],
  });
  const mask = show('causal_mask', torch.triu(ones, 1), { label: 'mask', ...square, marks: markFuture, explain: () => explain.causalMaskCell(0) });
  const future = mask.bool();
  const masked = show('masked_scores', scores.maskedFill(future, -Infinity), {
    label: 'masked',
    ...square,
    marks: markFuture,
    explain: (out) => explain.causalFill(results.causal_scores.values, out),
    operands: (index) => [same('causal_scores', index), same('causal_mask', index)],
  });
  const maskedScaled = masked.div(d_k ** 0.5);
  const causal = show('causal_attn_weights', torch.softmax(maskedScaled, 1), {
    label: 'attn_weights (masked)',
    ...square,
    marks: markFuture,
    explain: (out) => lazy(() => explain.softmax(maskedScaled.toArray(), out)),
    operands: ([i]) => [['masked_scores', [i, upTo(i)]]],
  });
  fact('causal_equal', torch.allclose(causal, norm, { atol: 1e-6 }));
  return { ones, future, causal };
}
