// 3.6.2 — the batched product, one head at a time.
import { printOf } from '../python.js';
import { py } from '../explain.js';

export default {
  id: 'bmm-per-head',
  section: '3.6.2',
  title: 'The same products, one head at a time',
  prose: [
    'Taking each head’s 3 × 4 matrix out by indexing and multiplying it by its own transpose gives exactly the ' +
      'two tables of the previous step. The batched product is this loop over heads, run inside one call, which ' +
      'is faster, especially on a GPU.',
    'Hover over a cell to compare its dot product with the same cell of the batched result.',
  ],
  formula: String.raw`\mathbf{R}_h = \mathbf{a}_{0,h} \, \mathbf{a}_{0,h}^\top, \quad h = 0, 1`,
  code: [
    'first_head = a[0, 0, :, :]',
    'first_res = first_head @ first_head.T',
    'second_head = a[0, 1, :, :]',
    'second_res = second_head @ second_head.T',
    printOf('bmm_first_head', 'first_res'),
    printOf('bmm_second_head', 'second_res'),
  ],
  highlight: [1, 3],
  show: ['bmm_first_head', 'bmm_second_head'],
  equivalence: {
    title: 'one batched matmul, and one matmul per head',
    left: { code: 'a @ a.transpose(2, 3)', values: (r) => r.bmm_out.values },
    right: { code: '[first_res, second_res]', values: (r) => [[r.bmm_first_head.values, r.bmm_second_head.values]] },
    same: 'A batched matmul runs the ordinary matrix product once per (batch, head) pair: the same products summed ' +
      'in the same order, so every bit agrees.',
    differ: 'The batched product splits its work differently from the one-head products, and float32 rounds each ' +
      'partial sum, so the last bits can differ.',
  },
  note: (r) => `Both tables equal the two heads of a @ a.transpose(2, 3): torch.allclose → ${py(r.bmm_heads_equal.value)}.`,
};
