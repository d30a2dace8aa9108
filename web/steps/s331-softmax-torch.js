// 3.3.1 — the softmax PyTorch actually computes.
import { printOf } from '../python.js';
import { closeness, fmt, maxAbsDiff } from '../explain.js';

export default {
  id: 'softmax-torch',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: 'PyTorch’s softmax',
  prose: [
    '`torch.softmax` computes the same function, but first subtracts the largest score from every score. The ' +
      'shift multiplies the top and the bottom of the fraction by the same factor, so the weights do not change, ' +
      'and now the largest exponential is exp(0) = 1: nothing can overflow.',
    '`dim=0` names the dimension that must sum to 1; a 1-D tensor has only that one. Hover over a weight to see ' +
      'the maximum, the shifted exponential and the sum.',
  ],
  formula: String.raw`\operatorname{softmax}(\boldsymbol{\omega})_i = \frac{e^{\omega_i - m}}{\sum_{j} e^{\omega_j - m}}, \quad m = \max_j \omega_j`,
  code: [
    'attn_weights_2 = torch.softmax(attn_scores_2, dim=0)',
    printOf('attn_weights_2', 'attn_weights_2'),
    printOf('attn_weights_2_sum', 'attn_weights_2.sum()'),
  ],
  highlight: [0, 2],
  show: ['attn_weights_2', 'attn_weights_2_sum'],
  note: (r) =>
    `The weights add up to ${fmt(r.attn_weights_2_sum.values)}. Compared with the hand-written softmax they are ` +
    `${closeness(maxAbsDiff(r.attn_weights_2.values, r.attn_weights_2_naive.values))}.`,
};
