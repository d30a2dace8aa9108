// The chapter's exercises as checks a learner's answer runs through the core: facts whose value is a
// function, called when the learner presses Check (not on every recompute). Each builds what it needs under
// the settings' seed, runs it, reports what the core computed (or the core's own message) and deletes it.
//   ex31_try({ transpose, zeroBias })  Exercise 3.1: v2's weights into v1 (each `.weight` or `.weight.T`, v2's
//                                      biases zeroed or not) -> { same, maxDiff } or { error }
//   ex32_try({ heads, d_out })         Exercise 3.2: MultiHeadAttentionWrapper's output -> { shape } or { error }
//   ex33_try()                         Exercise 3.3: GPT-2's MultiHeadAttention(768, 768, 1024, 0.0, 12) ->
//                                      { count, parts: [[name, numel]] }
// Reads the inputs and d_in of 3.3.1 and the batch of 3.5.3; adds nothing for later sections.
import { maxAbsDiff } from '../explain.js';

// GPT-2 small's attention: 768 features, 1024 tokens of context, 12 heads.
export const GPT2_ATTENTION = { d: 768, context: 1024, heads: 12 };
const LAYERS = ['W_query', 'W_key', 'W_value'];

/** Runs make() with the modules it builds deleted afterwards, turning the core's refusal into { error }. */
function tryWith(make) {
  const modules = [];
  try {
    return make((m) => (modules.push(m), m));
  } catch (error) {
    if (error?.name === 'AttentionError') return { error: error.message };
    throw error;
  } finally {
    for (const m of modules) m.delete();
  }
}

export default function exercises(chapter) {
  const { torch, settings, fact, inputs, d_in, batch, contextLength } = chapter;
  const d_out = settings.d_out;

  fact('ex31_try', ({ transpose, zeroBias }) =>
    tryWith((own) => {
      torch.manualSeed(settings.seed);
      const v2 = own(new torch.SelfAttention_v2(d_in, d_out, true));
      const v1 = own(new torch.SelfAttention_v1(d_in, d_out));
      for (const layer of LAYERS) {
        v1[layer] = transpose ? v2[layer].weight.T : v2[layer].weight;
        if (zeroBias) v2[layer].bias.zero_();
      }
      const [out2, out1] = [v2.forward(inputs), v1.forward(inputs)];
      return { same: torch.allclose(out2, out1, { atol: 1e-6 }), maxDiff: maxAbsDiff(out2.toArray(), out1.toArray()) };
    }),
  );

  fact('ex32_try', ({ heads, d_out: width }) =>
    tryWith((own) => {
      torch.manualSeed(settings.seed);
      const wrapper = own(new torch.MultiHeadAttentionWrapper(d_in, width, contextLength(), 0.0, heads, settings.qkv_bias));
      return { shape: wrapper.forward(batch).shape };
    }),
  );

  fact('ex33_try', () =>
    tryWith((own) => {
      const { d, context, heads } = GPT2_ATTENTION;
      const mha = own(new torch.MultiHeadAttention(d, d, context, 0.0, heads, settings.qkv_bias));
      const parts = [...LAYERS, 'out_proj'].flatMap((layer) => [
        [`${layer}.weight`, mha[layer].weight.numel()],
        ...(mha[layer].bias ? [[`${layer}.bias`, mha[layer].bias.numel()]] : []),
      ]);
      return { count: parts.reduce((sum, [, k]) => sum + k, 0), parts };
    }),
  );
}
