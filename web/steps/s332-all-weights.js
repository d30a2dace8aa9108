// 3.3.2 — softmax along each row.
import { printOf } from '../python.js';
import { closeness, maxAbsDiff } from '../explain.js';
import { capital, sizes, theQuery } from './words.js';

export default {
  id: 'all-weights',
  section: '3.3.2',
  title: 'Softmax along every row',
  prose: [
    'Each row of the score table belongs to one query, so each row is normalised on its own. `dim=1` says that ' +
      'softmax runs across the columns: along a row, and for a 2-D tensor that is also the last dimension, `dim=-1`.',
    'Hover over a weight: its take-apart uses only the scores of its own row.',
  ],
  formula: (s) => String.raw`\alpha_{ij} = \frac{e^{\omega_{ij}}}{\sum_{k=1}^{${sizes(s).n}} e^{\omega_{ik}}}`,
  code: ['attn_weights = torch.softmax(attn_scores, dim=1)', printOf('attn_weights', 'attn_weights')],
  highlight: [0],
  show: ['attn_weights'],
  mistakes: [
    {
      id: 'softmax-dim0',
      question: 'the softmax ran over dim=0?',
      right: 'attn_weights',
      wrong: 'mistake_softmax_dim0',
      code: { right: 'torch.softmax(attn_scores, dim=-1)', wrong: 'torch.softmax(attn_scores, dim=0)' },
      why: () =>
        'dim=0 normalises down each column, so the columns sum to 1 and the rows do not: a query’s weights no longer ' +
        'form a distribution over the tokens. Because `inputs @ inputs.T` is symmetric, the result is exactly the ' +
        'right weights transposed, which makes the slip easy to miss; with trainable weights it is not even that.',
    },
  ],
  note: (r, s) => {
    const { x, nth, row } = theQuery(s);
    return `${capital(`the ${nth} row`)} and the weights of ${x} computed on their own are ` +
      `${closeness(maxAbsDiff(r.attn_weights.values[row], r.attn_weights_2.values))}.`;
  },
};
