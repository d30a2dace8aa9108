// 3.4.2, Exercise 3.1 — copying the weights makes the two classes agree.
import { printAlso, printOf } from '../python.js';
import { closeness, fmt, maxAbsDiff, py } from '../explain.js';

export default {
  id: 'ex31-transfer',
  section: '3.4.2',
  title: 'Exercise 3.1: transfer the weights',
  prose: [
    'The two classes should compute the same function. Copy `attention_v2`’s weights into `attention_v1` so that ' +
      'both give the same outputs: what has to happen to each weight on the way, and to v2’s biases?',
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
  exercise: {
    id: 'ex31',
    title: 'Exercise 3.1: your transfer',
    task: () => 'Complete the loop; Check builds the two modules in the core, runs your transfer and compares their outputs. ' +
      'Or write the whole function in the notebook (the link at the end of this step).',
    fields: [
      {
        name: 'weight',
        kind: 'select',
        before: 'getattr(attention_v1, name).data = getattr(attention_v2, name)',
        label: 'the weight as v1 takes it',
        options: [{ value: 'weight', label: '.weight' }, { value: 'weight.T', label: '.weight.T' }],
      },
      { name: 'zeroBias', kind: 'checkbox', label: 'getattr(attention_v2, name).bias.data.zero_()' },
    ],
    check: ({ weight, zeroBias }, r) => {
      const transpose = weight === 'weight.T';
      const tried = r.ex31_try.value({ transpose, zeroBias });
      if (tried.error) {
        return { solved: false, text: `The core refuses the copy: “${tried.error}”. nn.Linear stores its weight as d_out × d_in, the other way round from v1’s d_in × d_out.` };
      }
      if (tried.same) return { solved: true, text: `torch.allclose(output_v2, output_v1, atol=1e-6) → True: the outputs differ by at most ${fmt(tried.maxDiff)}.` };
      const why = !zeroBias
        ? 'v2 still adds its biases, which v1 does not have.'
        : 'The shapes fit (d_in = d_out), but v1 multiplies by its matrix as stored: it needs the transpose of nn.Linear’s weight.';
      return { solved: false, text: `The outputs differ by up to ${fmt(tried.maxDiff)}: ${why}` };
    },
    solution: () => '`.weight.T`, and zero v2’s biases. nn.Linear keeps its weight transposed, so v1’s d_in × d_out matrix is ' +
      'v2’s weight with rows and columns swapped; v1 has no biases, so v2’s are set to zero, otherwise v2 would add something v1 cannot.',
    hides: ['ex31_v1_after', 'ex31_out_v2', 'ex31_out_v1'],
    hidesAlso: ['figure.code', '.formula', '.step-note', '.equivalence'],
  },
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
