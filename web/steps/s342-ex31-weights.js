// 3.4.2, Exercise 3.1 — two fresh modules with different initialisations.
import { printOf } from '../python.js';
import { sizes } from './words.js';
export default {
  id: 'ex31-weights',
  section: '3.4.2',
  title: 'Exercise 3.1: one module of each kind',
  prose: [
    'The two classes should compute the same function and differ only in how their weights start. To check, ' +
      'the exercise builds one module of each kind, the v2 one with biases, and then copies v2’s weights into v1.',
    'The entries show the two initialisations side by side: v2’s weights and biases lie within ±1/√3 ≈ ±0.577, ' +
      'v1’s in [0, 1).',
    'The book’s printout of this cell comes from a notebook history: the cell had already run once, after ' +
      '`sa_v1` and before the seed-789 cell, so with the book’s settings its numbers are draws 61 onward after ' +
      '`torch.manual_seed(123)`. The page replays that history to print the same weights; hover over an entry to ' +
      'see its draw number.',
  ],
  formula: (s) => String.raw`\mathbf{W}^{\text{v2}} \sim \mathcal{U}\!\left(\pm\tfrac{1}{\sqrt{${sizes(s).d}}}\right), \quad \mathbf{W}^{\text{v1}} \sim \mathcal{U}[0, 1)`,
  code: (s) => [
    '# the book printed this cell’s second run: replay sa_v1 and the first run',
    `torch.manual_seed(${s.seed})`,
    'SelfAttention_v1(d_in, d_out)',
    'SelfAttention_v2(d_in, d_out, qkv_bias=True); SelfAttention_v1(d_in, d_out)',
    'attention_v2 = SelfAttention_v2(d_in, d_out, qkv_bias=True)',
    'attention_v1 = SelfAttention_v1(d_in, d_out)',
    printOf('ex31_v2_W_query', 'attention_v2.W_query.weight'),
    printOf('ex31_v2_bias', 'attention_v2.W_query.bias'),
    printOf('ex31_v1_W_query', 'attention_v1.W_query'),
  ],
  highlight: [4, 5],
  show: ['ex31_v2_W_query', 'ex31_v2_bias', 'ex31_v1_W_query'],
  controls: ['seed', 'd_out'],
};
