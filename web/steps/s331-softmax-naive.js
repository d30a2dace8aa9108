// 3.3.1 — softmax from its definition.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';

// The largest score's weight by the two normalisations.
function largest(r) {
  const scores = r.attn_scores_2.values;
  const best = scores.indexOf(Math.max(...scores));
  return { best, byTheSum: r.attn_weights_2_tmp.values[best], bySoftmax: r.attn_weights_2_naive.values[best] };
}

export default {
  id: 'softmax-naive',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: 'Softmax, written out by hand',
  prose: [
    'Softmax normalises with exponentials: every score becomes exp(ω), and each of those is divided by their sum. ' +
      'An exponential is always positive, so every weight is positive whatever the sign of the scores. And since ' +
      'exp(a) / exp(b) = exp(a − b), the weights depend on the differences between scores, not on their ratios.',
    'Softmax is also smooth, which matters when a model learns through gradients. Hover over a weight to see its ' +
      'exponential and the sum.',
    'This direct formula has a weakness: exp(89) already exceeds the largest float32, so large scores overflow to ' +
      'infinity. For these small scores it is fine.',
  ],
  formula: String.raw`\operatorname{softmax}(\boldsymbol{\omega})_i = \frac{e^{\omega_i}}{\sum_{j} e^{\omega_j}}`,
  code: [
    'def softmax_naive(x):',
    '    return torch.exp(x) / torch.exp(x).sum(dim=0)',
    'attn_weights_2_naive = softmax_naive(attn_scores_2)',
    printOf('attn_weights_2_naive', 'attn_weights_2_naive'),
    printOf('attn_weights_2_naive_sum', 'attn_weights_2_naive.sum()'),
  ],
  highlight: [2, 4],
  show: ['attn_weights_2_naive', 'attn_weights_2_naive_sum'],
  predict: {
    id: 'softmax-largest',
    kind: 'choice',
    question: (r) => {
      const { best, byTheSum } = largest(r);
      return `Dividing by the sum gave the largest score, ${fmt(r.attn_scores_2.values[best])}, the weight ${fmt(byTheSum)}. ` +
        'Softmax divides exp(ω) by the sum of the exponentials instead: will that weight come out larger, the same or smaller?';
    },
    options: () => [{ value: 'larger', label: 'larger' }, { value: 'same', label: 'about the same' }, { value: 'smaller', label: 'smaller' }],
    hides: ['attn_weights_2_naive'],
    verdict: (guess, r) => {
      const { best, byTheSum, bySoftmax } = largest(r);
      const scores = r.attn_scores_2.values;
      const answer = Math.abs(bySoftmax - byTheSum) < 5e-4 ? 'same' : bySoftmax > byTheSum ? 'larger' : 'smaller';
      const spread = Math.max(...scores) - Math.min(...scores);
      const why = answer === 'larger'
        ? `exp turns a difference d between two scores into a factor e^d, so softmax stretches the gaps: the largest score takes a bigger share, and a score far above the rest would take nearly all of it.`
        : `Softmax sees only the differences between scores, and here they are small (the largest is ${fmt(spread)} above the smallest): e^d stays close to 1, so the weights come out nearer to an even share than the ratios of the scores gave.`;
      return { right: guess === answer, text: `Softmax gives it ${fmt(bySoftmax)} (dividing by the sum gave ${fmt(byTheSum)}). ${why}` };
    },
  },
  note: (r) => `The weights add up to ${fmt(r.attn_weights_2_naive_sum.values)}.`,
};
