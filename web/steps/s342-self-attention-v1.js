// 3.4.2 — the steps of 3.4.1 packed into a module.
import { printOf } from '../python.js';
import { closeness, maxAbsDiff } from '../explain.js';
import { capital, theQuery } from './words.js';

export default {
  id: 'self-attention-v1',
  section: '3.4.2',
  title: 'SelfAttention_v1: one class for all of it',
  prose: [
    'The class collects the previous steps into a PyTorch module. The constructor draws the three matrices as ' +
      '`nn.Parameter`s, which makes them trainable, and `forward` computes queries, keys and values for every ' +
      'token, the scaled softmax weights and the context vectors, each as one matrix product.',
    (s) => 'Seeded the same way, it draws the same numbers as before, so its W_query is the matrix of 3.4.1 and the ' +
      `${theQuery(s).nth} row of its output is the context vector of ${theQuery(s).x}. Hover over an output cell to see the weighted sum ` +
      'of values behind it.',
  ],
  formula: String.raw`\mathbf{Z} = \operatorname{softmax}\!\left(\frac{\mathbf{Q}\mathbf{K}^\top}{\sqrt{d_k}}\right)\mathbf{V}, \quad \mathbf{Q} = \mathbf{X}\mathbf{W}_q,\; \mathbf{K} = \mathbf{X}\mathbf{W}_k,\; \mathbf{V} = \mathbf{X}\mathbf{W}_v`,
  code: (s) => [
    'class SelfAttention_v1(nn.Module):',
    '    def __init__(self, d_in, d_out):',
    '        super().__init__()',
    '        self.W_query = nn.Parameter(torch.rand(d_in, d_out))',
    '        self.W_key = nn.Parameter(torch.rand(d_in, d_out))',
    '        self.W_value = nn.Parameter(torch.rand(d_in, d_out))',
    '',
    '    def forward(self, x):',
    '        queries, keys, values = x @ self.W_query, x @ self.W_key, x @ self.W_value',
    '        attn_weights = torch.softmax(queries @ keys.T / keys.shape[-1]**0.5, dim=-1)',
    '        return attn_weights @ values',
    '',
    `torch.manual_seed(${s.seed})`,
    'sa_v1 = SelfAttention_v1(d_in, d_out)',
    printOf('sa_v1_W_query', 'sa_v1.W_query'),
    printOf('sa_v1_out', 'sa_v1(inputs)'),
  ],
  highlight: [12, 13, 15],
  show: ['sa_v1_W_query', 'sa_v1_out'],
  controls: ['seed', 'd_out'],
  note: (r, s) => {
    const { nth, row } = theQuery(s);
    return `${capital(`the ${nth} row`)} of the output and context_vec_2 of 3.4.1 are ` +
      `${closeness(maxAbsDiff(r.sa_v1_out.values[row], r.context_vec_2_qk.values))}.`;
  },
};
