// The walk-through as a runnable notebook: one cell per group of steps, written from the page's settings
// (words, embeddings, seeds, d_out, heads, dropout p, qkv_bias), so a learner can open any step's code in
// the notebook and get the numbers the step shows. Plain data: `steps` lists the step ids a cell computes.

import selfAttentionV1 from '../steps/s342-self-attention-v1.js';
import selfAttentionV2 from '../steps/s342-self-attention-v2.js';
import causalAttention from '../steps/s353-causal-attention.js';
import wrapper from '../steps/s361-wrapper.js';
import { queryIndex } from '../state.js';
import { inputsLines, pyFloat, contextLengthArg } from '../python.js';

// A step's class definition: its code up to the seed that precedes the instance (the walk-through's own lines).
function classLines(step) {
  const end = step.code.findIndex((line) => line.startsWith('torch.manual_seed'));
  const lines = step.code.slice(0, end);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}


/** The cells of the chapter under `settings`: [{ steps: [ids], code }]. */
export function chapterCells(s) {
  const q = queryIndex(s);
  const context = contextLengthArg(s);
  const bias = s.qkv_bias ? 'True' : 'False';
  return [
    {
      steps: ['dot-product', 'embeddings'],
      code: [
        'import torch',
        'import torch.nn as nn',
        '',
        `words = ${JSON.stringify(s.tokens)}`,
        ...inputsLines(s),
        `print(torch.dot(inputs[0], inputs[${q}]))`,
        'print(inputs)',
      ],
    },
    {
      steps: ['scores-x2', 'normalise-by-sum', 'softmax-naive', 'softmax-torch', 'context-z2'],
      code: [
        `query = inputs[${q}]`,
        'attn_scores_2 = torch.empty(inputs.shape[0])',
        'for i, x_i in enumerate(inputs):',
        '    attn_scores_2[i] = torch.dot(x_i, query)',
        'print("scores:", attn_scores_2)',
        'print("divided by the sum:", attn_scores_2 / attn_scores_2.sum())',
        'print("naive softmax:", torch.exp(attn_scores_2) / torch.exp(attn_scores_2).sum(dim=0))',
        'attn_weights_2 = torch.softmax(attn_scores_2, dim=0)',
        'print("softmax:", attn_weights_2)',
        'context_vec_2 = torch.zeros(query.shape)',
        'for i, x_i in enumerate(inputs):',
        '    context_vec_2 += attn_weights_2[i] * x_i',
        'print("context vector z2:", context_vec_2)',
      ],
    },
    {
      steps: ['all-scores', 'all-weights', 'row-sums', 'all-context'],
      code: [
        'attn_scores = inputs @ inputs.T',
        'print(attn_scores)',
        'attn_weights = torch.softmax(attn_scores, dim=-1)',
        'print(attn_weights)',
        'print("row sums:", attn_weights.sum(dim=-1))',
        'all_context_vecs = attn_weights @ inputs',
        'print(all_context_vecs)',
      ],
    },
    {
      steps: ['qkv-weights', 'qkv-x2', 'keys-values', 'score-22', 'scores-q2', 'scaled-softmax', 'context-q2'],
      code: [
        `d_in, d_out = inputs.shape[1], ${s.d_out}`,
        `torch.manual_seed(${s.seed})`,
        'W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
        'W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
        'W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)',
        'print(W_query)',
        `x_2 = inputs[${q}]`,
        'query_2 = x_2 @ W_query',
        'keys = inputs @ W_key',
        'values = inputs @ W_value',
        'print("query_2:", query_2)',
        'print("keys:", keys)',
        `print("score ${q + 1},${q + 1}:", query_2.dot(keys[${q}]))`,
        'attn_scores_2 = query_2 @ keys.T',
        'd_k = keys.shape[-1]',
        'attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)',
        'print("weights:", attn_weights_2)',
        'print("context vector:", attn_weights_2 @ values)',
      ],
    },
    {
      steps: ['self-attention-v1', 'self-attention-v2'],
      code: [
        ...classLines(selfAttentionV1),
        '',
        ...classLines(selfAttentionV2),
        '',
        `torch.manual_seed(${s.seed})`,
        'sa_v1 = SelfAttention_v1(d_in, d_out)',
        'print(sa_v1(inputs))',
        `torch.manual_seed(${s.seedV2})`,
        `sa_v2 = SelfAttention_v2(d_in, d_out, qkv_bias=${bias})`,
        'print(sa_v2(inputs))',
      ],
    },
    {
      steps: ['ex31-weights', 'ex31-transfer'],
      code: [
        "# The book's printout of this exercise ran after an earlier run of the same cell: replay that history",
        '# (v1, then v2 and v1 once) so that the weights are the printed ones.',
        `torch.manual_seed(${s.seed})`,
        'SelfAttention_v1(d_in, d_out); SelfAttention_v2(d_in, d_out, qkv_bias=True); SelfAttention_v1(d_in, d_out)',
        'attention_v2 = SelfAttention_v2(d_in, d_out, qkv_bias=True)',
        'attention_v1 = SelfAttention_v1(d_in, d_out)',
        'attention_v1.W_query.data = attention_v2.W_query.weight.T.detach().clone()',
        'attention_v1.W_key.data = attention_v2.W_key.weight.T.detach().clone()',
        'attention_v1.W_value.data = attention_v2.W_value.weight.T.detach().clone()',
        'for layer in (attention_v2.W_query, attention_v2.W_key, attention_v2.W_value):',
        '    layer.bias.data.zero_()  # v1 has no bias',
        'print(attention_v2(inputs))',
        'print(attention_v1(inputs))',
        'print(torch.allclose(attention_v1(inputs), attention_v2(inputs), atol=1e-6))',
      ],
    },
    {
      steps: ['causal-weights', 'causal-tril-mask', 'causal-masked-weights', 'causal-renormalise', 'causal-minus-inf',
        'causal-softmax'],
      code: [
        'queries = sa_v2.W_query(inputs)',
        'keys = sa_v2.W_key(inputs)',
        'attn_scores = queries @ keys.T',
        'attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)',
        'print(attn_weights)',
        'context_length = attn_scores.shape[0]',
        'mask_simple = torch.tril(torch.ones(context_length, context_length))',
        'masked_simple = attn_weights * mask_simple',
        'print(masked_simple / masked_simple.sum(dim=-1, keepdim=True))',
        'mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)',
        'masked = attn_scores.masked_fill(mask.bool(), -torch.inf)',
        'print(masked)',
        'attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)',
        'print(attn_weights)',
      ],
    },
    {
      steps: ['dropout-ones', 'dropout-weights', 'dropout-builds'],
      code: [
        `torch.manual_seed(${s.seed})`,
        `dropout = torch.nn.Dropout(${pyFloat(s.p)})`,
        'print(dropout(torch.ones(context_length, context_length)))',
        `torch.manual_seed(${s.seed})`,
        'print(dropout(attn_weights))',
      ],
    },
    {
      steps: ['batch', 'causal-attention'],
      code: [
        ...classLines(causalAttention),
        '',
        'batch = torch.stack((inputs, inputs), dim=0)',
        'print(batch.shape)',
        `torch.manual_seed(${s.seed})`,
        `ca = CausalAttention(d_in, d_out, ${context}, 0.0, qkv_bias=${bias})`,
        'print(ca(batch))',
      ],
    },
    {
      steps: ['wrapper', 'ex32-d-out-1'],
      code: [
        ...classLines(wrapper),
        '',
        `torch.manual_seed(${s.seed})`,
        `wrapper = MultiHeadAttentionWrapper(d_in, d_out, ${context}, 0.0, num_heads=${s.heads}, qkv_bias=${bias})`,
        'print(wrapper(batch))',
        `torch.manual_seed(${s.seed})`,
        `print(MultiHeadAttentionWrapper(d_in, 1, ${context}, 0.0, num_heads=${s.heads}, qkv_bias=${bias})(batch))`,
      ],
    },
    {
      steps: ['mha-split', 'bmm-example', 'bmm-per-head', 'mha-weights', 'mha-merge', 'mha-output'],
      code: [
        'class MultiHeadAttention(nn.Module):',
        '    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):',
        '        super().__init__()',
        '        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"',
        '        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads',
        '        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)',
        '        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)',
        '        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)',
        '        self.out_proj = nn.Linear(d_out, d_out)',
        '        self.dropout = nn.Dropout(dropout)',
        '        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))',
        '',
        '    def forward(self, x):',
        '        b, num_tokens, d_in = x.shape',
        '        split = lambda t: t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)',
        '        keys, queries, values = split(self.W_key(x)), split(self.W_query(x)), split(self.W_value(x))',
        '        attn_scores = queries @ keys.transpose(2, 3)',
        '        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)',
        '        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))',
        '        context_vec = (attn_weights @ values).transpose(1, 2)',
        '        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)',
        '        return self.out_proj(context_vec)',
        '',
        `torch.manual_seed(${s.seed})`,
        `mha = MultiHeadAttention(d_in, ${s.d_out}, ${context}, 0.0, num_heads=${s.heads}, qkv_bias=${bias})`,
        'print(mha(batch))',
      ],
    },
  ];
}

/** The cells a step's "Open in notebook" link opens: from the first up to the one computing `stepId`. */
export function cellsForStep(stepId, settings) {
  const cells = chapterCells(settings);
  const last = cells.findIndex((c) => c.steps.includes(stepId));
  return cells.slice(0, last < 0 ? cells.length : last + 1).map((c) => c.code.join('\n'));
}

/** The same cells as one Python script (the step's "Copy as PyTorch"): run with PyTorch, it prints the step's numbers. */
export function scriptForStep(stepId, settings) {
  const mkl = settings.profile === 'mkl'
    ? '# The dropout masks are those of an Intel-MKL build (a pip wheel on an Intel CPU); others draw other masks.\n'
    : '';
  return `# Chapter 3 up to the step "${stepId}", with the page's settings: run it with PyTorch (CPU).\n${mkl}\n` +
    `${cellsForStep(stepId, settings).join('\n\n')}\n`;
}
