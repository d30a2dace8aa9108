// 3.4.2 The same attention as classes: SelfAttention_v1 (nn.Parameter from torch.rand) and SelfAttention_v2
// (nn.Linear), and Exercise 3.1, which moves v2's weights into v1 and gets the same output.
// Reads the inputs and d_in of 3.3.1; returns SelfAttention_v2 (sa_v2), whose queries and keys 3.5.1 masks.
import * as explain from '../explain.js';

export default function attentionClasses(chapter) {
  const { torch, settings, results, show, fact, features, dims, words, keep, contextOf, projections, inputs, d_in } = chapter;
  const d_out = settings.d_out;
  const outCols = dims(d_out, 'o');
  const { sa_v1, v1Start, v1Weight } = keep('sa_v1', () => {
    torch.manualSeed(settings.seed);
    const v1Start = torch.rngDraws();
    const sa_v1 = new torch.SelfAttention_v1(d_in, d_out);
    return { sa_v1, v1Start, v1Weight: sa_v1.W_query };
  });
  show('sa_v1_W_query', v1Weight, {
    label: 'sa_v1.W_query',
    rows: features(d_in),
    cols: outCols,
    explain: (values) => explain.randDraws({ seed: settings.seed, start: v1Start, shape: [d_in, d_out], values }),
  });
  const v1Parts = (m) => [inputs.matmul(m.W_query), inputs.matmul(m.W_key), inputs.matmul(m.W_value)];
  show('sa_v1_out', sa_v1.forward(inputs), { label: 'sa_v1(inputs)', rows: words, cols: outCols, explain: contextOf(() => v1Parts(sa_v1)) });

  const { sa_v2, v2Weight } = keep('sa_v2', () => {
    torch.manualSeed(settings.seedV2);
    const sa_v2 = new torch.SelfAttention_v2(d_in, d_out, settings.qkv_bias);
    return { sa_v2, v2Weight: sa_v2.W_query.weight };
  });
  const bound = 1 / Math.sqrt(d_in);
  show('sa_v2_W_query', v2Weight, {
    label: 'sa_v2.W_query.weight',
    rows: outCols,
    cols: features(d_in),
    explain: (values) => explain.linearDraws({ seed: settings.seedV2, start: 0, shape: [d_out, d_in], values, bound, what: 'W_query.weight' }),
  });
  // with qkv_bias, each layer drew its bias right after its weight
  if (settings.qkv_bias) {
    ['W_query', 'W_key', 'W_value'].forEach((layer, k) => {
      show(`sa_v2_${layer}_bias`, sa_v2[layer].bias, {
        label: `sa_v2.${layer}.bias`,
        cols: outCols,
        explain: (values) => explain.linearDraws({ seed: settings.seedV2, start: k * (d_out * d_in + d_out) + d_out * d_in, shape: [d_out], values, bound, what: `${layer}.bias` }),
      });
    });
  }
  show('sa_v2_out', sa_v2.forward(inputs), { label: 'sa_v2(inputs)', rows: words, cols: outCols, explain: contextOf(() => projections(sa_v2, inputs)) });

  // Exercise 3.1, with the history the book's printout has: after SelfAttention_v1 (seed 123) one earlier
  // run of the same cell drew 42 more numbers (v2 with biases, then v1).
  const ex = keep('ex31', () => {
    torch.manualSeed(settings.seed);
    // each made only for what it draws
    new torch.SelfAttention_v1(d_in, d_out).delete();
    new torch.SelfAttention_v2(d_in, d_out, true).delete();
    new torch.SelfAttention_v1(d_in, d_out).delete();
    const exStart = torch.rngDraws();
    const attention_v2 = new torch.SelfAttention_v2(d_in, d_out, true);
    const attention_v1 = new torch.SelfAttention_v1(d_in, d_out);
    // the weights as drawn (shown below; the bias is a copy of the parameter, as the transfer zeroes it), then the transfer
    const drawn = { v2Weight: attention_v2.W_query.weight, v2Bias: attention_v2.W_query.bias.detach().clone().asParameter(true), v1Weight: attention_v1.W_query };
    for (const w of ['W_query', 'W_key', 'W_value']) {
      attention_v1[w] = attention_v2[w].weight.T; // nn.Linear stores the transpose
      attention_v2[w].bias.zero_();
    }
    return { exStart, attention_v2, attention_v1, ...drawn, v1After: attention_v1.W_query };
  });
  const { exStart, attention_v2, attention_v1 } = ex;
  show('ex31_v2_W_query', ex.v2Weight, {
    label: 'attention_v2.W_query.weight',
    rows: outCols,
    cols: features(d_in),
    explain: (values) => explain.linearDraws({ seed: settings.seed, start: exStart, shape: [d_out, d_in], values, bound, what: 'W_query.weight' }),
  });
  show('ex31_v2_bias', ex.v2Bias, {
    label: 'attention_v2.W_query.bias',
    cols: outCols,
    explain: (values) => explain.linearDraws({ seed: settings.seed, start: exStart + d_out * d_in, shape: [d_out], values, bound, what: 'W_query.bias' }),
  });
  show('ex31_v1_W_query', ex.v1Weight, {
    label: 'attention_v1.W_query',
    rows: features(d_in),
    cols: outCols,
    // v2 drew weight and bias for each of its three layers before v1 drew
    explain: (values) => explain.randDraws({ seed: settings.seed, start: exStart + 3 * (d_out * d_in + d_out), shape: [d_in, d_out], values }),
  });
  const v2Weight31 = results.ex31_v2_W_query.values;
  show('ex31_v1_after', ex.v1After, {
    label: 'attention_v1.W_query (after the transfer)',
    rows: features(d_in),
    cols: outCols,
    explain: () => explain.copiedFrom(([i, j]) => `attention_v2.W_query.weight[${j}, ${i}] = ${explain.fmt(v2Weight31[j][i])}, transposed into row ${i}, column ${j}`),
    operands: ([i, j]) => [['ex31_v2_W_query', [j, i]]],
  });
  const out2 = show('ex31_out_v2', attention_v2.forward(inputs), { label: 'attention_v2(x)', rows: words, cols: outCols, explain: contextOf(() => projections(attention_v2, inputs)) });
  const out1 = show('ex31_out_v1', attention_v1.forward(inputs), { label: 'attention_v1(x)', rows: words, cols: outCols, explain: contextOf(() => v1Parts(attention_v1)) });
  fact('ex31_equal', torch.allclose(out2, out1, { atol: 1e-6 }));
  return { sa_v2 };
}
