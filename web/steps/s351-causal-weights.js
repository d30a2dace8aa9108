// 3.5.1 — the unmasked weights that causal attention starts from.
import { printOf } from '../python.js';
import { counted } from './words.js';
export default {
  id: 'causal-weights',
  section: '3.5.1',
  title: 'Weights that can see the future',
  prose: [
    'A language model writes text one token at a time, predicting each from the tokens before it. While it ' +
      'learns, a token must therefore not draw information from tokens that come after it. Causal attention ' +
      'enforces this: in row i of the weight matrix, every column after i must be 0.',
    'We start from the ordinary weights of `sa_v2`, reusing its query and key layers. Every row still spreads ' +
      'its weight over all six tokens, the future ones included. Hover over a score or a weight to take it apart.',
  ],
  formula: String.raw`\mathbf{A} = \operatorname{softmax}\!\left(\frac{\mathbf{Q}\mathbf{K}^\top}{\sqrt{d_k}}\right)`,
  code: [
    'queries = sa_v2.W_query(inputs)',
    'keys = sa_v2.W_key(inputs)',
    'attn_scores = queries @ keys.T',
    'attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)',
    printOf('causal_scores', 'attn_scores'),
    printOf('causal_weights', 'attn_weights'),
  ],
  highlight: [0, 1, 2, 3],
  show: ['causal_scores', 'causal_weights'],
  controls: ['seedV2', 'qkv_bias'],
  note: (r) => {
    const n = r.causal_weights.shape[0];
    const above = (n * (n - 1)) / 2;
    return `${above} of the ${counted(n * n, 'weight')} ${above === 1 ? 'sits' : 'sit'} above the diagonal: a token attending to a later one.`;
  },
};
