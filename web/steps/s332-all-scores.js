// 3.3.2 — every token as a query: loops, then one matrix product.
import { printOf } from '../python.js';
import { py } from '../explain.js';
import { sizes, theQuery } from './words.js';

export default {
  id: 'all-scores',
  section: '3.3.2',
  title: 'Scores for every pair of tokens',
  prose: [
    (s) => `Now every token takes a turn as the query. Two nested loops fill a ${sizes(s).n} × ${sizes(s).n} table whose row i, column j holds ` +
      `x(i) · x(j). The ${theQuery(s).nth} row is the score vector of ${theQuery(s).x} from before, and the table is symmetric, because a dot ` +
      'product does not depend on the order of its two vectors.',
    'Python loops are slow. The same table is one matrix product: in `inputs @ inputs.T`, row i of `inputs` meets ' +
      'column j of the transpose, which is row j of `inputs`. Hover over a cell of either table to see the same ' +
      'dot product.',
  ],
  formula: String.raw`\boldsymbol{\Omega} = \mathbf{X} \mathbf{X}^\top, \quad \omega_{ij} = \mathbf{x}^{(i)} \cdot \mathbf{x}^{(j)}`,
  code: (s) => [
    `attn_scores = torch.empty(${s.tokens.length}, ${s.tokens.length})`,
    'for i, x_i in enumerate(inputs):',
    '    for j, x_j in enumerate(inputs):',
    '        attn_scores[i, j] = torch.dot(x_i, x_j)',
    printOf('attn_scores_loop', 'attn_scores'),
    'attn_scores = inputs @ inputs.T',
    printOf('attn_scores', 'attn_scores'),
  ],
  highlight: [3, 5],
  show: ['attn_scores_loop', 'attn_scores'],
  note: (r) => `Loops and matrix product agree: torch.allclose → ${py(r.scores_loop_equal.value)}.`,
};
