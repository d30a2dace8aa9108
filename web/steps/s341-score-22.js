// 3.4.1 — the first score with trainable weights.
import { printOf } from '../python.js';
import { theQuery } from './words.js';

// ω22 for the book's query
const q = (s) => `${theQuery(s).i}${theQuery(s).i}`;

export default {
  id: 'score-22',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: (s) => `One score: ω${q(s)}`,
  prose: [
    (s) => 'The score is still a dot product, but now between a query and a key rather than between two raw ' +
      `embeddings: ω${q(s)} = q(${theQuery(s).i}) · k(${theQuery(s).i}), what ${theQuery(s).x} looks for against what ${theQuery(s).x} offers.`,
    'Since W_q and W_k are different matrices, a token’s query and key are different vectors, and which tokens ' +
      'score high is decided by the weights, which training can adjust. Hover over the score for its products.',
  ],
  formula: (s) => { const i = theQuery(s).i; return String.raw`\omega_{${i}${i}} = \mathbf{q}^{(${i})} \cdot \mathbf{k}^{(${i})}`; },
  code: (s) => [
    `keys_2 = keys[${theQuery(s).row}]`,
    'attn_score_22 = query_2.dot(keys_2)',
    printOf('query_2', 'query_2'),
    printOf('key_2', 'key_2'),
    printOf('attn_score_22', 'attn_score_22'),
  ],
  highlight: [1],
  show: ['query_2', 'key_2', 'attn_score_22'],
};
