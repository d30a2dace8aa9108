// 3.6.2 Multi-head attention with weight splits: the batched matmul example, then MultiHeadAttention's
// forward step by step (queries split into heads, masked scores, weights, context per head, heads merged)
// and its output through out_proj.
// Reads the n and d_in of 3.3.1, the causal mask (future) of 3.5.1 and the batch of 3.5.3; adds nothing.
import * as explain from '../explain.js';
import { ALL, upTo } from '../operands.js';
import { BOOK_BMM_INPUT } from '../book.js';

// a @ a.T of one matrix of a: the dot product of rows i and j (one row on the diagonal)
const rowPair = (i, j) => (i === j ? i : [i, j]);

export default function weightSplits(chapter) {
  const { torch, settings, results, show, fact, dims, words, keep, headCols, lazy, linearOf, rejectable, contextLength, n, d_in, future, batch } = chapter;
  const tokens3 = dims(3, 't');
  const a = show('bmm_a', torch.tensor(BOOK_BMM_INPUT), { label: 'a', rows: tokens3, cols: dims(4, 'd'), axes: ['batch', 'head', 'token', 'feature'] });
  const aT = a.transpose(2, 3);
  const aa = show('bmm_out', a.matmul(aT), {
    label: 'a @ a.transpose(2, 3)',
    rows: tokens3,
    cols: tokens3,
    axes: ['batch', 'head', 'token', 'token'],
    explain: (out) => lazy(() => explain.matmul(results.bmm_a.values, aT.toArray(), out, { name: 'out' })),
    operands: ([b, hd, i, j]) => [['bmm_a', [b, hd, rowPair(i, j), ALL]]],
  });
  const [first, second] = a.at(0);
  const perHead = (name, hd, head, label) => {
    const headT = head.T;
    return show(name, head.matmul(headT), {
      label,
      rows: tokens3,
      cols: tokens3,
      explain: (out) => lazy(() => explain.matmul(head.toArray(), headT.toArray(), out, { name: label })),
      operands: ([i, j]) => [['bmm_a', [0, hd, rowPair(i, j), ALL]]],
    });
  };
  const firstRes = perHead('bmm_first_head', 0, first, 'first_res');
  const secondRes = perHead('bmm_second_head', 1, second, 'second_res');
  const aa0 = aa.at(0);
  fact('bmm_heads_equal', torch.allclose(aa0.at(0), firstRes) && torch.allclose(aa0.at(1), secondRes));

  const { d_out, heads } = settings;
  const mha = keep('mha', () => {
    torch.manualSeed(settings.seed);
    return rejectable(['heads', 'd_out'], () => new torch.MultiHeadAttention(d_in, d_out, contextLength(), 0.0, heads, settings.qkv_bias));
  });
  const head_dim = d_out / heads;
  const b = batch.shape[0];
  const byToken = { rows: words, axes: ['batch', 'token', 'output'] };
  const q = show('mha_queries', mha.W_query.forward(batch), { label: 'queries', ...byToken, cols: headCols(heads, head_dim), explain: linearOf(mha.W_query, batch, 'queries', 'W_query.weight') });
  const split = (t) => t.view(b, n, heads, head_dim).transpose(1, 2);
  const [qs, ks, vs] = [q, mha.W_key.forward(batch), mha.W_value.forward(batch)].map(split);
  const perHeadAxes = { rows: words, cols: dims(head_dim, 'o'), axes: ['batch', 'head', 'token', 'output'] };
  const queriesValues = results.mha_queries.values;
  show('mha_queries_split', qs, {
    label: 'queries.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)',
    ...perHeadAxes,
    explain: () => explain.copiedFrom(([bi, h, t, j]) =>
      `queries[${bi}, ${t}, ${h * head_dim + j}] = ${explain.fmt(queriesValues[bi][t][h * head_dim + j])}: head ${h} owns ${head_dim === 1 ? `column ${h}` : `columns ${h * head_dim}–${(h + 1) * head_dim - 1}`}`),
    operands: ([bi, h, t, j]) => [['mha_queries', [bi, t, h * head_dim + j]]],
  });
  // Where each element of the split view lives in the storage of queries, [b, num_tokens, d_out]: the core's
  // own strides; and what view() says when asked to merge the heads back without contiguous().
  let viewError = null;
  try {
    qs.view(b, n, d_out);
  } catch (error) {
    viewError = error.message;
  }
  fact('mha_layout', { shape: qs.shape, strides: qs.stride(), offset: qs.storageOffset(), contiguous: qs.isContiguous(), storage: q.shape, storageStrides: q.stride(), viewError });
  const ksT = ks.transpose(2, 3);
  const rawScores = qs.matmul(ksT);
  const causalMarks = (idx) => (idx[idx.length - 1] > idx[idx.length - 2] ? 'masked' : null);
  const scoreParts = lazy(() => explain.matmul(qs.toArray(), ksT.toArray(), rawScores.toArray(), { name: 'ω', aName: 'query', bName: 'key' }));
  const byKey = { rows: words, cols: words, axes: ['batch', 'head', 'query', 'key'], marks: causalMarks };
  const mhaScores = show('mha_scores', rawScores.maskedFill(future, -Infinity), {
    label: 'attn_scores (masked, per head)',
    ...byKey,
    explain: (out) => (idx) => (causalMarks(idx) ? explain.causalFill(null, out)(idx) : scoreParts(idx)),
    operands: ([bi, h, i]) => [['mha_queries_split', [bi, h, i, ALL]]],
  });
  const scaled = mhaScores.div(head_dim ** 0.5);
  const weights = show('mha_weights', torch.softmax(scaled, -1), {
    label: 'attn_weights',
    ...byKey,
    explain: (out) => lazy(() => explain.softmax(scaled.toArray(), out)),
    operands: ([bi, h, i]) => [['mha_scores', [bi, h, i, upTo(i)]]],
  });
  const ctx = show('mha_context_heads', weights.matmul(vs), {
    label: 'attn_weights @ values',
    ...perHeadAxes,
    explain: (out) => lazy(() => explain.weightedSum(results.mha_weights.values, vs.toArray(), out)),
    operands: ([bi, h, i]) => [['mha_weights', [bi, h, i, upTo(i)]]],
  });
  const headsValues = results.mha_context_heads.values;
  const merged = show('mha_context_merged', ctx.transpose(1, 2).contiguous().view(b, n, d_out), {
    label: 'context_vec',
    ...byToken,
    cols: headCols(heads, head_dim),
    explain: () => explain.copiedFrom(([bi, t, col]) => {
      const [h, j] = [Math.floor(col / head_dim), col % head_dim];
      return `head ${h}, column ${j} of (attn_weights @ values)[${bi}] for token ${t}: ${explain.fmt(headsValues[bi][h][t][j])}`;
    }),
    operands: ([bi, t, col]) => [['mha_context_heads', [bi, Math.floor(col / head_dim), t, col % head_dim]]],
  });
  const out = show('mha_out', rejectable(['context_length'], () => mha.forward(batch)), {
    label: 'mha(batch)',
    ...byToken,
    cols: dims(d_out, 'o'),
    explain: linearOf(mha.out_proj, merged, 'out_proj(context_vec)', 'out_proj.weight'),
    operands: ([bi, t]) => [['mha_context_merged', [bi, t, ALL]]],
  });
  fact('mha_steps_equal', torch.allclose(mha.out_proj.forward(merged), out));

  // The mistake: out_proj = nn.Linear(d_out, d_in). Under the same seed the three projections draw the same
  // weights, then out_proj draws d_in x d_out: the output has d_in columns (and goes unnoticed when d_in = d_out).
  const wrongProj = keep('mistake_out_proj', () => {
    torch.manualSeed(settings.seed);
    for (let i = 0; i < 3; i++) new torch.nn.Linear(d_in, d_out, settings.qkv_bias).delete(); // made only for what they draw
    return new torch.nn.Linear(d_out, d_in);
  });
  show('mistake_out_proj', wrongProj.forward(merged), { label: 'out_proj = nn.Linear(d_out, d_in)', ...byToken, cols: dims(d_in, 'd'), explain: linearOf(wrongProj, merged, 'out_proj(context_vec)', 'out_proj.weight (d_in × d_out)') });

  // The mistake: a module with dropout, run without .eval(): its forward draws a dropout mask on the weights.
  // Built anew on each recompute: its construction leaves the generator where PyTorch's would be.
  torch.manualSeed(settings.seed);
  const withDropout = new torch.MultiHeadAttention(d_in, d_out, contextLength(), settings.p, heads, settings.qkv_bias);
  torch.setRngProfile(settings.profile);
  show('mistake_dropout_on', withDropout.forward(batch), { label: `mha(batch), dropout ${settings.p}, training mode`, ...byToken, cols: dims(d_out, 'o') });
  torch.setRngProfile('default');
  show('mistake_dropout_off', withDropout.eval().forward(batch), { label: 'mha.eval(); mha(batch)', ...byToken, cols: dims(d_out, 'o'), explain: linearOf(mha.out_proj, merged, 'out_proj(context_vec)', 'out_proj.weight (the same draws as mha)') });
  withDropout.delete();
}
