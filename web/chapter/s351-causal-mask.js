// 3.5.1 Hiding future words, on SelfAttention_v2's queries and keys: the weights masked with tril and
// renormalised, then the chapter's way, -inf above the diagonal before the softmax; both give the same.
import * as X from '../explain.js';

export default function causalMask(c) {
  const { torch, show, dims, words, inputs, n, settings, sa_v2, lazy, linearOf } = c;
  const square = { rows: words, cols: words };
  const outCols = dims(settings.d_out, 'o');
  const queries = show('causal_queries', sa_v2.W_query.forward(inputs), { label: 'queries', rows: words, cols: outCols, explain: linearOf(sa_v2.W_query, inputs, 'queries', 'W_query.weight') });
  const keys = show('causal_keys', sa_v2.W_key.forward(inputs), { label: 'keys', rows: words, cols: outCols, explain: linearOf(sa_v2.W_key, inputs, 'keys', 'W_key.weight') });
  const keysT = keys.T;
  const scores = show('causal_scores', queries.matmul(keysT), {
    label: 'attn_scores',
    ...square,
    explain: (out) => lazy(() => X.matmul(c.results.causal_queries.values, keysT.toArray(), out, { name: 'ω', aName: 'query', bName: 'key' })),
  });
  const d_k = keys.shape[keys.ndim - 1];
  const scaled = scores.div(d_k ** 0.5);
  const weights = show('causal_weights', torch.softmax(scaled, -1), { label: 'attn_weights', ...square, explain: (out) => lazy(() => X.softmax(scaled.toArray(), out)) });

  // Made once: the masks and the dropout example all start from it (no op changes its input).
  const ones = (c.ones = torch.ones(n, n));
  const future = (idx) => (idx[1] > idx[0] ? 'masked' : null);
  const maskSimple = show('mask_simple', torch.tril(ones), { ...square, marks: future, explain: () => X.causalMaskCell(1) });
  const maskedSimple = show('masked_simple', weights.mul(maskSimple), {
    ...square,
    marks: future,
    explain: (out) => X.maskProduct(c.results.causal_weights.values, c.results.mask_simple.values, out),
  });
  const rowSums = maskedSimple.sum(-1, true);
  const norm = show('masked_simple_norm', maskedSimple.div(rowSums), { ...square, marks: future, explain: (out) => X.divideBySum(c.results.masked_simple.values, out) });
  const mask = show('causal_mask', torch.triu(ones, 1), { label: 'mask', ...square, marks: future, explain: () => X.causalMaskCell(0) });
  c.future = mask.bool();
  const masked = show('masked_scores', scores.maskedFill(c.future, -Infinity), {
    label: 'masked',
    ...square,
    marks: future,
    explain: (out) => X.causalFill(c.results.causal_scores.values, out),
  });
  const maskedScaled = masked.div(d_k ** 0.5);
  const causal = show('causal_attn_weights', torch.softmax(maskedScaled, 1), {
    label: 'attn_weights (masked)',
    ...square,
    marks: future,
    explain: (out) => lazy(() => X.softmax(maskedScaled.toArray(), out)),
  });
  c.causal = causal;
  c.fact('causal_equal', torch.allclose(causal, norm, { atol: 1e-6 }));
}
