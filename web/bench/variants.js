// The bonus replay's variants: the ways the chapter's bonus notebook (LLMs-from-scratch, ch03/02_bonus_efficient-
// multihead-attention, mha-implementations.ipynb) computes the same causal multi-head attention, each written
// once here with the core's JavaScript API: its name, how it is built from the shared weights, why it is as
// fast as it is, and the times the notebook published. The bench page (web/bench/replay.js) renders and times
// them; tests/node/bench-variants.test.js checks that they agree. Nothing here touches the DOM.
//
// Every variant computes out_proj(causal multi-head attention of x) with the weights of one chapter
// MultiHeadAttention (the reference): W_query, W_key, W_value ([d_out, d_in], no bias, as qkv_bias=False) and
// out_proj ([d_out, d_out] with its bias). A variant is built once (untimed: copying weights, making masks)
// and returns a forward(x) for x of shape [batch, tokens, d_in].

/** The notebook's published CPU times: batch 8 × 1024 tokens × 768, 12 heads, forward only. */
export const PUBLISHED = {
  hardware: 'MacBook Air M3, CPU',
  software: 'PyTorch 2.4',
  size: { batch: 8, tokens: 1024, dIn: 768, dOut: 768, heads: 12 },
  // `variant` names the replay below that follows the same steps (null: none of its own)
  rows: [
    { name: 'Ch03_MHA_Wrapper', ms: 179, variant: 'wrapper' },
    { name: 'Ch03_MHA', ms: 166, variant: 'chapter' },
    { name: 'MultiHeadAttentionCombinedQKV', ms: 190, variant: 'combined-qkv' },
    { name: 'MHAEinsum', ms: 196, variant: 'einsum' },
    { name: 'MHAPyTorchScaledDotProduct', ms: 110, variant: 'fused' },
    { name: 'MHAPyTorchSDPAWithoutFlash', ms: 99.5, variant: 'fused', note: 'SDPA given the mask as a tensor' },
    { name: 'MHAPyTorchClass', ms: 198, variant: 'bmm' },
    { name: 'MHAPyTorchClass, need_weights=False', ms: 168, variant: 'bmm', note: 'its attention then goes to SDPA' },
  ],
};

/** The notebook's size and the quick one; `tokens` may be made smaller (the page's ?replay-tokens=). */
export const SIZES = {
  quick: { batch: 1, tokens: 1024, dIn: 768, dOut: 768, heads: 12 },
  notebook: { ...PUBLISHED.size },
};

export const REFERENCE = 'chapter';

const QKV = ['W_query', 'W_key', 'W_value'];

/**
 * The chapter's MultiHeadAttention(dIn, dOut, tokens, 0.0, heads) drawn after torch.manual_seed(seed), and x =
 * torch.rand(batch, tokens, dIn) drawn right after it: at batch 1 and 1024 tokens, the bench page's own model
 * and x. Returns the weights every variant copies ({ W_query, W_key, W_value, out_proj: { weight, bias } }) and x.
 */
export function replayInputs(torch, size, seed = 123) {
  torch.manualSeed(seed);
  const source = new torch.MultiHeadAttention(size.dIn, size.dOut, size.tokens, 0.0, size.heads);
  const weights = {
    out_proj: { weight: source.out_proj.weight.detach(), bias: source.out_proj.bias.detach() },
  };
  for (const name of QKV) weights[name] = source[name].weight.detach();
  const x = torch.rand(size.batch, size.tokens, size.dIn);
  source.delete();
  return { weights, x };
}

/** A chapter MultiHeadAttention in eval mode holding the shared weights, on the given attention path. */
function chapterModule(torch, weights, size, path) {
  const m = new torch.MultiHeadAttention(size.dIn, size.dOut, size.tokens, 0.0, size.heads).eval();
  for (const name of QKV) m[name].weight = weights[name];
  m.out_proj.weight = weights.out_proj.weight;
  m.out_proj.bias = weights.out_proj.bias;
  return m.setAttentionPath(path);
}

/** The causal mask as the notebook registers it: True above the diagonal (the future). */
const futureMask = (torch, tokens) => torch.triu(torch.ones(tokens, tokens), 1).bool();

// One op of the core on 400 MB of scores (the notebook's 8 × 12 × 1024 × 1024) needs up to four times that in
// the WebAssembly heap (its input copied in, a broadcast mask made full-size, a working copy, the result), past
// the 2 GB one heap can hold. So the ways written op by op take a batch whose scores pass this size one entry
// at a time (the same arithmetic; at batch 1 nothing changes).
const SCORES_BYTES_AT_ONCE = 256 * 2 ** 20;

