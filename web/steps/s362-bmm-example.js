// 3.6.2 — what @ does with 4-D tensors.
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
    'a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],',
    '                    [0.8993, 0.0390, 0.9268, 0.7388],',
    '                    [0.7179, 0.7058, 0.9156, 0.4340]],',
    '                   [[0.0772, 0.3565, 0.1479, 0.5331],',
    '                    [0.4066, 0.2318, 0.4545, 0.9737],',
    '                    [0.4606, 0.5159, 0.4220, 0.5786]]]])',
    'a @ a.transpose(2, 3)',
  ],
  highlight: [6],
  show: ['bmm_a', 'bmm_out'],
  note: (r) => `[${r.bmm_a.shape.join(', ')}] @ [${[...r.bmm_a.shape.slice(0, 2), r.bmm_a.shape[3], r.bmm_a.shape[2]].join(', ')}] → [${r.bmm_out.shape.join(', ')}].`,
};
