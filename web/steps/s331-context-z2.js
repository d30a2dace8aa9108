// 3.3.1 — the weighted sum that gives attention its output.
import { fmt } from '../explain.js';

export default {
  id: 'context-z2',
  section: '3.3.1',
  title: 'The context vector z(2)',
  prose: [
    'The context vector z(2) is the sum of all six input vectors, each multiplied by its attention weight for the ' +
      'query x(2). It is a new representation of the second token that blends in the tokens it attends to most.',
    'Because the weights are positive and add up to 1, z(2) is a weighted average: each of its features lies ' +
      'between the smallest and the largest value of that feature among the inputs. The picture shows the inputs ' +
      'beside the result; hover over a feature of z(2) to see its six products.',
  ],
  formula: String.raw`\mathbf{z}^{(2)} = \sum_{i=1}^{6} \alpha_{2i} \, \mathbf{x}^{(i)}`,
  code: [
    'context_vec_2 = torch.zeros(query.shape)',
    'for i, x_i in enumerate(inputs):',
    '    context_vec_2 += attn_weights_2[i] * x_i',
  ],
  highlight: [0, 2],
  show: ['attn_weights_2', 'context_vec_2'],
  view: 'context',
  note: (r, s) => {
    const w = r.attn_weights_2.values;
    const top = w.indexOf(Math.max(...w));
    return `The largest weight, ${fmt(w[top])}, belongs to “${s.tokens[top]}”, so its embedding pulls hardest on z(2).`;
  },
};