/** forward(x) from forwardBatch(x), cutting x into single entries where the scores would pass the size above. */
function inEntries(torch, size, forwardBatch) {
  return (x) => {
    const [b, T] = x.shape;
    if (b <= 1 || 4 * b * size.heads * T * T <= SCORES_BYTES_AT_ONCE) return forwardBatch(x);
    return torch.cat(x.split(1, 0).map((entry) => forwardBatch(entry.contiguous())), 0);
  };
}

/** [b, T, heads·head_dim] -> [b, heads, T, head_dim] (a view). */
const splitHeads = (t, size) => t.view(t.shape[0], t.shape[1], size.heads, size.dOut / size.heads).transpose(1, 2);

/** [b, heads, T, head_dim] -> [b, T, heads·head_dim] (a copy, as .contiguous().view()). */
const mergeHeads = (t) => t.transpose(1, 2).reshape(t.shape[0], t.shape[2], t.shape[1] * t.shape[3]);

export const VARIANTS = [
  {
    id: 'wrapper',
    name: 'Wrapper of CausalAttention heads',
    code: 'MultiHeadAttentionWrapper(768, 64, 1024, 0.0, 12), then out_proj',
    plain: 'Twelve separate small attentions, one per head, side by side.',
    why:
      'The same arithmetic as the chapter’s class, cut into 36 thin products of 64 columns (three per head) instead ' +
      'of 3 wide ones, and each head makes its own pass of masking, scaling and softmax over its scores; joining ' +
      'the heads with cat copies the result once more.',
    build(torch, weights, size) {
      const headDim = size.dOut / size.heads;
      const wrapper = new torch.MultiHeadAttentionWrapper(size.dIn, headDim, size.tokens, 0.0, size.heads).eval();
      wrapper.setAttentionPath('exact'); // each head computes its scores as CausalAttention's forward does
      // head h's projections are rows h·head_dim … (h+1)·head_dim − 1 of the fused ones
      wrapper.heads.forEach((head, h) => {
        for (const name of QKV) head[name].weight = weights[name].slice(0, h * headDim, (h + 1) * headDim);
      });
      // the notebook's wrapper stops at the joined heads; the same out_proj makes it comparable with the others
      return (x) => torch.linear(wrapper.forward(x), weights.out_proj.weight, weights.out_proj.bias);
    },
  },
  {
    id: 'chapter',
    name: 'The chapter’s MultiHeadAttention',
    code: 'MultiHeadAttention(768, 768, 1024, 0.0, 12), PyTorch’s steps',
    plain: 'The class you built: three projections, then all heads at once.',
    why:
      'Three wide products, then every head’s full T × T table of scores, although the mask throws away the upper ' +
      'half of it; masking, scaling and the softmax each read and write that whole table (12 × T × T numbers) once more.',
    build(torch, weights, size) {
      const m = chapterModule(torch, weights, size, 'exact');
      return (x) => m.forward(x);
    },
  },
  {
    id: 'combined-qkv',
    name: 'One combined QKV projection',
    code: 'linear(x, W_qkv).view(b, T, 3, 12, 64).permute(2, 0, 3, 1, 4).unbind(0), op by op',
    plain: 'One projection three times as wide, then split into queries, keys and values.',
    why:
      'One product of 3 × 768 columns instead of three of 768: the same arithmetic in one call; the steps after ' +
      'it are separate calls from JavaScript, each copying its inputs into WebAssembly and its result back, so ' +
      'the 12 × T × T scores cross that boundary on every step.',
    build(torch, weights, size) {
      const combined = torch.cat(QKV.map((name) => weights[name]), 0); // [3·d_out, d_in]
      const headDim = size.dOut / size.heads;
      const mask = futureMask(torch, size.tokens);
      return inEntries(torch, size, (x) => {
        const [b, T] = x.shape;
        const qkv = torch.linear(x, combined).view(b, T, 3, size.heads, headDim).permute(2, 0, 3, 1, 4);
        const [queries, keys, values] = qkv.unbind(0); // [b, heads, T, head_dim] each
        const scores = queries.matmul(keys.transpose(-2, -1)).maskedFill_(mask, -Infinity);
        const attention = scores.div(Math.sqrt(headDim)).softmax(-1);
        return torch.linear(mergeHeads(attention.matmul(values)), weights.out_proj.weight, weights.out_proj.bias);
      });
    },
  },
  {
    id: 'einsum',
    name: 'Einstein summation (einsum)',
    code: "einsum('bnd,di->bni'), einsum('bhnd,bhmd->bhnm'), einsum('bhnm,bhmd->bhnd')",
    plain: 'Every product written as one einsum formula.',
    why:
      'The same products, each written as a formula that the core, like PyTorch, turns into permutes, reshapes and ' +
      'a batched matmul: the arithmetic is unchanged, the rearranging adds copies, and each step is again a ' +
      'separate call from JavaScript.',
    build(torch, weights, size) {
      // the notebook's einsum class holds W as [d_in, d_out] and computes x @ W
      const [Wq, Wk, Wv] = QKV.map((name) => weights[name].T.contiguous());
      const headDim = size.dOut / size.heads;
      const mask = futureMask(torch, size.tokens);
      return inEntries(torch, size, (x) => {
        const project = (W) => splitHeads(torch.einsum('bnd,di->bni', [x, W]), size);
        const queries = project(Wq), keys = project(Wk), values = project(Wv);
        const scores = torch.einsum('bhnd,bhmd->bhnm', [queries, keys]).div(Math.sqrt(headDim));
        const attention = scores.maskedFill(mask, -Infinity).softmax(-1);
        const context = torch.einsum('bhnm,bhmd->bhnd', [attention, values]);
        return torch.linear(mergeHeads(context), weights.out_proj.weight, weights.out_proj.bias);
      });
    },
  },
  {
    id: 'bmm',
    name: 'nn.MultiheadAttention’s steps (bmm)',
    code: 'in_proj, q · √(1/64), baddbmm(mask, q, kᵀ), softmax, bmm(·, v), out_proj, proj; the weights averaged over heads',
    plain: 'PyTorch’s own attention layer, step by step, with its extras.',
    why:
      'It scales the small queries instead of the big table of scores, but pays for extras: the weights averaged ' +
      'over the heads (need_weights=True) are one more pass over all 12 × T × T of them, the layer’s own output ' +
      'projection comes before the notebook’s, and every step is a separate call from JavaScript.',
    build(torch, weights, size) {
      const combined = torch.cat(QKV.map((name) => weights[name]), 0); // nn.MultiheadAttention's in_proj_weight
      const headDim = size.dOut / size.heads;
      // a bool attn_mask becomes an additive one: 0 where a key may be seen, −∞ on the future
      const additive = torch.zeros(size.tokens, size.tokens).maskedFill(futureMask(torch, size.tokens), -Infinity);
      // the layer's own out_proj (bias=qkv_bias, so none): the identity, so that the numbers stay the chapter's
      const layerOutProj = torch.eye(size.dOut);
      const byHead = (t, b, T) => splitHeads(t, size).reshape(b * size.heads, T, headDim);
      return inEntries(torch, size, (x) => {
        const [b, T] = x.shape;
        const [q, k, v] = torch.linear(x, combined).chunk(3, -1);
        const queries = byHead(q, b, T).mul(Math.sqrt(1 / headDim));
        // the mask goes in as the sums' start, as PyTorch's baddbmm (the GEMM kernel, carrying on from it)
        const attention = torch.baddbmm(additive, queries, byHead(k, b, T).transpose(1, 2)).softmax(-1);
        const context = torch.bmm(attention, byHead(v, b, T)).view(b, size.heads, T, headDim);
        // need_weights=True: the layer also returns the weights averaged over the heads (the notebook drops them)
        attention.view(b, size.heads, T, T).mean(1);
        const layerOut = torch.linear(mergeHeads(context), layerOutProj);
        return torch.linear(layerOut, weights.out_proj.weight, weights.out_proj.bias); // the notebook's proj
      });
    },
  },
  {
    id: 'fused',
    name: 'The fused fast path (scaled_dot_product_attention’s counterpart)',
    code: "MultiHeadAttention(…).setAttentionPath('fast')",
    plain: 'One kernel that never builds the table of scores and skips the masked half.',
    why:
      'One kernel per head walks tiles of 64 queries by 64 keys with a running softmax, so the T × T scores are ' +
      'never stored or read again, and the tiles above the diagonal, almost half the attention’s work, are skipped; ' +
      'what is left is mostly the four projections.',
    build(torch, weights, size) {
      const m = chapterModule(torch, weights, size, 'fast');
      return (x) => m.forward(x);
    },
  },
];

/**
 * The largest |a − b| over every element (NaN if either holds a NaN), in plain JavaScript: a and b are tensors,
 * or { shape, data } kept from one (of any loaded instance of the API).
 */
export function largestDifference(a, b) {
  if (a.shape.join() !== b.shape.join()) throw new Error(`shapes differ: [${a.shape}] against [${b.shape}]`);
  const x = a.data, y = b.data;
  let largest = 0;
  for (let i = 0; i < x.length; i++) {
    const d = Math.abs(x[i] - y[i]);
    if (!(d <= largest)) largest = d; // a NaN stays
    if (Number.isNaN(largest)) break;
  }
  return largest;
}
