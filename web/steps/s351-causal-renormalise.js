// 3.5.1 — dividing each row by its own sum.
import { printOf } from '../python.js';
export default {
  id: 'causal-renormalise',
  section: '3.5.1',
  title: 'Renormalise each row',
  prose: [
    'Dividing each row by its sum makes it a set of weights again. `keepdim=True` keeps the sums as a 6 × 1 ' +
      'column, so broadcasting divides every entry of row i by the sum of row i.',
    'This does not leak anything from the future. Each weight was e^ω divided by a sum over the whole row; ' +
      'dividing again by the visible part of the row replaces that denominator by a sum over the visible tokens ' +
      'only. The result is a softmax over the visible scores, as if the later tokens had never been there. Hover ' +
      'over a cell to see its division.',
  ],
  formula: String.raw`\tilde{\alpha}_{ij} = \frac{\alpha_{ij} M_{ij}}{\sum_{k} \alpha_{ik} M_{ik}} = \frac{e^{\omega_{ij}/\sqrt{d_k}}}{\sum_{k \le i} e^{\omega_{ik}/\sqrt{d_k}}} \quad (j \le i)`,
  code: [
    'row_sums = masked_simple.sum(dim=-1, keepdim=True)',
    'masked_simple_norm = masked_simple / row_sums',
    printOf('masked_simple_norm', 'masked_simple_norm'),
  ],
  highlight: [0, 1],
  show: ['masked_simple_norm'],
};
