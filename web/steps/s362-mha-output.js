// 3.6.2 — the whole MultiHeadAttention class and its output projection.
import { biasArg, contextLengthArg, definition, printOf } from '../python.js';
import { py } from '../explain.js';

// The class, written once: shown here in full, used from the first step of 3.6.2 on (scripts define it there).
export const MULTI_HEAD_ATTENTION = definition('MultiHeadAttention', 'mha-output', [
  'class MultiHeadAttention(nn.Module):',
  '    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):',
  '        super().__init__()',
  "        assert d_out % num_heads == 0, 'd_out must be divisible by num_heads'",
  '        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads',
  '        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)',
  '        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)',
  '        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)',
  '        self.out_proj = nn.Linear(d_out, d_out)',
  '        self.dropout = nn.Dropout(dropout)',
  "        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))",
  '',
  '    def forward(self, x):',
  '        b, num_tokens, _ = x.shape',
  '        split = lambda t: t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)',
  '        queries, keys, values = split(self.W_query(x)), split(self.W_key(x)), split(self.W_value(x))',
  '        attn_scores = queries @ keys.transpose(2, 3)',
  '        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)',
  '        attn_weights = self.dropout(torch.softmax(attn_scores / self.head_dim**0.5, dim=-1))',
  '        context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)',
  '        return self.out_proj(context_vec)',
]);

