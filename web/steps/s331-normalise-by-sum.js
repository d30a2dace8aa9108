// 3.3.1 — the simplest normalisation.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';
import { allOf, sizes, theQuery } from './words.js';

export default {
  id: 'normalise-by-sum',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: 'Normalising by the sum',
  prose: [
    (s) => 'To mix vectors with the scores we want weights: numbers that are not negative and add up to 1, so that ' +
      `the mix is an average. The simplest way is to divide each score by the sum of ${allOf(sizes(s).n, 'score')}.`,
    'This keeps the ratios between scores exactly as they are. It only gives sensible weights when every score is ' +
      'positive, as with the book’s embeddings; a negative score would become a negative weight. Hover over a ' +
      'weight to see its division.',
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\alpha_{${q}i} = \frac{\omega_{${q}i}}{\sum_{j=1}^{${sizes(s).n}} \omega_{${q}j}}`; },
  code: [
    'attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()',
    printOf('attn_weights_2_tmp', 'attn_weights_2_tmp'),
    printOf('attn_weights_2_tmp_sum', 'attn_weights_2_tmp.sum()'),
  ],
  highlight: [0, 2],
  show: ['attn_weights_2_tmp', 'attn_weights_2_tmp_sum'],
  note: (r) => {
    const negative = r.attn_scores_2.values.filter((v) => v < 0).length;
    const sum = `The weights add up to ${fmt(r.attn_weights_2_tmp_sum.values)}.`;
    return negative ? `${sum} ${negative} of the scores are negative, so are those weights: softmax avoids that.` : sum;
  },
};
