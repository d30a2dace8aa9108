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
}
