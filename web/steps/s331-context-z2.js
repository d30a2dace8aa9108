// 3.3.1 — the weighted sum that gives attention its output.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';
import { allOf, sizes } from './words.js';

export default {
  id: 'context-z2',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: 'The context vector z(2)',
  prose: [
    (s) => `The context vector z(2) is the sum of ${allOf(sizes(s).n, 'input vector')}, each multiplied by its attention weight for the ` +
      'query x(2). It is a new representation of the second token that blends in the tokens it attends to most.',
    (s) => 'Because the weights are positive and add up to 1, z(2) is a weighted average: each of its features lies ' +
      'between the smallest and the largest value of that feature among the inputs. The picture shows the inputs ' +
      `beside the result; hover over a feature of z(2) to see its product${sizes(s).n === 1 ? '' : 's'}.`,
  ],
  formula: (s) => String.raw`\mathbf{z}^{(2)} = \sum_{i=1}^{${sizes(s).n}} \alpha_{2i} \, \mathbf{x}^{(i)}`,
  code: [
    'context_vec_2 = torch.zeros(query.shape)',
    'for i, x_i in enumerate(inputs):',
    '    context_vec_2 += attn_weights_2[i] * x_i',
    printOf('attn_weights_2', 'attn_weights_2'),
    printOf('context_vec_2', 'context_vec_2'),
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
