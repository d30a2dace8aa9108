// 3.6.2 — scores and causal weights for every head in one batched product.
import { printOf } from '../python.js';
export default {
  id: 'mha-weights',
  section: '3.6.2',
  title: 'Scores and weights of every head',
  prose: [
    'Back to the module. With queries and keys split into heads, `queries @ keys.transpose(2, 3)` computes ' +
      'every head’s tokens × tokens score table in one batched product, exactly as in the example. The causal ' +
      'mask is only tokens × tokens, but broadcasting applies it to every text and every head, so one ' +
      '`masked_fill_` hides the future everywhere.',
    'Softmax then runs along the last dimension, with d_k = head_dim, the width of each head’s keys. Each head ' +
      'gets its own pattern of weights. Hover over a cell for its dot product or its softmax.',
  ],
  formula: String.raw`\mathbf{A}_h = \operatorname{softmax}\!\left(\frac{\operatorname{mask}(\mathbf{Q}_h \mathbf{K}_h^\top)}{\sqrt{d_\text{out}/n_h}}\right) \quad\allowbreak \text{for each head } h`,
  code: [
    'keys = mha.W_key(batch).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)',
    'attn_scores = queries @ keys.transpose(2, 3)',
    'attn_scores.masked_fill_(mha.mask.bool()[:num_tokens, :num_tokens], -torch.inf)',
    'attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)',
    printOf('mha_scores', 'attn_scores'),
    printOf('mha_weights', 'attn_weights'),
  ],
  highlight: [1, 2, 3],
  show: ['mha_scores', 'mha_weights'],
  controls: ['d_out', 'heads', 'seed', 'qkv_bias'],
  note: (r) =>
    `attn_weights.shape = [${r.mha_weights.shape.join(', ')}]: batch, head, query token, key token.`,
};
