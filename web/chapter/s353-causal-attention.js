// 3.5.3 A batch of two copies of the inputs through CausalAttention (dropout 0, so nothing is drawn in forward).
// Reads the inputs, inputRows and d_in of 3.3.1 and the causal mask (future) of 3.5.1; returns the batch,
// which 3.6 runs through its modules.
import * as explain from '../explain.js';
import { ALL, upTo } from '../operands.js';

export default function causalAttention(chapter) {
  const { torch, settings, results, show, features, dims, words, keep, attend, contextOf, projections, rejectable, contextLength, inputs, inputRows, d_in, future } = chapter;
  const batch = show('batch', torch.stack([inputs, inputs], 0), {
    rows: words,
    cols: features(d_in),
    axes: ['batch', 'token', 'feature'],
    explain: () => explain.copiedFrom(([b, i, j]) => `inputs[${i}, ${j}] = ${explain.fmt(inputRows[i][j])}: entry ${b} of the batch is a copy of inputs`),
    operands: ([, i, j]) => [['inputs', [i, j]]],
  });
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
    operands: ([b, i]) => [['batch', [b, upTo(i), ALL]]],
  });

  // The mistake: attn_scores.masked_fill(...) without the underscore returns a masked copy and drops it, so
  // forward() goes on with the unmasked scores: every token also attends to the ones after it.
  const [q, k] = projections(ca, inputs);
  const square = { rows: words, cols: words };
  show('mistake_mask_kept', attend(q, k, true), { label: 'attn_weights (masked_fill_)', ...square, marks: (idx) => (idx[1] > idx[0] ? 'masked' : null), explain: (out) => explain.softmax(maskedScaled(q, k), out) });
  const leaks = (out) => (idx) => (idx[1] > idx[0] && out[idx[0]][idx[1]] > 0 ? 'leak' : null);
  show('mistake_mask_dropped', attend(q, k, false), { label: 'attn_weights (masked_fill)', ...square, explain: (out) => explain.softmax(maskedScaled(q, k, false), out) });
  results.mistake_mask_dropped.marks = leaks(results.mistake_mask_dropped.values);

  /** The scaled scores softmax takes, masked or not. */
  function maskedScaled(qq, kk, causal = true) {
    const scores = qq.matmul(kk.T);
    return (causal ? scores.maskedFill(future, -Infinity) : scores).div(kk.shape[1] ** 0.5).toArray();
  }
  return { batch };
}
