// 3.4.1 — one token's three projections.
import { printOf } from '../python.js';
import { queryIndex } from '../state.js';
export default {
  id: 'qkv-x2',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: 'Query, key and value of x(2)',
  prose: [
    'Multiplying the input x(2) by each matrix gives its query, key and value vectors. One token thus gets three ' +
      'different views of itself, and training can shape each view for its own job.',
    'The size changes on the way: d_in = 3 numbers go in, d_out come out. GPT-like models usually keep the two ' +
      'equal; the book makes them differ so that the shapes are easy to follow. Hover over an entry to see x(2) ' +
      'times one column of a matrix.',
  ],
  formula: String.raw`\mathbf{q}^{(2)} = \mathbf{x}^{(2)} \mathbf{W}_q, \quad \mathbf{k}^{(2)} = \mathbf{x}^{(2)} \mathbf{W}_k, \quad \mathbf{v}^{(2)} = \mathbf{x}^{(2)} \mathbf{W}_v`,
  code: (s) => [
    `x_2 = inputs[${queryIndex(s)}]`,
    'query_2 = x_2 @ W_query',
    'key_2 = x_2 @ W_key',
    'value_2 = x_2 @ W_value',
    printOf('x_2', 'x_2'),
    printOf('query_2', 'query_2'),
    printOf('key_2', 'key_2'),
    printOf('value_2', 'value_2'),
  ],
  highlight: [1, 2, 3],
  show: ['x_2', 'query_2', 'key_2', 'value_2'],
  note: (r) => `x_2 has ${r.x_2.shape[0]} entries; its query, key and value have ${r.query_2.shape[0]} each.`,
};
