// 3.6.1 Stacking CausalAttention heads: MultiHeadAttentionWrapper with the settings' d_out, and Exercise 3.2's
// d_out = 1, whose two heads give a 2-dimensional output.
export default function stackingHeads(c) {
  const { torch, show, words, d_in, settings, keep, batch, headCols, lazy, contextOf, projections, concatOf, rejectable, contextLength } = c;
  const heads = settings.heads;
  const byToken = { rows: words, axes: ['batch', 'token', 'output'] };
  const headParts = (w) => w.heads.map((h) => lazy(() => contextOf(() => projections(h, batch), true)(h.forward(batch).toArray())));
  const wrapper = keep('wrapper', () => {
    torch.manualSeed(settings.seed);
    return new torch.MultiHeadAttentionWrapper(d_in, settings.d_out, contextLength(), 0.0, heads, settings.qkv_bias);
  });
  show('wrapper_out', rejectable(['context_length'], () => wrapper.forward(batch)), { label: 'mha(batch)', ...byToken, cols: headCols(heads, settings.d_out), explain: concatOf(headParts(wrapper), settings.d_out) });
  const narrow = keep('narrow', () => {
    torch.manualSeed(settings.seed);
    return new torch.MultiHeadAttentionWrapper(d_in, 1, contextLength(), 0.0, heads, settings.qkv_bias);
  });
  show('wrapper_out_d1', narrow.forward(batch), { label: 'mha(batch), d_out = 1', ...byToken, cols: headCols(heads, 1), explain: concatOf(headParts(narrow), 1) });
}
