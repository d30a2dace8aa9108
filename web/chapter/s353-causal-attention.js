// 3.5.3 A batch of two copies of the inputs through CausalAttention (dropout 0, so nothing is drawn in forward).
import * as X from '../explain.js';

export default function causalAttention(c) {
  const { torch, show, features, dims, words, inputs, inputRows, d_in, settings, keep, contextOf, projections, rejectable, contextLength } = c;
  const batch = (c.batch = show('batch', torch.stack([inputs, inputs], 0), {
    rows: words,
    cols: features(d_in),
    axes: ['batch', 'token', 'feature'],
    explain: () => X.copiedFrom(([b, i, j]) => `inputs[${i}, ${j}] = ${X.fmt(inputRows[i][j])}: entry ${b} of the batch is a copy of inputs`),
  }));
  const ca = keep('ca', () => {
    torch.manualSeed(settings.seed);
    return new torch.CausalAttention(d_in, settings.d_out, contextLength(), 0.0, settings.qkv_bias);
  });
  show('ca_context_vecs', rejectable(['context_length'], () => ca.forward(batch)), {
    label: 'ca(batch)',
    rows: words,
    cols: dims(settings.d_out, 'o'),
    axes: ['batch', 'token', 'output'],
    explain: contextOf(() => projections(ca, batch), true),
  });

  // The mistake: attn_scores.masked_fill(...) without the underscore returns a masked copy and drops it, so
  // forward() goes on with the unmasked scores: every token also attends to the ones after it.
  const [q, k] = projections(ca, inputs);
  const square = { rows: words, cols: words };
  show('mistake_mask_kept', c.attend(q, k, true), { label: 'attn_weights (masked_fill_)', ...square, marks: (idx) => (idx[1] > idx[0] ? 'masked' : null), explain: (out) => X.softmax(maskedScaled(q, k), out) });
  const leaks = (out) => (idx) => (idx[1] > idx[0] && out[idx[0]][idx[1]] > 0 ? 'leak' : null);
  show('mistake_mask_dropped', c.attend(q, k, false), { label: 'attn_weights (masked_fill)', ...square, explain: (out) => X.softmax(maskedScaled(q, k, false), out) });
  c.results.mistake_mask_dropped.marks = leaks(c.results.mistake_mask_dropped.values);

  /** The scaled scores softmax takes, masked or not. */
  function maskedScaled(qq, kk, causal = true) {
    const scores = qq.matmul(kk.T);
    return (causal ? scores.maskedFill(c.future, -Infinity) : scores).div(kk.shape[1] ** 0.5).toArray();
  }
}
