// 3.6.1 Stacking CausalAttention heads: MultiHeadAttentionWrapper with the settings' d_out, the same heads as
// one MultiHeadAttention with split weights, and Exercise 3.2's d_out = 1, whose two heads give 2 columns.
// Reads the d_in of 3.3.1 and the batch of 3.5.3; adds nothing for later sections.
export default function stackingHeads(chapter) {
  const { torch, settings, show, words, keep, headCols, lazy, contextOf, projections, concatOf, rejectable, contextLength, linearOf, d_in, batch } = chapter;
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
  // The same heads as one MultiHeadAttention: its projections are the heads' stacked (head h owns columns
  // h*d_out ... h*d_out + d_out - 1) and out_proj is the identity, so it must give the wrapper's output.
  const joined = keep('joined', () => {
    const width = heads * settings.d_out;
    const m = new torch.MultiHeadAttention(d_in, width, contextLength(), 0.0, heads, settings.qkv_bias);
    for (const w of ['W_query', 'W_key', 'W_value']) {
      m[w].weight = torch.cat(wrapper.heads.map((h) => h[w].weight), 0);
      if (settings.qkv_bias) m[w].bias = torch.cat(wrapper.heads.map((h) => h[w].bias), 0);
    }
    m.out_proj.weight = torch.triu(torch.tril(torch.ones(width, width))); // the identity: only the diagonal is in both
    m.out_proj.bias = torch.zeros(width);
    return m;
  });
  show('wrapper_as_mha', rejectable(['context_length'], () => joined.forward(batch)), {
    label: 'MultiHeadAttention with the heads’ weights',
    ...byToken,
    cols: headCols(heads, settings.d_out),
    explain: linearOf(joined.out_proj, wrapper.forward(batch), 'out_proj(context_vec)', 'out_proj.weight (the identity)'),
  });
  show('wrapper_out_d1', narrow.forward(batch), { label: 'mha(batch), d_out = 1', ...byToken, cols: headCols(heads, 1), explain: concatOf(headParts(narrow), 1) });
}
