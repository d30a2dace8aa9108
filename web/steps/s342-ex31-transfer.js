// 3.4.2, Exercise 3.1 — copying the weights makes the two classes agree.
import { printAlso, printOf } from '../python.js';
import { closeness, maxAbsDiff, py } from '../explain.js';

export default {
  id: 'ex31-transfer',
  section: '3.4.2',
  title: 'Exercise 3.1: transfer the weights',
  prose: [
    '`nn.Linear` keeps its weight transposed, so v1’s d_in × d_out matrix is v2’s weight with rows and columns ' +
      'swapped: `.T`. v1 has no biases, so v2’s are set to zero; otherwise v2 would add something v1 cannot.',
    'After the copy, both modules run the same operations on the same numbers, and their outputs agree. Hover ' +
      'over a copied entry to see where it came from, or over an output cell for its weighted sum.',
  ],
  formula: String.raw`\mathbf{W}^{\text{v1}}_q = \left(\mathbf{W}^{\text{v2}}_q\right)^{\!\top}, \quad \mathbf{b}^{\text{v2}} = \mathbf{0}`,
  code: [
    'def transfer_weights(v2, v1):',
    "    for name in ('W_query', 'W_key', 'W_value'):",
    '        getattr(v1, name).data = getattr(v2, name).weight.T.detach().clone()',
    '        getattr(v2, name).bias.data.zero_()',
    '',
    'transfer_weights(attention_v2, attention_v1)',
    'output_v2, output_v1 = attention_v2(inputs), attention_v1(inputs)',
    printOf('ex31_v1_after', 'attention_v1.W_query'),
    printOf('ex31_out_v2', 'output_v2'),
    printOf('ex31_out_v1', 'output_v1'),
    printAlso('torch.allclose(output_v2, output_v1, atol=1e-6)'),
  ],
  highlight: [5, 6, 10],
  show: ['ex31_v1_after', 'ex31_out_v2', 'ex31_out_v1'],
  equivalence: {
    title: 'SelfAttention_v1 with v2’s weights, and SelfAttention_v2',
    left: { code: 'attention_v2(x)', values: (r) => r.ex31_out_v2.values },
    right: { code: 'attention_v1(x)', values: (r) => r.ex31_out_v1.values },
    same: 'v1 multiplies x by W = weight.T; v2’s nn.Linear multiplies x by weight.T too. The core runs the same ' +
      'products summed in the same order for both, so not even the last bit differs.',
    differ: 'The two classes compute the same products, but their matrix products sum them in a different order, and ' +
      'float32 rounds each partial sum: the results may part in the last bits, far below what allclose tolerates.',
  },
  note: (r) =>
    `torch.allclose(output_v2, output_v1, atol=1e-6) → ${py(r.ex31_equal.value)}: the outputs are ` +
    `${closeness(maxAbsDiff(r.ex31_out_v2.values, r.ex31_out_v1.values))}.`,
};
