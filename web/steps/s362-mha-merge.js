// 3.6.2 — per-head context vectors, merged back into one row per token.
import { printOf } from '../python.js';
export default {
  id: 'mha-merge',
  section: '3.6.2',
  title: 'Context vectors per head, then merged',
  prose: [
    'Multiplying each head’s weights by its values gives its context vectors, shape (batch, heads, tokens, ' +
      'head_dim). To join the heads, `transpose(1, 2)` brings the tokens back in front of the heads, and ' +
      '`view(b, num_tokens, d_out)` lays each token’s head slices side by side: the same concatenation the ' +
      'wrapper did with `torch.cat`.',
    '`contiguous()` is needed in between: `transpose` only changes the order in which memory is read, while ' +
      '`view` needs the numbers stored in the new order, so they are copied into it first. Hover over a merged ' +
      'cell to see which head it came from.',
  ],
  formula: String.raw`\mathbf{Z}_h = \mathbf{A}_h \mathbf{V}_h, \qquad \mathbf{Z} = \left[\, \mathbf{Z}_1 \;\middle|\; \cdots \;\middle|\; \mathbf{Z}_{n_h} \,\right]`,
  code: [
    'values = mha.W_value(batch).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)',
    printOf('mha_context_heads', 'attn_weights @ values'),
    'context_vec = (attn_weights @ values).transpose(1, 2)',
    'context_vec = context_vec.contiguous().view(b, num_tokens, mha.d_out)',
    printOf('mha_context_merged', 'context_vec'),
  ],
  highlight: [2, 3],
  show: ['mha_context_heads', 'mha_context_merged'],
  controls: ['d_out', 'heads', 'seed', 'qkv_bias'],
  note: (r) =>
    `[${r.mha_context_heads.shape.join(', ')}] → transpose → contiguous → view → [${r.mha_context_merged.shape.join(', ')}].`,
};
