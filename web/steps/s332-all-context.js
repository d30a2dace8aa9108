// 3.3.2 — all context vectors as one matrix product.
import { printOf } from '../python.js';
import { closeness, maxAbsDiff } from '../explain.js';
import { capital, theQuery } from './words.js';

export default {
  id: 'all-context',
  section: '3.3.2',
  title: 'All context vectors in one product',
  prose: [
    'The six weighted sums are again a single matrix product. Row i of `attn_weights` holds the weights of query ' +
      'i; multiplying it by `inputs` adds up the input rows with those weights, which is exactly the loop that ' +
      'made z(2) for one query.',
    'The result has one context vector per token, the same shape as `inputs`. Hover over a cell to see its six ' +
      'products.',
  ],
  formula: String.raw`\mathbf{Z} = \mathbf{A} \mathbf{X}, \quad \mathbf{z}^{(i)} = \sum_{j} \alpha_{ij} \, \mathbf{x}^{(j)}`,
  code: ['all_context_vecs = attn_weights @ inputs', printOf('all_context_vecs', 'all_context_vecs')],
  highlight: [0],
  show: ['all_context_vecs'],
  note: (r, s) => {
    const { i, nth, row } = theQuery(s);
    return `${capital(`the ${nth} row`)} and z(${i}) from the loop are ${closeness(maxAbsDiff(r.all_context_vecs.values[row], r.context_vec_2.values))}.`;
  },
};
