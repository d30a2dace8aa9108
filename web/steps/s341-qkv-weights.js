// 3.4.1 — the three trainable matrices, drawn from a seeded generator.
import { printOf } from '../python.js';
export default {
  id: 'qkv-weights',
  section: '3.4.1',
  title: 'Three weight matrices',
  prose: [
    'Self-attention in GPT-like models does not compare the embeddings directly. It first projects each input ' +
      'into three roles with three weight matrices: a query (what this token looks for), a key (what it offers to ' +
      'be matched against) and a value (what it passes on when attended to).',
    'Each matrix is d_in × d_out, inputs dimension by output dimension (3 × 2 with the book’s settings). Training ' +
      'would learn them; here they are filled by `torch.rand` right after `torch.manual_seed`, so every run draws ' +
      'the same numbers. `requires_grad=False` only keeps gradients out of this walk-through.',
    'Hover over an entry to see which draw of the generator it is and how a 32-bit random word becomes a number ' +
      'in [0, 1).',
  ],
  formula: String.raw`\mathbf{W}_q,\; \mathbf{W}_k,\; \mathbf{W}_v \in \mathbb{R}^{d_\text{in} \times d_\text{out}}`,
  code: (s) => [
    `d_in, d_out = inputs.shape[1], ${s.d_out}`,
    `torch.manual_seed(${s.seed})`,
    'W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
    'W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
    'W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
    printOf('W_query', 'W_query'),
    printOf('W_key', 'W_key'),
    printOf('W_value', 'W_value'),
  ],
  highlight: [1, 2, 3, 4],
  show: ['W_query', 'W_key', 'W_value'],
  controls: ['seed', 'd_out'],
  note: (r, s) => {
    const [d_in, d_out] = r.W_query.shape;
    return `After torch.manual_seed(${s.seed}), the three matrices take draws 1–${3 * d_in * d_out} in row-major ` +
      `order: W_query first, then W_key, then W_value (${d_in * d_out} each).`;
  },
};
