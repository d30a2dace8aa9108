// 3.4.1 — the first score with trainable weights.
import { printOf } from '../python.js';
import { queryIndex } from '../state.js';
export default {
  id: 'score-22',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: 'One score: ω22',
  prose: [
    'The score is still a dot product, but now between a query and a key rather than between two raw ' +
      'embeddings: ω22 = q(2) · k(2), what x(2) looks for against what x(2) offers.',
    'Since W_q and W_k are different matrices, a token’s query and key are different vectors, and which tokens ' +
      'score high is decided by the weights, which training can adjust. Hover over the score for its products.',
  ],
  formula: String.raw`\omega_{22} = \mathbf{q}^{(2)} \cdot \mathbf{k}^{(2)}`,
  code: (s) => [
    `keys_2 = keys[${queryIndex(s)}]`,
    'attn_score_22 = query_2.dot(keys_2)',
    printOf('query_2', 'query_2'),
    printOf('key_2', 'key_2'),
    printOf('attn_score_22', 'attn_score_22'),
  ],
  highlight: [1],
  show: ['query_2', 'key_2', 'attn_score_22'],
};
