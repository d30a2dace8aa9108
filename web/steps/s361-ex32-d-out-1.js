// 3.6.1, Exercise 3.2 — a narrower output with the same number of heads.
import { biasArg, contextLengthArg, printOf } from '../python.js';
import { counted } from './words.js';
import { SETTINGS } from '../state.js';
export default {
  id: 'ex32-d-out-1',
  section: '3.6.1',
  title: 'Exercise 3.2: two heads, two numbers per token',
  prose: [
    'The exercise asks for 2-dimensional context vectors while keeping two heads. Which arguments of ' +
      '`MultiHeadAttentionWrapper` give that, and does the class need a change?',
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
  exercise: {
    id: 'ex32',
    title: 'Exercise 3.2: your arguments',
    task: () => 'Type num_heads and d_out; Check builds MultiHeadAttentionWrapper(d_in, d_out, context_length, 0.0, num_heads) in the core and runs it on the batch.',
    fields: [
      { name: 'heads', kind: 'number', label: 'num_heads' },
      { name: 'd_out', kind: 'number', label: 'd_out' },
    ],
    check: (answer, r) => {
      const [heads, d_out] = [answer.heads, answer.d_out].map((text) => (/^\s*\d+\s*$/.test(text) ? Number(text) : NaN));
      // the sizes the settings take
      for (const [name, v, [lo, hi]] of [['num_heads', heads, SETTINGS.heads.limits], ['d_out', d_out, SETTINGS.d_out.limits]]) {
        if (!(v >= lo && v <= hi)) return { solved: false, text: `${name} must be a whole number from ${lo} to ${hi} here.` };
      }
      const tried = r.ex32_try.value({ heads, d_out });
      if (tried.error) return { solved: false, text: `The core refuses: “${tried.error}”.` };
      const width = tried.shape.at(-1);
      const shape = `context_vecs.shape = [${tried.shape.join(', ')}]`;
      if (width !== 2) return { solved: false, text: `${shape}: ${heads} × ${d_out} = ${width} numbers per token, not 2.` };
      if (heads !== 2) return { solved: false, text: `${shape}: 2 numbers per token, but from ${heads} head${heads === 1 ? '' : 's'}; the exercise keeps num_heads = 2.` };
      return { solved: true, text: `${shape}: 2 heads × d_out 1 = 2 numbers per token, and the class is unchanged.` };
    },
    solution: () => 'd_out = 1 with num_heads = 2. The output width is num_heads × d_out, so the class needs no change: give each head d_out = 1.',
    hides: ['wrapper_out_d1'],
    hidesAlso: ['figure.code', '.formula', '.step-note'],
  },
  controls: ['heads', 'seed', 'qkv_bias'],
  note: (r, s) => `context_vecs.shape = [${r.wrapper_out_d1.shape.join(', ')}]: ${s.heads} × 1 = ${counted(r.wrapper_out_d1.shape[2], 'column')}.`,
};
