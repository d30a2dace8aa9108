// 3.4.2 — nn.Linear instead of raw parameters.
import { biasArg, printOf } from '../python.js';
export default {
  id: 'self-attention-v2',
  section: '3.4.2',
  title: 'SelfAttention_v2: nn.Linear layers',
  prose: [
    '`nn.Linear` does the same matrix product and can add a bias (off by default, `qkv_bias=False`; the settings ' +
      'can switch it on). Two details ' +
      'differ from v1. It stores its weight as d_out × d_in, the transpose of v1’s layout, and computes x Wᵀ. And ' +
      'it starts the weights uniformly in ±1/√d_in rather than in [0, 1): small, centred values that train better.',
    'The book seeds this module with 789, so its numbers are not v1’s. Hover over a weight to see the draw it ' +
      'came from and how it was stretched into ±1/√d_in; hover over an output for its weighted sum.',
  ],
  formula: String.raw`\operatorname{Linear}(\mathbf{x}) = \mathbf{x}\mathbf{W}^\top + \mathbf{b}, \quad w_{ij} \sim \mathcal{U}\!\left(-\tfrac{1}{\sqrt{d_\text{in}}}, \tfrac{1}{\sqrt{d_\text{in}}}\right)`,
  code: (s) => [
    'class SelfAttention_v2(nn.Module):',
    '    def __init__(self, d_in, d_out, qkv_bias=False):',
    '        super().__init__()',
    '        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)',
    '',
    '    def forward(self, x):',
    '        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)',
    '        attn_weights = torch.softmax(queries @ keys.T / keys.shape[-1]**0.5, dim=-1)',
    '        return attn_weights @ values',
    '',
    `torch.manual_seed(${s.seedV2})`,
    `sa_v2 = SelfAttention_v2(d_in, d_out${biasArg(s)})`,
    printOf('sa_v2_W_query', 'sa_v2.W_query.weight'),
    printOf('sa_v2_out', 'sa_v2(inputs)'),
    // qkv_bias=True: the page draws the three bias vectors after the output, so they are printed in that order
    ...(s.qkv_bias ? ['W_query', 'W_key', 'W_value'].map((layer) => printOf(`sa_v2_${layer}_bias`, `sa_v2.${layer}.bias`)) : []),
  ],
  highlight: [12, 13, 15],
  show: ['sa_v2_W_query', 'sa_v2_out'],
  biases: ['sa_v2_W_query_bias', 'sa_v2_W_key_bias', 'sa_v2_W_value_bias'],
  controls: ['seedV2', 'qkv_bias', 'd_out'],
  note: (r, s) => {
    const [d_out, d_in] = r.sa_v2_W_query.shape;
    const bias = s.qkv_bias ? ' Biases are on (qkv_bias), so each layer also adds its bias vector, shown above, to every row of x Wᵀ.' : '';
    return `W_query.weight has shape [${d_out}, ${d_in}], the transpose of v1’s [${d_in}, ${d_out}].${bias}`;
  },
};
