// 3.4.1 — the context vector from values.
import { printOf } from '../python.js';
import { sizes } from './words.js';
export default {
  id: 'context-q2',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: 'The context vector of x(2), from values',
  prose: [
    'As in 3.3, the context vector is a weighted sum, but now it adds up the value vectors instead of the raw ' +
      'inputs, so it has d_out entries. The weight vector times the value matrix does the whole sum in one product.',
    'Hover over an entry of the context vector to see its six products.',
  ],
  formula: (s) => String.raw`\mathbf{z}^{(2)} = \sum_{i=1}^{${sizes(s).n}} \alpha_{2i} \, \mathbf{v}^{(i)} = \boldsymbol{\alpha}_2 \mathbf{V}`,
  code: [
    'context_vec_2 = attn_weights_2 @ values',
    printOf('attn_weights_2_qk', 'attn_weights_2'),
    printOf('values', 'values'),
    printOf('context_vec_2_qk', 'context_vec_2'),
  ],
  highlight: [0],
  show: ['attn_weights_2_qk', 'values', 'context_vec_2_qk'],
};
