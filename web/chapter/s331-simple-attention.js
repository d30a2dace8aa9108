// 3.3.1 A simple self-attention without trainable weights: the scores, weights and context vector of one
// query, x(2), against every token.
import * as X from '../explain.js';
import { queryIndex } from '../state.js';

/** The input embeddings: as typed, or drawn by torch.rand / torch.randn(n, d_in) under their own seed. */
function embeddings({ torch, settings }) {
  if (settings.inputs === 'typed') return torch.tensor(settings.embeddings);
  const [n, d] = [settings.tokens.length, settings.embeddings[0].length];
  torch.manualSeed(settings.inputSeed);
  return settings.inputs === 'randn' ? torch.randn(n, d) : torch.rand(n, d);
}

function drawnBy(settings) {
  const { inputs, inputSeed } = settings;
  if (inputs === 'typed') return undefined;
  const [n, d] = [settings.tokens.length, settings.embeddings[0].length];
  if (inputs === 'rand') return (values) => X.randDraws({ seed: inputSeed, start: 0, shape: [n, d], values });
  return () => X.copiedFrom(([i, j]) => `number ${i * d + j} of torch.randn(${n}, ${d}) after torch.manual_seed(${inputSeed}): normally distributed, mean 0, standard deviation 1`);
}

export default function simpleAttention(c) {
  const { torch, show, features, words } = c;
  const x1 = show('x1', torch.tensor([0.4, 0.1, 0.8]), { cols: features(3) });
  const x2 = show('x2', torch.tensor([0.5, 0.8, 0.6]), { cols: features(3) });
  show('dot_x1_x2', torch.dot(x1, x2), {
    label: 'torch.dot(x1, x2)',
    explain: (out) => () => [X.dotLine('x1 · x2', c.results.x1.values, c.results.x2.values, out)],
  });

  const inputs = show('inputs', embeddings(c), { rows: words, cols: features(c.settings.embeddings[0].length), explain: drawnBy(c.settings) });
  const inputRows = c.results.inputs.values;
  // The rows of inputs, taken once: every loop over the tokens below walks these views.
  const tokens = [...inputs];
  const q = queryIndex(c.settings); // x(2), or x(1) when it is the only word
  Object.assign(c, { inputs, inputRows, tokens, q, n: inputRows.length, d_in: inputRows[0].length });
  const copiedRow = (out) => (i) => [`row ${q} (“${words[q]}”) of inputs: ${X.fmt(out[i[0]])}`];
  const query = show('query', tokens[q], { cols: features(c.d_in), explain: copiedRow });

  // one dot product per token, written into an empty tensor like the book's loop
  const scores2 = torch.empty(inputs.shape[0]);
  tokens.forEach((x_i, i) => scores2.set(i, x_i.dot(query)));
  show('attn_scores_2', scores2, { cols: words, explain: (out) => X.rowDots(inputRows, c.results.query.values, out, { name: 'ω2' }) });
  const scoreValues = c.results.attn_scores_2.values;

  const tmp = show('attn_weights_2_tmp', scores2.div(scores2.sum()), { cols: words, explain: (out) => X.divideBySum(scoreValues, out) });
  show('attn_weights_2_tmp_sum', tmp.sum(), { label: 'attn_weights_2_tmp.sum()', explain: (out) => X.sumOf(c.results.attn_weights_2_tmp.values, out) });

  const exps = scores2.exp(); // exp(x) once, for both sides of exp(x) / exp(x).sum(0)
  const naive = show('attn_weights_2_naive', exps.div(exps.sum(0)), { cols: words, explain: (out) => X.naiveSoftmax(scoreValues, out) });
  show('attn_weights_2_naive_sum', naive.sum(), { label: 'attn_weights_2_naive.sum()', explain: (out) => X.sumOf(c.results.attn_weights_2_naive.values, out) });

  const weights2 = show('attn_weights_2', torch.softmax(scores2, 0), { cols: words, explain: (out) => X.softmax(scoreValues, out) });
  show('attn_weights_2_sum', weights2.sum(), { label: 'attn_weights_2.sum()', explain: (out) => X.sumOf(c.results.attn_weights_2.values, out) });

  const context2 = torch.zeros(...query.shape);
  tokens.forEach((x_i, i) => context2.add_(weights2.at(i).mul(x_i)));
  show('context_vec_2', context2, { cols: features(c.d_in), explain: (out) => X.weightedSum(c.results.attn_weights_2.values, inputRows, out, { name: 'z2' }) });
}
