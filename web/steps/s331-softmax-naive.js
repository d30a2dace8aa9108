// 3.3.1 — softmax from its definition.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';

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
  note: (r) => `The weights add up to ${fmt(r.attn_weights_2_naive_sum.values)}.`,
};
