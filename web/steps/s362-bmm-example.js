// 3.6.2 — what @ does with 4-D tensors.
import { printOf } from '../python.js';
import { BOOK_BMM_INPUT } from '../book.js';

// The example tensor as the book types it: [[[[...], aligned rows, 4 decimals.
function tensorLines(prefix, a) {
  const lines = [];
  a[0].forEach((head, h) =>
    head.forEach((row, r) => {
      const open = h === 0 && r === 0 ? `${prefix}[[[[` : r === 0 ? `${' '.repeat(prefix.length + 2)}[[` : `${' '.repeat(prefix.length + 3)}[`;
      const close = r < head.length - 1 ? '],' : h < a[0].length - 1 ? ']],' : ']]]])';
      lines.push(`${open}${row.map((v) => v.toFixed(4)).join(', ')}${close}`);
    }),
  );
  return lines;
}
export default {
  id: 'bmm-example',
  section: '3.6.2',
  title: 'Matrix products on 4-D tensors',
  prose: [
    'How can all heads compute their scores at once? On tensors with more than two dimensions, `@` multiplies ' +
      'the last two dimensions and treats all the others as a batch: one ordinary matrix product for every ' +
      '(batch, head) pair.',
    'The example tensor `a` has shape (1, 2, 3, 4): one text, two heads, three tokens, four numbers per head. ' +
      '`a.transpose(2, 3)` swaps the last two axes, so `a @ a.transpose(2, 3)` gives each head its own 3 × 3 ' +
      'table of dot products between its tokens. Hover over a cell to see its dot product.',
  ],
  formula: String.raw`(\mathbf{a}\mathbf{a}^\top)_{b,h} = \mathbf{a}_{b,h} \, \mathbf{a}_{b,h}^\top \quad\allowbreak \text{for every batch } b \text{ and head } h`,
  code: [
    ...tensorLines('a = torch.tensor(', BOOK_BMM_INPUT),
    printOf('bmm_a', 'a'),
    printOf('bmm_out', 'a @ a.transpose(2, 3)'),
  ],
  highlight: [7],
  show: ['bmm_a', 'bmm_out'],
  note: (r) => `[${r.bmm_a.shape.join(', ')}] @ [${[...r.bmm_a.shape.slice(0, 2), r.bmm_a.shape[3], r.bmm_a.shape[2]].join(', ')}] → [${r.bmm_out.shape.join(', ')}].`,
};
