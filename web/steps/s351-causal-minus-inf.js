// 3.5.1 — masking the scores instead of the weights.
import { printOf } from '../python.js';
export default {
  id: 'causal-minus-inf',
  section: '3.5.1',
  title: 'The shortcut: −∞ before softmax',
  prose: [
    'Softmax, then mask, then renormalise computes exponentials only to throw them away. A shorter route masks ' +
      'the scores: fill every position above the diagonal with −∞ and apply softmax once. Since e^−∞ = 0, those ' +
      'positions get weight 0, and the others are normalised over the visible tokens alone.',
    'This mask comes from `torch.triu(..., diagonal=1)`: its 1s mark the positions to hide. `.bool()` turns it ' +
      'into the True/False tensor that `masked_fill` expects. Hover over a cell to see whether it was kept.',
  ],
  formula: String.raw`\omega^{\text{masked}}_{ij} = \begin{cases} \omega_{ij} & j \le i \\ -\infty & j > i \end{cases}`,
  code: [
    'mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)',
    'masked = attn_scores.masked_fill(mask.bool(), -torch.inf)',
    printOf('causal_mask', 'mask'),
    printOf('masked_scores', 'masked'),
  ],
  highlight: [0, 1],
  show: ['causal_mask', 'masked_scores'],
};
