// 3.4.1 — keys and values for the whole sequence.
import { printOf } from '../python.js';
import { allOf, sizes, theQuery } from './words.js';

export default {
  id: 'keys-values',
  section: '3.4.1',
  title: 'Keys and values of all tokens',
  prose: [
    (s) => `To score ${theQuery(s).x} against every token we need ${allOf(sizes(s).n, 'key')}, and to build its context vector ${allOf(sizes(s).n, 'value')}. ` +
      'One matrix product per role computes them: row i of `keys` is x(i) W_k, row i of `values` is x(i) W_v.',
    (s) => `We still need only one query, because we are following ${theQuery(s).x} alone; the class in 3.4.2 will compute every ` +
      'query at once. Hover over an entry to see its row of inputs times a column of weights.',
  ],
  formula: String.raw`\mathbf{K} = \mathbf{X} \mathbf{W}_k, \quad \mathbf{V} = \mathbf{X} \mathbf{W}_v`,
  code: ['keys = inputs @ W_key', 'values = inputs @ W_value', printOf('keys', 'keys'), printOf('values', 'values')],
  highlight: [0, 1],
  show: ['keys', 'values'],
  note: (r) => `keys.shape = values.shape = [${r.keys.shape.join(', ')}]: one row per token, d_out columns.`,
};
