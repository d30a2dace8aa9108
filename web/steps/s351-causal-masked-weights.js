// 3.5.1 — zeroing the weights above the diagonal.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';

export default {
  id: 'causal-masked-weights',
  section: '3.5.1',
  title: 'Zero out the future',
  prose: [
    'Multiplying the weights element by element with the mask sets everything above the diagonal to 0 and leaves ' +
      'the rest as it was. The first token now attends only to itself, the second to the first two, and so on.',
    'The rows no longer sum to 1, though: the share that went to later tokens is simply gone.',
  ],
  formula: String.raw`\mathbf{A}^{\text{masked}} = \mathbf{A} \odot \mathbf{M}`,
  code: ['masked_simple = attn_weights * mask_simple', printOf('masked_simple', 'masked_simple')],
  highlight: [0],
  show: ['masked_simple'],
  note: (r) => `Row sums now: ${r.masked_simple.values.map((row) => fmt(row.reduce((a, b) => a + b, 0))).join(', ')}.`,
};
