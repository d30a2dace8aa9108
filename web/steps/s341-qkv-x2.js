// 3.4.1 — one token's three projections.
import { printOf } from '../python.js';
import { queryLine, theQuery } from './words.js';
export default {
  id: 'qkv-x2',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: (s) => `Query, key and value of ${theQuery(s).x}`,
  prose: [
    (s) => `Multiplying the input ${theQuery(s).x} by each matrix gives its query, key and value vectors. One token thus gets three ` +
      'different views of itself, and training can shape each view for its own job.',
    'The size changes on the way: d_in = 3 numbers go in, d_out come out. GPT-like models usually keep the two ' +
      'equal; the book makes them differ so that the shapes are easy to follow. Hover over an entry to see the query ' +
      'times one column of a matrix.',
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\mathbf{q}^{(${q})} = \mathbf{x}^{(${q})} \mathbf{W}_q, \quad \mathbf{k}^{(${q})} = \mathbf{x}^{(${q})} \mathbf{W}_k, \quad \mathbf{v}^{(${q})} = \mathbf{x}^{(${q})} \mathbf{W}_v`; },
  code: (s) => [
    queryLine('x_2', s),
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
