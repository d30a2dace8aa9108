// 3.4.1 — the context vector from values.
import { printOf } from '../python.js';
import { count, sizes, theQuery } from './words.js';
export default {
  id: 'context-q2',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: (s) => `The context vector of ${theQuery(s).x}, from values`,
  prose: [
    'As in 3.3, the context vector is a weighted sum, but now it adds up the value vectors instead of the raw ' +
      'inputs, so it has d_out entries. The weight vector times the value matrix does the whole sum in one product.',
    (s) => `Hover over an entry of the context vector to see its ${sizes(s).n === 1 ? 'one product' : `${count(sizes(s).n)} products`}.`,
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\mathbf{z}^{(${q})} = \sum_{i=1}^{${sizes(s).n}} \alpha_{${q}i} \, \mathbf{v}^{(i)} = \boldsymbol{\alpha}_{${q}} \mathbf{V}`; },
  code: [
    'context_vec_2 = attn_weights_2 @ values',
    printOf('attn_weights_2_qk', 'attn_weights_2'),
    printOf('values', 'values'),
    printOf('context_vec_2_qk', 'context_vec_2'),
  ],
  highlight: [0],
  show: ['attn_weights_2_qk', 'values', 'context_vec_2_qk'],
};