export default {
  id: 'mha-output',
  section: '3.6.2',
  title: 'MultiHeadAttention and its output projection',
  prose: [
    'The last operation is `out_proj`, a d_out × d_out linear layer with a bias that mixes the columns of all ' +
      'heads. Attention works without it, but GPT-like models include it, so the class does too.',
    'The class below runs the previous steps in order. Its output has d_out columns, not num_heads × d_out ' +
      'as with the wrapper, and running the module gives the same numbers as the step-by-step computation. Hover ' +
      'over a cell to see the merged row times a row of `out_proj.weight`, plus the bias.',
    'GPT-2 small stacks this same module with 12 heads, 768-dimensional embeddings and 1024 tokens of context. ' +
      'The bench page (the “Timed at GPT-2 size” link at the top) runs one such forward in your browser, times it ' +
      'and draws the attention weights of any of its heads.',
  ],
  formula: String.raw`\operatorname{MultiHeadAttention}(\mathbf{X}) = \mathbf{Z}\mathbf{W}_o^\top + \mathbf{b}_o`,
  code: (s) => [
    MULTI_HEAD_ATTENTION,
    `torch.manual_seed(${s.seed})`,
    `mha = MultiHeadAttention(d_in, d_out, ${contextLengthArg(s)}, 0.0, num_heads=${s.heads}${biasArg(s)})`,
    'context_vecs = mha(batch)',
    printOf('mha_out', 'context_vecs'),
  ],
  highlight: [20, 22, 23, 24],
  show: ['mha_out'],
  exercise: {
    id: 'ex33',
    title: 'Exercise 3.3: GPT-2’s attention',
    task: (s) => `GPT-2 small’s attention is MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12${s.qkv_bias ? ', qkv_bias=True' : ''}). ` +
      'How many trainable parameters does one such module have? Check builds it in the core and counts its parameters.',
    fields: [{ name: 'count', kind: 'number', label: 'Parameters', wide: true }],
    check: ({ count }, r, s) => {
      const guess = /^\s*[\d][\d,_ ]*\s*$/.test(count) ? Number(count.replace(/[,_ ]/g, '')) : NaN;
      if (!Number.isSafeInteger(guess)) return { solved: false, text: 'Type a whole number (commas are fine).' };
      const { count: total, parts } = r.ex33_try.value();
      if (guess === total) return { solved: true, text: `${total.toLocaleString('en')} = ${parts.map(([name, k]) => `${k.toLocaleString('en')} (${name})`).join(' + ')}.` };
      return {
        solved: false,
        text: `Not ${guess.toLocaleString('en')} (${guess < total ? 'too few' : 'too many'}). Count every nn.Linear’s weight (out × in) and bias: out_proj has a bias, ` +
          `and the three projections ${s.qkv_bias ? 'have one too (qkv_bias=True)' : 'none (qkv_bias=False)'}. The mask is a buffer, not a parameter.`,
      };
    },
    solution: (r, s) => `4 × 768 × 768 = 2,359,296 weights (W_query, W_key, W_value and out_proj) and ${s.qkv_bias ? '4' : '1'} × 768 biases: ` +
      `${(4 * 768 * 768 + (s.qkv_bias ? 4 : 1) * 768).toLocaleString('en')} parameters, about 9.4 MB in float32, in each of GPT-2 small’s 12 blocks.`,
  },
  view: 'gpt-block', // where the module sits in the next chapter's GPT block, after the recap
  mistakes: [
    {
      id: 'out-proj-shape',
      question: 'out_proj were nn.Linear(d_out, d_in)?',
      right: 'mha_out',
      wrong: 'mistake_out_proj',
      code: { right: 'self.out_proj = nn.Linear(d_out, d_out)', wrong: 'self.out_proj = nn.Linear(d_out, d_in)' },
      why: (r, s) => {
        const d_in = s.embeddings[0].length;
        return d_in === s.d_out
          ? `Here d_in = d_out = ${d_in}, so the two layers have the same shape and draw the same numbers: the mistake changes nothing and stays hidden until d_out differs from d_in.`
          : `The output gets d_in = ${d_in} columns instead of d_out = ${s.d_out}, and out_proj draws d_in × d_out weights, so the numbers differ too. Nothing fails here; a later layer that expects d_out features does. In GPT-2 d_in = d_out = 768, which hides the slip.`;
      },
    },
    {
      id: 'dropout-in-eval',
      question: 'dropout stayed on when the model is used?',
      right: 'mistake_dropout_off',
      wrong: 'mistake_dropout_on',
      code: { right: 'mha = MultiHeadAttention(..., dropout=p, ...); mha.eval(); mha(batch)', wrong: 'mha = MultiHeadAttention(..., dropout=p, ...); mha(batch)' },
      why: (r, s) =>
        s.p === 0
          ? 'With dropout p = 0 nothing is dropped, so training mode gives the same numbers. Set a dropout p in the settings to see the mistake.'
          : `A new module is in training mode, so every forward drops each attention weight with probability ${s.p} and scales the rest by ` +
            `1/(1 − p) = ${(1 / (1 - s.p)).toFixed(2)}: the output is random from call to call. \`model.eval()\` turns dropout off; the right ` +
            'result equals the module without dropout.',
    },
  ],
  controls: ['d_out', 'heads', 'seed', 'qkv_bias'],
  recap: [
    { name: 'SelfAttention_v1', adds: 'Trainable W_query, W_key and W_value (nn.Parameter): scores from queries and keys, scaled by √d_k before the softmax, and context vectors from the values.' },
    { name: 'SelfAttention_v2', adds: 'nn.Linear layers instead of raw parameters: PyTorch’s initialisation (uniform in ±1/√d_in), weights stored d_out × d_in, an optional bias (qkv_bias).' },
    { name: 'CausalAttention', adds: 'A causal mask, kept with register_buffer, that sets later tokens to −∞ before the softmax; dropout on the attention weights; batches of inputs.' },
    { name: 'MultiHeadAttentionWrapper', adds: 'Several CausalAttention heads, each with its own weights, run one after another, their outputs concatenated: num_heads × d_out columns.' },
    { name: 'MultiHeadAttention', adds: 'One projection each for queries, keys and values, split into heads with view and transpose; all heads in one batched matmul; the heads merged back and mixed by out_proj.' },
  ],
  note: (r) =>
    `context_vecs.shape = [${r.mha_out.shape.join(', ')}]. The module and the step-by-step computation agree: ` +
    `torch.allclose → ${py(r.mha_steps_equal.value)}.`,
};
