// 3.3.2 — checking the normalisation direction.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';
import { sizes } from './words.js';

export default {
  id: 'row-sums',
  section: '3.3.2',
  title: 'Every row sums to 1',
  prose: [
    'A quick check that softmax ran along the right dimension: summing over `dim=1` gives one total per query, ' +
      'and each must be 1. Summing over `dim=0` would add down the columns, which mixes different queries and ' +
      'means nothing here.',
    'In float32 a total may land a hair away from 1; it still prints as 1.0000.',
  ],
  formula: (s) => String.raw`\sum_{j=1}^{${sizes(s).n}} \alpha_{ij} = 1 \quad\allowbreak \text{for every } i`,
  code: [printOf('attn_weights_row_sums', 'attn_weights.sum(dim=1)')],
  highlight: [0],
  show: ['attn_weights_row_sums'],
  note: (r) => {
    const worst = Math.max(...r.attn_weights_row_sums.values.map((v) => Math.abs(v - 1)));
    return worst === 0 ? 'Every row sums to exactly 1.' : `The largest distance from 1 is ${worst.toExponential(1)}; printed, every sum is ${fmt(1)}.`;
  },
};
