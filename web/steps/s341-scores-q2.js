// 3.4.1 — the query against all keys at once.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';
import { allOf, sizes, theQuery } from './words.js';

export default {
  id: 'scores-q2',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: (s) => `All scores of ${theQuery(s).x}`,
  prose: [
    (s) => `Scoring the query against ${allOf(sizes(s).n, 'key')} is one vector–matrix product with the transposed keys: column i of ` +
      `\`keys.T\` is the key of token i, so entry i of the result is q(${theQuery(s).i}) · k(i).`,
    'Hover over a score to see its dot product.',
  ],
  formula: (s) => String.raw`\boldsymbol{\omega}_${theQuery(s).i} = \mathbf{q}^{(${theQuery(s).i})} \mathbf{K}^\top`,
  code: ['attn_scores_2 = query_2 @ keys.T', printOf('attn_scores_2_qk', 'attn_scores_2')],
  highlight: [0],
  show: ['attn_scores_2_qk'],
  mistakes: [
    {
      id: 'scores-from-values',
      question: 'the scores used the values instead of the keys?',
      right: 'attn_scores_2_qk',
      wrong: 'mistake_scores_from_values',
      code: { right: 'query_2 @ keys.T', wrong: 'query_2 @ values.T' },
      why: () =>
        'Keys and values have the same shape, so nothing fails: the code runs and gives other numbers. The keys are ' +
        'what a query is compared with; the values are what gets mixed into the context vector. W_key and W_value ' +
        'are drawn separately, so the scores, and every weight after them, change.',
    },
  ],
  // with a single word the query is x(1), the only entry
  note: (r, s) => {
    const { i, nth, row } = theQuery(s);
    return `The ${s.tokens.length === 1 ? 'only' : nth} entry, ${fmt(r.attn_scores_2_qk.values[row])}, is ω${i}${i} from the previous step (${fmt(r.attn_score_22.values)}).`;
  },
};
