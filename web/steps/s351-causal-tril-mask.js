// 3.5.1 — a mask of ones and zeros.
import { printOf } from '../python.js';
import { counted } from './words.js';
export default {
  id: 'causal-tril-mask',
  section: '3.5.1',
  title: 'A lower-triangular mask',
  prose: [
    '`torch.tril` keeps the lower triangle of a matrix, diagonal included, and zeroes the rest. On a matrix of ' +
      'ones it gives the mask we need: 1 where column j ≤ row i (a token may see itself and the tokens before it), ' +
      '0 above the diagonal (a later token).',
    'Hover over a cell to see why it holds a 1 or a 0.',
  ],
  formula: String.raw`M_{ij} = \begin{cases} 1 & j \le i \\ 0 & j > i \end{cases}`,
  code: [
    'context_length = attn_scores.shape[0]',
    'mask_simple = torch.tril(torch.ones(context_length, context_length))',
    printOf('mask_simple', 'mask_simple'),
  ],
  highlight: [1],
  show: ['mask_simple'],
  predict: {
    id: 'mask-zeros',
    kind: 'number',
    question: (r) => `The mask is ${r.mask_simple.shape.join(' × ')}. How many of its cells will be 0, hiding a token from a query?`,
    unit: 'Cells set to 0',
    hides: ['mask_simple'],
    verdict: (guess, r) => {
      const n = r.mask_simple.shape[0];
      const zeros = r.mask_simple.values.flat().filter((v) => v === 0).length;
      const perRow = Array.from({ length: n }, (_, i) => n - 1 - i);
      const yours = guess === null || guess === zeros ? '' : ` (you said ${guess})`;
      return {
        right: guess === zeros,
        text: `${counted(zeros, 'cell')} are 0${yours}: row i hides the tokens after token i, ${perRow.join(' + ')} = n(n − 1)/2 with n = ${n}. ` +
          'They are the cells above the diagonal, each query’s future; the diagonal stays, as a token may attend to itself.',
      };
    },
  },
};
