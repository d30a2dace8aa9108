// 3.6.1 — several causal attention heads, concatenated.
import { biasArg, contextLengthArg, printOf } from '../python.js';
import { counted } from './words.js';
export default {
  id: 'wrapper',
  section: '3.6.1',
  title: 'Several heads side by side',
  prose: [
    'Multi-head attention runs several causal attention modules, called heads, on the same input. Each head has ' +
      'its own weight matrices, so each can learn to attend to a different kind of relation between tokens. ' +
      'Their context vectors are concatenated along the last dimension.',
    (s) => `The output therefore has num_heads × d_out columns, ${s.heads} × ${s.d_out} = ${s.heads * s.d_out} here: ` +
      'the first d_out columns come from head 0, the next d_out from head 1, and so on. The column labels name ' +
      'the head; take a cell apart to see that head’s weighted sum.',
    'This wrapper runs the heads one after another. Section 3.6.2 computes them all in one go.',
  ],
  formula: String.raw`\operatorname{MultiHead}(\mathbf{X}) = \left[\, \mathbf{Z}_1 \;\middle|\; \mathbf{Z}_2 \;\middle|\; \cdots \;\middle|\; \mathbf{Z}_{n_h} \,\right]`,
  code: (s) => [
    'class MultiHeadAttentionWrapper(nn.Module):',
    '    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):',
    '        super().__init__()',
    '        self.heads = nn.ModuleList(',
    '            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])',
    '',
    '    def forward(self, x):',
    '        return torch.cat([head(x) for head in self.heads], dim=-1)',
    '',
    `torch.manual_seed(${s.seed})`,
    `mha = MultiHeadAttentionWrapper(d_in, d_out, ${contextLengthArg(s)}, 0.0, num_heads=${s.heads}${biasArg(s)})`,
    'context_vecs = mha(batch)',
    printOf('wrapper_out', 'context_vecs'),
  ],
  highlight: [9, 10, 11],
  show: ['wrapper_out'],
  predict: {
    id: 'wrapper-width',
    kind: 'number',
    question: (r, s) => `The wrapper runs ${s.heads} CausalAttention head${s.heads === 1 ? '' : 's'}, each with d_out = ${s.d_out}. ` +
      'How many numbers will each token’s output vector have (context_vecs.shape[-1])?',
    unit: 'Output width',
    hides: ['wrapper_out'],
    hidesAlso: ['.step > .prose:not(.lede)'], // it works the width out
    verdict: (guess, r, s) => {
      const width = r.wrapper_out.shape.at(-1);
      return {
        right: guess === width,
        text: `context_vecs.shape = [${r.wrapper_out.shape.join(', ')}]${guess !== null && guess !== width ? ` (you said ${guess})` : ''}: torch.cat lays the heads’ outputs ` +
          `side by side along the last dimension, ${s.heads} × ${s.d_out} = ${width}; the batch and the tokens keep their sizes.`,
      };
    },
  },
  equivalence: {
    title: 'the wrapper’s heads, and one MultiHeadAttention with their weights',
    left: { code: 'MultiHeadAttentionWrapper(...)(batch)', values: (r) => r.wrapper_out.values },
    right: {
      code: 'MultiHeadAttention with W_query = cat(heads’ W_query), …, out_proj = identity',
      values: (r) => r.wrapper_as_mha.values,
    },
    same: 'Give one MultiHeadAttention the heads’ weights stacked (head h owns its own block of columns) and an ' +
      'identity out_proj, and it computes each head exactly as CausalAttention does: one batched matmul instead of a ' +
      'loop over heads, with the same sums in the same order.',
    differ: 'The batched product and the loop over heads compute the same sums, but here not in the same order, and ' +
      'float32 rounds each partial sum; the identity out_proj adds one more multiplication by 1 and an addition of 0, ' +
      'which cannot change a value.',
  },
  controls: ['heads', 'd_out', 'seed', 'qkv_bias'],
  note: (r, s) =>
    `context_vecs.shape = [${r.wrapper_out.shape.join(', ')}]: ${s.heads} head${s.heads === 1 ? '' : 's'} × ` +
    `d_out ${s.d_out} = ${counted(r.wrapper_out.shape[2], 'column')}.`,
};
