// 3.6.2 — one projection for all heads, split with view and transpose.
import { biasArg, contextLengthArg, printOf } from '../python.js';
import { MULTI_HEAD_ATTENTION } from './s362-mha-output.js';
export default {
  id: 'mha-split',
  section: '3.6.2',
  title: 'One projection, split into heads',
  prose: [
    'Running heads one by one means many small matrix products. MultiHeadAttention makes one d_in × d_out ' +
      'projection for all heads together and then cuts its output into num_heads slices of head_dim = ' +
      'd_out / num_heads columns. Unlike in the wrapper, d_out is now the total width of all heads: with the ' +
      'book’s settings, 2 heads of 1 column each.',
    'Two reshapes do the cutting without moving any number. `view` reads the last dimension as (num_heads, ' +
      'head_dim), and `transpose(1, 2)` moves the head dimension in front of the tokens: shape (batch, heads, ' +
      'tokens, head_dim), one tokens × head_dim matrix per head. Hover over a cell to see where it sits in ' +
      '`queries`. Keys and values are split the same way.',
  ],
  formula: String.raw`\mathbf{Q} = \mathbf{X}\mathbf{W}_q \in \mathbb{R}^{b \times T \times d_\text{out}} \;\longrightarrow\; \mathbb{R}^{b \times n_h \times T \times d_\text{out}/n_h}`,
  code: (s) => [
    MULTI_HEAD_ATTENTION, // the class is written out on the section's last step
    `torch.manual_seed(${s.seed})`,
    `mha = MultiHeadAttention(d_in, d_out, ${contextLengthArg(s)}, 0.0, num_heads=${s.heads}${biasArg(s)})`,
    'b, num_tokens, _ = batch.shape',
    'queries = mha.W_query(batch)',
    printOf('mha_queries', 'queries'),
    'queries = queries.view(b, num_tokens, mha.num_heads, mha.head_dim)',
    'queries = queries.transpose(1, 2)',
    printOf('mha_queries_split', 'queries'),
  ],
  highlight: [4, 6, 7],
  show: ['mha_queries', 'mha_queries_split'],
  // the view/transpose explorer: the layout fact, the split view and the tensor whose storage it reads
  layout: { fact: 'mha_layout', view: 'mha_queries_split', storage: 'mha_queries', viewLabel: 'split', storageLabel: 'queries' },
  controls: ['d_out', 'heads', 'seed', 'qkv_bias'],
  note: (r) =>
    `queries: [${r.mha_queries.shape.join(', ')}] → view and transpose → [${r.mha_queries_split.shape.join(', ')}].`,
};
