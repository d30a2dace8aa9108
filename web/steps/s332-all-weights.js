// 3.3.2 — softmax along each row.
import { closeness, maxAbsDiff } from '../explain.js';

export default {
  id: 'all-weights',
  section: '3.3.2',
  title: 'Softmax along every row',
  prose: [
    'Each row of the score table belongs to one query, so each row is normalised on its own. `dim=1` says that ' +
      'softmax runs across the columns: along a row, and for a 2-D tensor that is also the last dimension, `dim=-1`.',
    'Hover over a weight: its take-apart uses only the scores of its own row.',
  ],
  formula: String.raw`\alpha_{ij} = \frac{e^{\omega_{ij}}}{\sum_{k=1}^{6} e^{\omega_{ik}}}`,
  code: ['attn_weights = torch.softmax(attn_scores, dim=1)'],
  highlight: [0],
  show: ['attn_weights'],
  note: (r) =>
    'The second row and the weights of x(2) computed on their own are ' +
    `${closeness(maxAbsDiff(r.attn_weights.values[1], r.attn_weights_2.values))}.`,
};
