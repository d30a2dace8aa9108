// 3.3.1 — the input every later step starts from.
import { inputsLines, printOf } from '../python.js';
import { count, counted, plural, sizes, capital } from './words.js';

export default {
  id: 'embeddings',
  section: '3.3.1',
  title: (s) => {
    const { n, d } = sizes(s);
    return capital(`${plural(n, 'token')}, ${n === 1 ? 'one' : count(n)} ${d}-D vector${n === 1 ? '' : 's'}`);
  },
  prose: [
    (s) => {
      const { n, d } = sizes(s);
      const book = n === 6 && d === 3 ? 'in the book: “Your journey starts with one step”' : 'the book uses six tokens of three numbers: “Your journey starts with one step”';
      return `The input is a short text of ${plural(n, 'token')} (${book}). Each token is represented by its embedding, ` +
        `a vector of ${plural(d, 'number')}, and the vectors stacked as rows form \`inputs\`, a ${n} × ${d} tensor.`;
    },
    (s) =>
      `${capital(plural(sizes(s).d, 'dimension'))} per token, against GPT-2’s 768: few enough to keep every number on screen. ` +
      (s.inputs === 'typed'
        ? 'The values are typed in for the example; in a trained model they come from an embedding layer.'
        : `Here they are drawn by torch.${s.inputs} after torch.manual_seed(${s.inputSeed}); in a trained model they come from an embedding layer.`),
    'The bars draw each token’s features next to each other, so tokens that point in a similar direction ' +
      'are easy to spot. In the settings you can add and remove words, change d_in, type the numbers or draw them ' +
      'with torch.rand or torch.randn: every later step is recomputed from them, and the code below follows.',
  ],
  formula: (s) => {
    const { n, d } = sizes(s);
    const rows = n === 1 ? String.raw`\mathbf{x}^{(1)}` : String.raw`\mathbf{x}^{(1)} \\ \vdots \\ \mathbf{x}^{(${n})}`;
    return String.raw`\mathbf{X} = \begin{bmatrix} ${rows} \end{bmatrix} \in \mathbb{R}^{${n} \times ${d}}`;
  },
  code: (s) => [...inputsLines(s), printOf('inputs', 'inputs')],
  highlight: 'all',
  show: ['inputs'],
  view: 'embeddings',
  controls: ['tokens', 'embeddings'],
  note: (r) => `inputs.shape = [${r.inputs.shape.join(', ')}]: ${counted(r.inputs.shape[0], 'token')}, ${counted(r.inputs.shape[1], 'feature')} each.`,
};
