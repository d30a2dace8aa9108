// 3.3.1 — the weighted sum that gives attention its output.
import { printOf } from '../python.js';
import { fmt } from '../explain.js';
import { allOf, sizes, theQuery } from './words.js';

export default {
  id: 'context-z2',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: (s) => `The context vector z(${theQuery(s).i})`,
  prose: [
    (s) => `The context vector z(${theQuery(s).i}) is the sum of ${allOf(sizes(s).n, 'input vector')}, each multiplied by its attention weight for the ` +
      `query ${theQuery(s).x}. It is a new representation of the ${theQuery(s).nth} token that blends in the tokens it attends to most.`,
    (s) => `Because the weights are positive and add up to 1, z(${theQuery(s).i}) is a weighted average: each of its features lies ` +
      'between the smallest and the largest value of that feature among the inputs. The picture shows the inputs, ' +
      `each with its weight, beside the result; hover over a feature of z(${theQuery(s).i}) to see its product${sizes(s).n === 1 ? '' : 's'}.`,
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\mathbf{z}^{(${q})} = \sum_{i=1}^{${sizes(s).n}} \alpha_{${q}i} \, \mathbf{x}^{(i)}`; },
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
  weights: 'attn_weights_2', // drawn beside each input in the picture
  context: 'context_vec_2', // the picture's result, beside the inputs
  note: (r, s) => {
    const w = r.attn_weights_2.values;
    const top = w.indexOf(Math.max(...w));
    return `The largest weight, ${fmt(w[top])}, belongs to “${s.tokens[top]}”, so its embedding pulls hardest on z(${theQuery(s).i}).`;
  },
};
