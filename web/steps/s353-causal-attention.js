// 3.5.3 — SelfAttention_v2 plus the causal mask and dropout, batch-ready.
import { biasArg, contextLengthArg, printOf } from '../python.js';
import { py } from '../explain.js';

export default {
  id: 'causal-attention',
  section: '3.5.3',
  title: 'CausalAttention: a compact class',
  prose: [
    'The class is SelfAttention_v2 plus the causal mask and dropout, adapted to batches. The keys are transposed ' +
      'with `transpose(1, 2)`, which swaps tokens and features but leaves the batch dimension first. The mask is ' +
      'built once in `__init__` and stored with `register_buffer`: it then moves to the GPU with the module but is ' +
      'not a trainable parameter. In `forward` it is cut to the actual number of tokens, and `masked_fill_` (with ' +
      'an underscore) changes the scores in place.',
    'Dropout is 0.0 here, so the output is deterministic. Hover over a cell to see its weighted sum: weights for ' +
      'later tokens are 0, so they add nothing.',
  ],
  formula: String.raw`\mathbf{Z} = \operatorname{dropout}\!\left(\operatorname{softmax}\!\left(\frac{\operatorname{mask}(\mathbf{Q}\mathbf{K}^\top)}{\sqrt{d_k}}\right)\right)\mathbf{V}`,
  code: (s) => [
    'class CausalAttention(nn.Module):',
    '    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):',
    '        super().__init__()',
    '        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '        self.dropout = nn.Dropout(dropout)',
    "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))",
    '',
    '    def forward(self, x):',
    '        b, num_tokens, d_in = x.shape',
    '        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)',
    '        attn_scores = queries @ keys.transpose(1, 2)',
    '        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)',
    '        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))',
    '        return attn_weights @ values',
    '',
    `torch.manual_seed(${s.seed})`,
    `ca = CausalAttention(d_in, d_out, ${contextLengthArg(s)}, 0.0${biasArg(s)})`,
    'context_vecs = ca(batch)',
    printOf('ca_context_vecs', 'context_vecs'),
  ],
  highlight: [17, 18, 19],
  show: ['ca_context_vecs'],
  mistakes: [
    {
      id: 'masked-fill-copy',
      question: 'forward() called masked_fill without the underscore?',
      right: 'mistake_mask_kept',
      wrong: 'mistake_mask_dropped',
      code: { right: 'attn_scores.masked_fill_(mask, -torch.inf)', wrong: 'attn_scores.masked_fill(mask, -torch.inf)' },
      why: (r) => {
        const leaks = r.mistake_mask_dropped.values.flatMap((row, i) => row.filter((v, j) => j > i && v > 0)).length;
        return 'masked_fill returns a masked copy and leaves attn_scores as it was; the copy is thrown away, so the ' +
          `softmax sees every score and ${leaks} weights above the diagonal (outlined) let tokens attend to words after ` +
          'them. No error, no warning: only the numbers differ. The underscore is PyTorch’s mark of an in-place operation.';
      },
    },
  ],
  controls: ['seed', 'd_out', 'qkv_bias'],
  note: (r) => {
    const [first, second] = r.ca_context_vecs.values;
    const same = JSON.stringify(first) === JSON.stringify(second);
    return `context_vecs.shape = [${r.ca_context_vecs.shape.join(', ')}]. Both texts of the batch give ` +
      `the same context vectors: ${py(same)}.`;
  },
};
