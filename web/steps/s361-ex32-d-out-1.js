// 3.6.1, Exercise 3.2 — a narrower output with the same number of heads.
import { biasArg, contextLengthArg, printOf } from '../python.js';
import { counted } from './words.js';
export default {
  id: 'ex32-d-out-1',
  section: '3.6.1',
  title: 'Exercise 3.2: two heads, two columns',
  prose: [
    'The exercise asks for 2-dimensional context vectors while keeping two heads. The output width is ' +
      'num_heads × d_out, so the class needs no change: give each head d_out = 1.',
    'Each head now produces a single number per token. The numbers differ from the previous step because the ' +
      'random draws after the seed are spread over smaller matrices. Hover over a cell to see its head’s ' +
      'weighted sum.',
  ],
  formula: (s) => String.raw`\text{width} = \text{num\_heads} \times d_\text{out} = ${s.heads} \times 1`,
  code: (s) => [
    `torch.manual_seed(${s.seed})`,
    `mha = MultiHeadAttentionWrapper(d_in, 1, ${contextLengthArg(s)}, 0.0, num_heads=${s.heads}${biasArg(s)})`,
    'context_vecs = mha(batch)',
    printOf('wrapper_out_d1', 'context_vecs'),
  ],
  highlight: [1, 2],
  show: ['wrapper_out_d1'],
  controls: ['heads', 'seed', 'qkv_bias'],
  note: (r, s) => `context_vecs.shape = [${r.wrapper_out_d1.shape.join(', ')}]: ${s.heads} × 1 = ${counted(r.wrapper_out_d1.shape[2], 'column')}.`,
};
